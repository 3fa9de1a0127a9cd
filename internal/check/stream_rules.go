package check

import (
	"fmt"
	"strings"
)

// streamRules check the raw stream capture and the server's health.
var streamRules = []rule{
	{"health status ok", []string{"health.json"}, func(l *lab) error {
		if l.health.Status != "ok" {
			return fmt.Errorf("health.json status is %q, want \"ok\"; was the model still loading?", l.health.Status)
		}
		return l.pass("status %q", l.health.Status)
	}},
	{"sse opening event", []string{"sse_raw.txt"}, func(l *lab) error {
		shown, err := l.sse.openingCheck()
		if err != nil {
			return err
		}
		return l.pass("%s", shown)
	}},
	{"sse content chunk", []string{"sse_raw.txt"}, func(l *lab) error {
		if len(l.sse.contents) == 0 {
			return fmt.Errorf("no event in sse_raw.txt has a non-empty choices[0].delta.content")
		}
		return l.pass("%d content events", len(l.sse.contents))
	}},
	{"sse ends complete", []string{"sse_raw.txt"}, func(l *lab) error {
		shown, err := l.sse.endCheck()
		if err != nil {
			return err
		}
		return l.pass("%s", shown)
	}},
	{"chunks match sse", []string{"sse_raw.txt", "chunks.jsonl"}, func(l *lab) error {
		var got strings.Builder
		for _, c := range l.chunks {
			got.WriteString(c.Text)
		}
		if err := sameText(got.String(), strings.Join(l.sse.contents, "")); err != nil {
			return err
		}
		return l.pass("%d chunks, %d bytes of text", len(l.chunks), got.Len())
	}},
	{"chunks t_ms non-decreasing", []string{"chunks.jsonl"}, func(l *lab) error {
		for i := 1; i < len(l.chunks); i++ {
			if l.chunks[i].TMs < l.chunks[i-1].TMs {
				return fmt.Errorf("chunk %d has t_ms %s, before chunk %d's %s", i+1, num(l.chunks[i].TMs), i, num(l.chunks[i-1].TMs))
			}
		}
		if len(l.chunks) == 0 {
			return l.pass("no chunks")
		}
		return l.pass("%s to %s ms", num(l.chunks[0].TMs), num(l.chunks[len(l.chunks)-1].TMs))
	}},
}

// sameText compares the chunk texts with the stream's content deltas and
// shows where they part.
func sameText(chunks, sse string) error {
	if chunks == sse {
		return nil
	}
	at := 0
	for at < len(chunks) && at < len(sse) && chunks[at] == sse[at] {
		at++
	}
	from := max(0, at-10)
	return fmt.Errorf("chunks.jsonl texts (%d bytes) differ from the content in sse_raw.txt (%d bytes) at byte %d: chunks have %s, sse has %s",
		len(chunks), len(sse), at, excerpt(chunks[from:], 30), excerpt(sse[from:], 30))
}
