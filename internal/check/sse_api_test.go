package check

import (
	"os"
	"strings"
	"testing"
)

// TestParseSSEEachAPI reads the captures of llama-server's three streaming
// APIs as the API steps.json names, and as the API read off the stream
// when steps.json names none: the content, the opening event and the end
// are each API's own. Fails before the API was recorded: a completions
// stream had no role chunk and a Responses stream no [DONE], so check
// failed both.
func TestParseSSEEachAPI(t *testing.T) {
	for _, c := range []struct {
		api, file         string
		opening, contents int
		text              string
	}{
		{"chat", "../stream/testdata/llama_capture.sse", 1, 0, ""},
		{"completions", "../stream/testdata/llama_completions_capture.sse", 0, 24, "\"Here,\" Annabyed."},
		{"responses", "../stream/testdata/llama_responses_capture.sse", 1, 24, ""},
	} {
		data, err := os.ReadFile(c.file)
		if err != nil {
			t.Fatal(err)
		}
		for _, recorded := range []string{c.api, ""} {
			s, err := parseSSE(data, recorded)
			if err != nil {
				t.Fatalf("%s: %v", c.api, err)
			}
			if s.api != c.api || s.opening != c.opening || len(s.contents) == 0 || (c.contents > 0 && len(s.contents) != c.contents) {
				t.Fatalf("%s (recorded %q): api %s, opening %d, %d contents", c.api, recorded, s.api, s.opening, len(s.contents))
			}
			if _, err := s.endCheck(); err != nil {
				t.Errorf("%s: %v", c.api, err)
			}
			shown, err := s.openingCheck()
			if c.api == "completions" {
				if _, ok := err.(skipError); !ok {
					t.Errorf("completions opening check: %v, want a skip", err)
				}
			} else if err != nil || shown == "" {
				t.Errorf("%s opening check: %q %v", c.api, shown, err)
			}
			if c.text != "" && !strings.HasPrefix(strings.Join(s.contents, ""), c.text) {
				t.Errorf("%s: text %q", c.api, strings.Join(s.contents, ""))
			}
		}
		// Cut before the end marker: the end check fails.
		cut := data[:strings.LastIndex(strings.TrimRight(string(data), "\n"), "\n\n")+2]
		s, _ := parseSSE(cut, c.api)
		if _, err := s.endCheck(); err == nil {
			t.Errorf("%s cut before its end passes the end check", c.api)
		}
	}
	if _, err := parseSSE([]byte("data: [DONE]\n\n"), "messages"); err == nil {
		t.Error("an unknown API in steps.json is accepted")
	}
}
