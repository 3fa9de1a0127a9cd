package sse

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// gotEvent is a copied event.
type gotEvent struct {
	Type, Data, ID string
	DataLines      int
	Stamp          time.Duration
}

func (e gotEvent) String() string {
	return fmt.Sprintf("{%q %q id=%q n=%d @%d}", e.Type, e.Data, e.ID, e.DataLines, e.Stamp)
}

// parseParts feeds parts with stamp k for part k and collects every event.
func parseParts(t *testing.T, p *Parser, parts [][]byte) []gotEvent {
	t.Helper()
	var out []gotEvent
	for k, b := range parts {
		p.Feed(b, time.Duration(k))
		for {
			ev, ok := p.Next()
			if !ok {
				break
			}
			out = append(out, gotEvent{ev.Type, string(ev.Data), ev.ID, ev.DataLines, ev.Stamp})
		}
		if err := p.Err(); err != nil {
			t.Fatalf("feed %d: %v", k, err)
		}
	}
	return out
}

func parseString(t *testing.T, in string) ([]gotEvent, *Parser) {
	t.Helper()
	var p Parser
	return parseParts(t, &p, [][]byte{[]byte(in)}), &p
}

func TestEventRules(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want string
	}{
		{"one data line", "data: hello\n\n", `[{"" "hello" id="" n=1 @0}]`},
		{"only one space removed", "data:  two\n\n", `[{"" " two" id="" n=1 @0}]`},
		{"no space", "data:x\n\n", `[{"" "x" id="" n=1 @0}]`},
		{"joined with LF", "data: a\ndata: b\ndata\n\n", `[{"" "a\nb\n" id="" n=3 @0}]`},
		{"field without colon is empty data", "data\n\n", `[{"" "" id="" n=1 @0}]`},
		{"colon in value kept", "data: {\"a\":1}\n\n", `[{"" "{\"a\":1}" id="" n=1 @0}]`},
		{"comment ignored", ": ping\ndata: a\n: more\n\n", `[{"" "a" id="" n=1 @0}]`},
		{"blank without data dispatches nothing", "\n\nevent: x\n\ndata: a\n\n", `[{"" "a" id="" n=1 @0}]`},
		{"event type", "event: delta\ndata: a\n\ndata: b\n\n", `[{"delta" "a" id="" n=1 @0} {"" "b" id="" n=1 @0}]`},
		{"id carries over", "id: 7\ndata: a\n\ndata: b\n\nid\ndata: c\n\n", `[{"" "a" id="7" n=1 @0} {"" "b" id="7" n=1 @0} {"" "c" id="" n=1 @0}]`},
		{"id with NUL ignored", "id: 1\ndata: a\n\nid: 2\x003\ndata: b\n\n", `[{"" "a" id="1" n=1 @0} {"" "b" id="1" n=1 @0}]`},
		{"unknown fields ignored", "foo: bar\nerror: {}\ndata: a\n\n", `[{"" "a" id="" n=1 @0}]`},
		{"field name is case sensitive", "Data: a\ndata: b\n\n", `[{"" "b" id="" n=1 @0}]`},
		{"CRLF framing", "data: a\r\n\r\ndata: b\r\rdata: c\n\n", `[{"" "a" id="" n=1 @0} {"" "b" id="" n=1 @0} {"" "c" id="" n=1 @0}]`},
		{"unterminated last event dropped", "data: a\n\ndata: b\n", `[{"" "a" id="" n=1 @0}]`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, _ := parseString(t, c.in)
			if s := fmt.Sprint(got); s != c.want {
				t.Fatalf("got  %s\nwant %s", s, c.want)
			}
		})
	}
}

func TestEventRetry(t *testing.T) {
	_, p := parseString(t, "retry: 1500\ndata: a\n\nretry: 2x\nretry: -1\nretry:\n\n")
	d, ok := p.Retry()
	if !ok || d != 1500*time.Millisecond {
		t.Fatalf("Retry() = %v, %v; want 1.5s (invalid values ignored)", d, ok)
	}
}

func TestEventCounts(t *testing.T) {
	_, p := parseString(t, ": hi\ndata: a\n\n\nevent: x\nfoo\n\ndata: b\n\n")
	want := Counts{Lines: 9, Blank: 4, Comments: 1, Fields: 4, Events: 2}
	if got := p.Counts(); got != want {
		t.Fatalf("Counts() = %+v, want %+v", got, want)
	}
}

func TestEventTail(t *testing.T) {
	cases := []struct {
		in        string
		want      Tail
		truncated bool
	}{
		{"data: a\n\n", Tail{}, false},
		{"data: a\n\n: ping\n", Tail{}, false},
		{"data: a\n\ndata: b\n", Tail{Fields: 1}, true},
		{"data: a\n\ndata: b", Tail{PartialBytes: 7}, true},
		{"data: a\n\nid: 3\ndata: {\"x", Tail{PartialBytes: 9, Fields: 1}, true},
	}
	for _, c := range cases {
		_, p := parseString(t, c.in)
		if got := p.Tail(); got != c.want || got.Truncated() != c.truncated {
			t.Errorf("%q: Tail() = %+v (truncated %v), want %+v (%v)", c.in, got, got.Truncated(), c.want, c.truncated)
		}
	}
}

