package stream

import (
	"context"
	"fmt"
	"net"
	"testing"
	"time"
)

// TestEveryFirst: each kind of first output is told apart, in streams
// shaped as llama-server, vLLM and Ollama send them.
func TestEveryFirst(t *testing.T) {
	d := func(s string) string { return "data: " + s + "\n\n" }
	role := d(`{"choices":[{"delta":{"role":"assistant","content":null},"finish_reason":null,"index":0}]}`)
	progress := d(`{"choices":[{"delta":{"role":"assistant","content":null},"index":0}],"prompt_progress":{"total":20,"cache":0,"processed":10,"time_ms":3}}`)
	reasonLlama := d(`{"choices":[{"delta":{"reasoning_content":"Let me think."},"index":0}]}`)
	reasonVLLM := d(`{"choices":[{"delta":{"reasoning":"Hmm."},"index":0}]}`)
	emptyContent := d(`{"choices":[{"delta":{"content":""},"index":0}]}`)
	tool := d(`{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"book","arguments":""}}]},"index":0}]}`)
	content := d(`{"choices":[{"delta":{"content":"Yes."},"index":0}]}`)
	ollama := d(`{"choices":[{"delta":{"role":"assistant","content":"Yes."},"index":0}]}`)
	ollamaThinking := d(`{"choices":[{"delta":{"role":"assistant","content":"","reasoning":"Hm."},"index":0}]}`)
	usage := d(`{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":1}}`)
	end := d(`{"choices":[{"delta":{},"finish_reason":"stop","index":0}]}`) + "data: [DONE]\n\n"
	// The index says which part's read a field's stamp must be (-1: none).
	cases := []struct {
		name                                           string
		parts                                          []string
		event, progress, reasoning, tool, output, ttft int
		reasoningText                                  string
	}{
		{"llama-server with progress and reasoning", []string{role, progress, reasonLlama, emptyContent, content, end}, 0, 1, 2, -1, 2, 4, "Let me think."},
		{"vLLM reasoning", []string{role, reasonVLLM, content, usage, end}, 0, -1, 1, -1, 1, 2, "Hmm."},
		{"a tool call first", []string{role, tool, content, end}, 0, -1, -1, 1, 1, 2, ""},
		{"only a tool call", []string{role, tool, end}, 0, -1, -1, 1, 1, -1, ""},
		{"Ollama: every chunk carries the role", []string{ollamaThinking, ollama, usage, end}, 0, -1, 0, -1, 0, 1, "Hm."},
		{"usage before content", []string{usage, role, content, end}, 0, -1, -1, -1, 2, 2, ""},
	}
	const head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// Each part is its own write after a pause, so each first
			// usually has its own read; which read carried a part is told
			// by the bytes, not by time: a busy machine may join parts.
			url := rawServer(t, func(conn net.Conn) {
				conn.Write([]byte(head))
				for _, p := range c.parts {
					time.Sleep(15 * time.Millisecond)
					if _, err := conn.Write([]byte(p)); err != nil {
						return
					}
				}
			})
			res, err := Do(context.Background(), Request{URL: url, Body: chatBody(), KeepReads: true})
			if err != nil {
				t.Fatal(err)
			}
			info := res.Info
			// stampOf is the stamp a first found in part k must carry: that
			// of the read which brought the part's last byte (its event
			// ends there).
			stampOf := func(k int) *float64 {
				if k < 0 {
					return nil
				}
				end := len(head)
				for _, p := range c.parts[:k+1] {
					end += len(p)
				}
				got := 0
				for _, rd := range res.Reads {
					if got += rd.Bytes; got >= end {
						return &rd.TMs
					}
				}
				t.Fatalf("the reads brought %d bytes, part %d ends at byte %d", got, k, end)
				return nil
			}
			ttft := (*float64)(nil)
			if info.HasTTFT {
				ttft = &info.TTFTMs
			}
			show := func(p *float64) string {
				if p == nil {
					return "none"
				}
				return fmt.Sprintf("%.3f ms", *p)
			}
			got := []*float64{info.FirstEventMs, info.FirstProgressMs, info.FirstReasoningMs, info.FirstToolCallMs, info.FirstOutputMs, ttft}
			want := []int{c.event, c.progress, c.reasoning, c.tool, c.output, c.ttft}
			for i, name := range []string{"event", "progress", "reasoning", "tool call", "output", "ttft"} {
				w := stampOf(want[i])
				if (got[i] == nil) != (w == nil) || (w != nil && *got[i] != *w) {
					t.Errorf("first %s at %s, want %s (the read that brought part %d)", name, show(got[i]), show(w), want[i])
				}
			}
			text := ""
			for _, r := range info.Reasoning {
				text += r.Text
			}
			if text != c.reasoningText {
				t.Errorf("reasoning %q, want %q", text, c.reasoningText)
			}
			for _, ch := range res.Chunks {
				if ch.Text == "" || ch.Text == c.reasoningText && c.reasoningText != "" {
					t.Errorf("a chunk holds %q: content must not mix with reasoning or be empty", ch.Text)
				}
			}
		})
	}
}

// TestFirstAllocatesOnlyTheFirstTime: first is called for every chunk
// (the first event, the first output); once its time is recorded, a call
// must not allocate (it did: &t moved t to the heap at every call).
func TestFirstAllocatesOnlyTheFirstTime(t *testing.T) {
	var p *float64
	first(&p, 1.5)
	if allocs := testing.AllocsPerRun(100, func() { first(&p, 2.5) }); allocs != 0 {
		t.Errorf("first with a time recorded: %v allocations per call, want 0", allocs)
	}
	if p == nil || *p != 1.5 {
		t.Errorf("first kept %v, want the first time, 1.5", p)
	}
}
