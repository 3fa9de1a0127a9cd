package suggest

import "testing"

func TestEditDistance(t *testing.T) {
	cases := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},
		{"abc", "", 3},
		{"max_tokens", "max_tokens", 0},
		{"max_token", "max_tokens", 1},   // an insert
		{"max_tokenss", "max_tokens", 1}, // a delete
		{"max_tokans", "max_tokens", 1},  // a substitution
		{"tiemout", "timeout", 2},        // a swap is two edits
		{"kitten", "sitting", 3},
	}
	for _, c := range cases {
		if got := editDistance(c.a, c.b); got != c.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

func TestNearest(t *testing.T) {
	names := []string{"timeout_ms", "idle_timeout_ms", "max_tokens", "temperature"}
	cases := map[string]string{
		"timeout_m":   "timeout_ms",
		"max_token":   "max_tokens",
		"temprature":  "temperature",
		"tmeout_s":    "timeout_ms", // two edits: still suggested
		"tmout_s":     "",           // three: nothing
		"stream":      "",
		"":            "",
		"timeout_ms":  "timeout_ms",
		"idle_timeot": "",
	}
	for name, want := range cases {
		if got := Nearest(name, names); got != want {
			t.Errorf("Nearest(%q) = %q, want %q", name, got, want)
		}
	}
	if got := Nearest("ab", []string{"aa", "bb"}); got != "aa" {
		t.Errorf("of two as near, the first is named; got %q", got)
	}
}

func TestDidYouMean(t *testing.T) {
	names := []string{"seed", "slots"}
	if got, want := DidYouMean("sed", names), `; did you mean "seed"?`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := DidYouMean("warmup", names); got != "" {
		t.Errorf("a name far from all gets no suggestion, got %q", got)
	}
}
