package synth

import (
	"strings"
	"testing"
	"unicode/utf8"
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

// Scripts in the lab's other languages. zhScript repeats 请 (its first
// character) and punctuation; koScript repeats syllables and words.
const (
	zhScript = "请坐。请带上身份证、保险卡和药物清单。前台早上七点半开门，请提前十五分钟到达。停车每小时3.5元。"
	koScript = "신분증과 보험 카드를 가져오세요. 접수는 평일 오전 7시 30분에 시작합니다. 주차는 시간당 3.5달러입니다. 예약을 취소하시려면 하루 전에 전화해 주세요."
	jaScript = "「こんにちは。」保険証をお持ちください。受付は午前七時半に開きます。駐車場は一時間三百円です。"
)

// TestScriptCJKPieces: CJK text, which has no spaces to cut at, is cut
// into pieces of a character or two, each unique and none equal to the
// token the answer begins with; the answer reads the text exactly.
func TestScriptCJKPieces(t *testing.T) {
	for _, text := range []string{zhScript, koScript, jaScript, "请坐。请进。请坐。", "Bring ID。请带上身份证。"} {
		s, err := newScript(text, 250)
		if err != nil {
			t.Errorf("%q: %v", text, err)
			continue
		}
		seen := map[string]bool{s.first: true}
		for _, p := range s.pieces {
			if seen[p] {
				t.Errorf("%q: piece %q repeats or is the first token %q", text, p, s.first)
			}
			seen[p] = true
		}
		chars := utf8.RuneCountInString(strings.ReplaceAll(text, " ", ""))
		if len(s.pieces) < chars/2 {
			t.Errorf("%q: %d pieces for %d characters, want a character or two each: %q", text, len(s.pieces), chars, s.pieces)
		}
		if got := s.answer(len(s.pieces)); got != text {
			t.Errorf("%q: one round reads %q", text, got)
		}
		if got := s.answer(2*len(s.pieces) + 1); got != text+" "+text+" "+s.first {
			t.Errorf("%q: two rounds read %q", text, got)
		}
	}
	// Fewer directions than characters: atoms are grouped, still exact.
	s, err := newScript(zhScript, 20)
	if err != nil || len(s.pieces) > 20 || s.answer(len(s.pieces)) != zhScript {
		t.Errorf("grouped: %v, %d pieces, reads %q", err, len(s.pieces), s.answer(len(s.pieces)))
	}
}
