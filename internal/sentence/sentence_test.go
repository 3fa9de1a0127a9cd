package sentence_test

import (
	"fmt"
	"testing"

	"ttftlab/internal/sentence"
)

// The rules as stdlib/README.md states them, one case each; -1 is "no
// sentence yet" (Lua's nil).
func TestFirst(t *testing.T) {
	for _, c := range []struct {
		text  string
		final bool
		want  int
	}{
		{"Dr. Smith arrived. He sat.", false, len("Dr. Smith arrived.")},
		{"Hello world.", false, -1}, // more dots or a closer could follow
		{"Hello world.", true, len("Hello world.")},
		{"Hello world. ", false, len("Hello world.")},
		{"It costs 3.5 dollars. Yes", false, len("It costs 3.5 dollars.")},
		{"e.g., this. Then", false, len("e.g., this.")},
		{"At 8 a.m. ", false, -1}, // depends on the next word
		{"At 8 a.m. ", true, len("At 8 a.m.")},
		{"At 8 a.m. we left. So", false, len("At 8 a.m. we left.")},
		{"At 8 a.m. 9 of us. So", false, len("At 8 a.m. 9 of us.")},
		{"At 8 a.m. We left", false, len("At 8 a.m.")},
		{"Apples etc. and pears. So", false, len("Apples etc. and pears.")},
		{"Apples etc. 5 more", false, len("Apples etc.")},
		{"No. 5 is here. So", false, len("No. 5 is here.")},
		{"No. Five", false, len("No.")},
		{"Mr. Big is here", true, len("Mr. Big is here")},
		{"Wait... what now. So", false, len("Wait... what now.")},
		{"Wait... What", false, len("Wait...")},
		{"Wait… (What", false, len("Wait…")},
		{"Really?! yes", false, len("Really?!")},
		{`He said "Hi." Then`, false, len(`He said "Hi."`)},
		{"你好。我是", false, len("你好。")},
		{"你好。", false, -1}, // a closer could follow
		{"「你好。」我", false, len("「你好。」")},
		{"你好!我是", false, len("你好!")},
		{"Hello.\xe4\xbd", false, -1}, // a cut-off character: a letter or a space?
		{"Hello.\xe4\xbd\xa0", false, len("Hello.")},
		{"Hello\xe2\x80", false, -1},
		{"", true, -1},
		{" \t\n", true, -1},
		{"  Hi  ", true, len("  Hi")},
		// The Lua VM's string.lower is Go's strings.ToLower, which maps
		// 'İ' to 'i': "İ.e." reads as the abbreviation "i.e.".
		{"İ.e. Next one", true, len("İ.e. Next one")},
	} {
		got, ok := sentence.First(c.text, c.final)
		if !ok {
			got = -1
		}
		if got != c.want {
			t.Errorf("First(%q, %v) = %d, want %d", c.text, c.final, got, c.want)
		}
	}
}

func TestFirstClause(t *testing.T) {
	for _, c := range []struct {
		text     string
		final    bool
		minChars int
		want     int
	}{
		{"One, two, three, four, five", false, 20, len("One, two, three, four,")},
		{"  One, two, three, four, five", false, 20, len("  One, two, three, four,")},
		{"One, two. Three, four", false, 0, len("One,")},
		{"One, two. Three, four", false, 20, len("One, two.")},
		{"One, two. Three, four", false, 20, len("One, two.")},
		{"walk-in at 7:30 for 1,000 people", true, 0, len("walk-in at 7:30 for 1,000 people")},
		{"walk-in at 7:30 for 1,000 people", false, 0, -1},
		{"你好，世界", false, 0, len("你好，")},
		{"A - b", false, 0, len("A -")},
		{"A — b", false, -3, len("A —")},
		{"Still going,", false, 0, -1}, // white space must follow
	} {
		got, ok := sentence.FirstClause(c.text, c.final, c.minChars)
		if !ok {
			got = -1
		}
		if got != c.want {
			t.Errorf("FirstClause(%q, %v, %d) = %d, want %d", c.text, c.final, c.minChars, got, c.want)
		}
	}
}

func TestSplitter(t *testing.T) {
	var s sentence.Splitter
	var got []sentence.Ready
	for i, c := range []string{"Hello wor", "ld. How", " are you?", " Dr.", " Who", " is", " 8 a.m.", " ", "\n\nFine"} {
		got = append(got, s.Feed(c, float64(10*(i+1)))...)
	}
	got = append(got, s.End(100)...)
	want := []sentence.Ready{{"Hello world.", 20}, {"How are you?", 40}, {"Dr. Who is 8 a.m.", 90}, {"Fine", 100}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	// End leaves it empty, ready for the next answer.
	if r := s.End(110); r != nil {
		t.Fatalf("End after End: %+v", r)
	}
	if r := append(s.Feed("Next. ", 1), s.End(2)...); fmt.Sprint(r) != fmt.Sprint([]sentence.Ready{{"Next.", 1}}) {
		t.Fatalf("second answer: %+v", r)
	}
}
