package cli

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestLoadSearchUndecided: the server of TestLoadSearchFindsK without
// --warmup: at 6 calls at once or more, each round's first wave of 5 is
// served at once and most of the rest wait (5 ms against 300 ms), so at
// least 5 of a round's 12 requests are fast and the interval of the p50
// over any number of rounds never lies above the 150 ms limit. The
// capacity (5, or 6 when its rounds were fast enough) and the level above
// it get rounds of --requests calls up to --search-budget 36; the level
// above never decides, so load.json says decided false, between [c, c+1],
// with that level's pooled interval over 36 requests across the limit;
// the console says "capacity between c and c+1 calls at once, undecided"
// with both intervals; the path records every round with its requests and
// interval; --fail-below gates on the lower level: c passes, c+1 fails.
// Fails before this change: --search-budget is not a flag, and a level
// runs once.
func TestLoadSearchUndecided(t *testing.T) {
	serverTestEnv(t)
	s := &stepServer{k: 5, served: 5 * time.Millisecond, queued: 300 * time.Millisecond, window: 100 * time.Millisecond}
	url := s.start(t)
	out := t.TempDir()
	code, stdout, stderr := runCLI("load", "--server", url, "--search", "--search-max", "16", "--requests", "12",
		"--search-budget", "36", "--docs", "0", "--out", out, "--no-report", "--slo", "ttft_ms<=150@p50", "--fail-below", "5")
	t.Logf("%s%s", stdout, stderr)
	if code != 0 {
		t.Fatalf("--fail-below 5: exit %d, want 0", code)
	}
	doc := strictLoad(t, out)
	c := doc.Capacity
	if c == nil || c.Level < 5 || c.Decided == nil || *c.Decided || !reflect.DeepEqual(c.Between, []float64{c.Level, c.Level + 1}) {
		t.Fatalf("capacity %+v, want 5 or more, undecided between it and the next", c)
	}
	upper := c.Level + 1
	found := 0
	for _, lv := range doc.Levels {
		p := lv.Pooled
		if p == nil {
			t.Fatalf("level %g has no pooled verdict", lv.Level)
		}
		if lv.Level == 5 && (!p.Decided || !p.Met || p.SLO[0].Side != "below") {
			t.Errorf("level 5 pooled %+v, want held, decided", p)
		}
		if lv.Level == upper {
			found++
			e := p.SLO[0]
			if p.Decided || p.Rounds != 3 || p.Calls != 36 || e.N != 36 || e.Side != "straddles" ||
				e.CIMs[0] == nil || e.CIMs[1] == nil || *e.CIMs[0] > 150 || *e.CIMs[1] <= 150 {
				t.Errorf("level %g pooled %+v (%+v), want 3 rounds, 36 calls, an interval across 150 ms", upper, p, e)
			}
		}
	}
	if found != 1 {
		t.Fatalf("levels %+v: %g missing", doc.Levels, upper)
	}
	var rounds []int
	for _, st := range c.Search {
		if st.Level == upper {
			rounds = append(rounds, st.Requests)
		}
		if st.CIMs == nil || st.Requests == 0 || st.Calls != 12 {
			t.Errorf("step %+v: want its interval, requests and calls", st)
		}
	}
	if !reflect.DeepEqual(rounds, []int{12, 24, 36}) {
		t.Errorf("level %g's rounds had %v requests, want 12, 24, 36", upper, rounds)
	}
	text := stdout + stderr
	if !strings.Contains(text, fmt.Sprintf("capacity between %g and %g calls at once, undecided: at %g: ttft_ms p50", c.Level, upper, c.Level)) ||
		!strings.Contains(text, fmt.Sprintf("%g missed (round 3, 36 requests)", upper)) {
		t.Errorf("the console does not say the capacity is undecided between %g and %g with the rounds", c.Level, upper)
	}
	cmd := &loadCmd{failBelow: upper, maxErrorRate: 1}
	if err := cmd.gates(out); err == nil || !strings.Contains(err.Error(), "below --fail-below") {
		t.Errorf("--fail-below %g: %v, want the gate to fail", upper, err)
	}
}
