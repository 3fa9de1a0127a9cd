package report

import (
	"strings"
	"testing"

	"ttftlab/internal/artifact"
	"ttftlab/internal/rundir"
)

// TestLabHeadlineTakesRepetitionsMedians: the first sentence, cancel and
// barge-in headlines show the medians over their files' runs, as report.json does,
// not the first repetition the top level holds.
func TestLabHeadlineTakesRepetitionsMedians(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	turn := func(resumed, cold float64) rundir.Bargein {
		return rundir.Bargein{Resumed: rundir.Tokens{PromptN: 75, CacheN: f(700), TTFTMs: resumed}, Cold: rundir.Tokens{PromptN: 775, TTFTMs: cold}}
	}
	first := turn(20, 100)
	first.Repeat, first.Runs = 3, []rundir.Bargein{turn(20, 100), turn(30, 140), turn(25, 120)}
	l := &rundir.Lab{
		Cancel: &rundir.Cancel{SlotIdleAfterMs: f(9), Evidence: "slots", Repeat: 3,
			Runs: []rundir.Cancel{{SlotIdleAfterMs: f(9)}, {SlotIdleAfterMs: f(2)}, {SlotIdleAfterMs: f(4)}}},
		Bargein: &first,
		Sentence: &rundir.Sentence{TTFTMs: 11, FirstSentenceMs: 17, TotalMs: 67, Repeat: 3,
			Runs: []artifact.SentenceRun{{TTFTMs: 11, FirstSentenceMs: 17, TotalMs: 67}, {TTFTMs: 2, FirstSentenceMs: 8, TotalMs: 58}, {TTFTMs: 3, FirstSentenceMs: 7, TotalMs: 59}}},
	}
	got := map[string]headline{}
	for _, h := range labHeadline(l) {
		got[h.Label] = h
	}
	if h := got["Slot idle after a hang-up"]; h.Value != ms(4) || !strings.HasSuffix(h.Note, " (median of 3 runs)") {
		t.Errorf("cancel headline %+v, want %s, the median of 3 runs", h, ms(4))
	}
	if h := got["First sentence ready to speak"]; h.Value != ms(8) || !strings.HasSuffix(h.Note, "first token at "+ms(3)+", answer ended at "+ms(59)+" (medians of 3 runs)") {
		t.Errorf("first sentence headline %+v, want the medians %s, %s and %s of 3 runs, not the first repetition", h, ms(8), ms(3), ms(59))
	}
	if h := got["A barge-in keeps"]; h.Value != "700 of 775 tokens" || !strings.HasSuffix(h.Note, "its TTFT "+ms(25)+", against "+ms(120)+" cold (medians of 3 runs)") {
		t.Errorf("barge-in headline %+v, want the medians %s and %s of 3 runs", h, ms(25), ms(120))
	}
}
