package report

import (
	"strings"
	"testing"

	"ttftlab/internal/artifact"
	"ttftlab/internal/interval"
)

// TestHolmCountsItsFamily: the console's and the page's "Holm over N
// figures" counts the figures Holm's correction ran over, not one of too
// few samples nor one that is 0 on both sides (all_zero), whose levels
// show they stood outside it; one run of A is "1 run", not "1 runs".
func TestHolmCountsItsFamily(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	c := &artifact.Compare{Interleaved: true, RunsA: 1, RunsB: 1, Seed: 1, Reps: 2000, Figures: []artifact.CompareFigure{
		{Name: "cache first ttft_ms", Stat: "p50", Ratio: f(8), RatioCI: &[2]float64{6, 11}, Level: f(0.975), Verdict: string(interval.Slower)},
		{Name: "first_sentence_ms", Stat: "p50", Ratio: f(1), RatioCI: &[2]float64{0.6, 1.1}, Level: f(0.95), Verdict: string(interval.NoDifference)},
		{Name: "speech stall_ms", Stat: "p50", Ratio: f(1), RatioCI: &[2]float64{1, 1}, Level: f(0.95), Verdict: string(interval.NoDifference), AllZero: true},
		{Name: "cancel slot_idle_after_ms", Stat: "p50", Verdict: string(interval.Undecided)},
	}}
	var console strings.Builder
	if err := FormatVerdicts(&console, c); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(console.String(), "; Holm over 2 figures)") {
		t.Errorf("the verdicts' heading does not say Holm over the 2 figures it corrected:\n%s", console.String())
	}
	c.Interleaved = false
	c.Figures = c.Figures[:1]
	if got := overText(c); !strings.HasSuffix(got, "; Holm over 1 figure") || !strings.HasPrefix(got, "1 run of A, 1 of B, made separately;") {
		t.Errorf("one figure, one run a side: %q", got)
	}
}
