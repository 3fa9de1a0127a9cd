package synth

import (
	"strings"
	"testing"
)

func TestDefaultScriptPieces(t *testing.T) {
	s, err := newScript(DefaultScript, 126)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.ReplaceAll(strings.Join(s.pieces, ""), space, " "); got != " "+DefaultScript {
		t.Errorf("pieces join to %q, want %q", got, " "+DefaultScript)
	}
	seen := map[string]bool{s.first: true}
	for _, p := range s.pieces {
		if seen[p] || !strings.HasPrefix(p, space) {
			t.Errorf("piece %q repeats or lacks the leading space", p)
		}
		seen[p] = true
	}
	// "your" occurs twice: its second use must have been joined onward.
	if !contains(s.pieces, space+"your"+space+"insurance") {
		t.Errorf("the repeated word was not joined with the next one: %q", s.pieces)
	}
	for _, want := range []string{"3.5", "a.m. on"} {
		if !strings.Contains(s.text, want) {
			t.Errorf("the default script lacks %q", want)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestScriptRepeatsAndFits(t *testing.T) {
	cases := []struct {
		text      string
		max       int
		wantCount int
	}{
		{"a b a b a b", 10, 3},                 // ▁a ▁b ▁a▁b ... then ▁a▁b repeats: joined to the end
		{"one", 10, 1},                         // a single word loops on itself
		{"the end the end the", 10, 3},         // a repeat at the very end is joined backwards
		{strings.Repeat("w ", 40) + "x", 5, 5}, // too many pieces: words are grouped
		{"  line one\n\nline   two  ", 10, 3},  // white space collapses
	}
	for _, c := range cases {
		s, err := newScript(c.text, c.max)
		if err != nil {
			t.Errorf("%q: %v", c.text, err)
			continue
		}
		if len(s.pieces) != c.wantCount || len(s.pieces) > c.max {
			t.Errorf("%q: %d pieces %q, want %d (at most %d)", c.text, len(s.pieces), s.pieces, c.wantCount, c.max)
		}
		norm := strings.Join(strings.Fields(c.text), " ")
		if got := s.answer(len(s.pieces)); got != norm {
			t.Errorf("%q: one round reads %q, want %q", c.text, got, norm)
		}
		if got := s.answer(2 * len(s.pieces)); got != norm+" "+norm {
			t.Errorf("%q: two rounds read %q", c.text, got)
		}
	}
	for _, bad := range []string{"", "  \n", "a ▁b", "bad \xff byte"} {
		if _, err := newScript(bad, 10); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestNameFromTemplate(t *testing.T) {
	tmpl := chatTemplate("ttftlab-synthetic-tiny-q4_0")
	if got := NameFromTemplate(tmpl); got != "ttftlab-synthetic-tiny-q4_0" {
		t.Errorf("NameFromTemplate = %q", got)
	}
	if got := NameFromTemplate("{%- for message in messages -%}<|im_start|>"); got != "" {
		t.Errorf("an ordinary template gave %q", got)
	}
}
