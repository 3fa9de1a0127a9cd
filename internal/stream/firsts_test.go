package stream

import (
	"context"
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
	// Each part is written after a pause, so each first has its own read;
	// the index says which part's stamp a field must carry (-1: none).
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
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := newServer(t, &scripted{parts: c.parts, pause: 15 * time.Millisecond})
			res, err := Do(context.Background(), Request{URL: srv.URL, Body: chatBody()})
			if err != nil {
				t.Fatal(err)
			}
			info := res.Info
			// The stamps of the parts, from the events the stream saw: the
			// first event is part 0; later parts come >= 10 ms apart.
			at := func(p *float64) float64 {
				if p == nil {
					return -1
				}
				return *p
			}
			base := at(info.FirstEventMs)
			part := func(p *float64) int {
				if p == nil {
					return -1
				}
				return int((*p - base + 5) / 15)
			}
			ttft := (*float64)(nil)
			if info.HasTTFT {
				ttft = &info.TTFTMs
			}
			got := []int{part(info.FirstEventMs), part(info.FirstProgressMs), part(info.FirstReasoningMs), part(info.FirstToolCallMs), part(info.FirstOutputMs), part(ttft)}
			want := []int{c.event, c.progress, c.reasoning, c.tool, c.output, c.ttft}
			for i, name := range []string{"event", "progress", "reasoning", "tool call", "output", "ttft"} {
				if got[i] != want[i] {
					t.Errorf("first %s in part %d, want %d (event %.1f, progress %.1f, reasoning %.1f, tool %.1f, output %.1f)",
						name, got[i], want[i], base, at(info.FirstProgressMs), at(info.FirstReasoningMs), at(info.FirstToolCallMs), at(info.FirstOutputMs))
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