func TestEventStampIsLastDataLine(t *testing.T) {
	var p Parser
	got := parseParts(t, &p, [][]byte{
		[]byte("data: a\n"),          // 0: first data line
		[]byte("data: b\n"),          // 1: last data line
		[]byte(": ping\nevent: x\n"), // 2: not data
		[]byte("\n"),                 // 3: dispatch
	})
	if len(got) != 1 || got[0].Stamp != 1 || got[0].Data != "a\nb" {
		t.Fatalf("got %v, want one event a\\nb stamped 1", got)
	}
}

func TestEventDataValidUntilNext(t *testing.T) {
	var p Parser
	p.Feed([]byte("data: one\n\ndata: two\n\n"), 0)
	first, _ := p.Next()
	keep := string(first.Data)
	second, _ := p.Next()
	if keep != "one" || string(second.Data) != "two" {
		t.Fatalf("got %q then %q", keep, second.Data)
	}
}

func TestEventDataLimit(t *testing.T) {
	p := Parser{MaxLine: 10}
	p.Feed([]byte("data:12345\ndata:67890\n\n"), 0)
	if _, ok := p.Next(); ok {
		t.Fatal("an event over the limit was dispatched")
	}
	if err := p.Err(); !errors.Is(err, ErrLineTooLong) || !strings.Contains(err.Error(), "event's data") {
		t.Fatalf("Err() = %v, want an event data limit error", err)
	}
}

// eventInput mixes every framing and field rule.
const eventInput = "\xEF\xBB\xBF: hello\r\ndata: {\"a\":1}\n\nevent: e\r\ndata: x\r\ndata:  y\r\r" +
	"id: 5\ndata\n\n\n\ndata: \u00e9\u20ac\U0001F600\r\n: ping\n\r\nfoo\ndata: last\n\ndata: cut"

// byteStamps parses in one byte per feed, stamping each feed with the byte's
// offset: an event's stamp is then the offset of the byte that completed
// its last data line.
func byteStamps(t *testing.T, in []byte) []gotEvent {
	t.Helper()
	var parts [][]byte
	for i := range in {
		parts = append(parts, in[i:i+1])
	}
	var p Parser
	return parseParts(t, &p, parts)
}

func TestEventByteStampsAreTerminatorOffsets(t *testing.T) {
	in := []byte(eventInput)
	got := byteStamps(t, in)
	want := []string{"{\"a\":1}", "x\n y", "", "\u00e9\u20ac\U0001F600", "last"}
	if len(got) != len(want) {
		t.Fatalf("got %v, want data %q", got, want)
	}
	for i, g := range got {
		if g.Data != want[i] {
			t.Fatalf("event %d data = %q, want %q", i, g.Data, want[i])
		}
		if c := in[g.Stamp]; c != '\n' && c != '\r' {
			t.Fatalf("event %d stamp %d points at %q, not at a line terminator", i, g.Stamp, c)
		}
	}
	if !bytes.HasSuffix(in[:got[0].Stamp], []byte(`data: {"a":1}`)) {
		t.Fatalf("first event stamp %d is not the end of its data line", got[0].Stamp)
	}
}

// checkEventSplit parses parts and expects the same events as a byte-by-byte
// parse, each stamped with the part that holds its completing byte.
func checkEventSplit(t *testing.T, parts [][]byte, ref []gotEvent) {
	t.Helper()
	var p Parser
	got := parseParts(t, &p, parts)
	if len(got) != len(ref) {
		t.Fatalf("parts %q: got %d events, want %d", parts, len(got), len(ref))
	}
	for i, g := range got {
		want := ref[i]
		want.Stamp = time.Duration(partOf(parts, int(ref[i].Stamp)))
		if g != want {
			t.Fatalf("parts %q: event %d = %v, want %v", parts, i, g, want)
		}
	}
	if tail := p.Tail(); !tail.Truncated() {
		t.Fatalf("parts %q: Tail() = %+v, want the trailing event reported", parts, tail)
	}
}

func TestEventEveryBoundary(t *testing.T) {
	in := []byte(eventInput)
	ref := byteStamps(t, in)
	for i := 0; i <= len(in); i++ {
		checkEventSplit(t, cut(in, i), ref)
		for j := i; j <= len(in); j += 3 {
			checkEventSplit(t, cut(in, i, j), ref)
		}
	}
}

func TestEventEveryReadSize(t *testing.T) {
	in := []byte(eventInput)
	ref := byteStamps(t, in)
	for size := 1; size <= len(in); size++ {
		var at []int
		for a := size; a < len(in); a += size {
			at = append(at, a)
		}
		checkEventSplit(t, cut(in, at...), ref)
	}
}

// Unknown sees the field lines the rules ignore, whole, and only those.
func TestUnknownFieldHook(t *testing.T) {
	var p ParserOf[int]
	var seen []string
	p.Unknown = func(line []byte, stamp int) { seen = append(seen, fmt.Sprintf("%s@%d", line, stamp)) }
	p.Feed([]byte("data: a\nevent: x\nid: 1\nretry: 5\n{\"error\":{\"message\":\"m\"}}\nfoo\n\n"), 7)
	for {
		if _, ok := p.Next(); !ok {
			break
		}
	}
	if got := strings.Join(seen, "|"); got != `{"error":{"message":"m"}}@7|foo@7` {
		t.Errorf("Unknown saw %q", got)
	}
}
