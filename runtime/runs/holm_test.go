package runs

import (
	"strings"
	"testing"

	"ttftlab/internal/figures"
	"ttftlab/internal/interval"
)

// TestABSummaryHolmFamily: ab()'s heading counts the figures Holm
// corrected; one that is 0 in every sample of both (all_zero) or of too
// few samples stands outside its family.
func TestABSummaryHolmFamily(t *testing.T) {
	r := figures.AB{Seed: 1, Reps: 1000, Figures: []figures.ABFigure{
		{Name: "ttft_ms", Ratio: interval.Ratio{Ratio: 1.2, Lo: 1.1, Hi: 1.3, Level: 0.975}, Verdict: interval.Slower},
		{Name: "total_ms", Ratio: interval.Ratio{Ratio: 1, Lo: 0.9, Hi: 1.1, Level: 0.95}, Verdict: interval.NoDifference},
		{Name: "stall_ms", Ratio: interval.Ratio{Ratio: 1, Lo: 1, Hi: 1, Level: 0.95, P: 1}, Verdict: interval.NoDifference, AllZero: true},
		{Name: "first_audio_ms", TooFew: true, Ratio: interval.Ratio{Unbounded: true}, Verdict: interval.Undecided},
	}}
	if got := abSummary(r, 6); !strings.Contains(got, "verdicts corrected by Holm over 2 figures,") {
		t.Errorf("the heading does not count the 2 figures Holm corrected:\n%s", got)
	}
}
