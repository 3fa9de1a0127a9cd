package artifact

import (
	"encoding/json"
	"testing"
)

// TestRepetitions: a repeated step's repetitions are its runs; a file
// written before the step repeated (no runs) holds one, its top level.
func TestRepetitions(t *testing.T) {
	var c Cache
	if err := json.Unmarshal([]byte(`{"first":{"prompt_n":10,"ttft_ms":5},"second":{"prompt_n":1,"ttft_ms":2},"changed_prefix":{"prompt_n":9,"ttft_ms":4}}`), &c); err != nil {
		t.Fatal(err)
	}
	if got := c.Repetitions(); len(got) != 1 || got[0].First.PromptN != 10 || got[0].Second.TTFTMs != 2 || got[0].ChangedPrefix.PromptN != 9 {
		t.Errorf("a file without runs: %+v, want its top level alone", got)
	}
	c.Runs = []CacheRun{{First: Tokens{PromptN: 11}}, {First: Tokens{PromptN: 12}}}
	if got := c.Repetitions(); len(got) != 2 || got[1].First.PromptN != 12 {
		t.Errorf("a file with runs: %+v, want its runs", got)
	}
	b := Bargein{ReceivedTokens: 3}
	if got := b.Repetitions(); len(got) != 1 || got[0].ReceivedTokens != 3 {
		t.Errorf("bargein without runs: %+v", got)
	}
	row := PrefillRow{Docs: 4, PromptN: 400, TTFTMs: 70, Runs: []PrefillRun{{PromptN: 400, TTFTMs: 70}, {PromptN: 400, TTFTMs: 72}}}
	reps := PrefillRepetitions([]PrefillRow{row, {Docs: 0, PromptN: 40, TTFTMs: 10}})
	if len(reps) != 1 || reps[0][0].TTFTMs != 70 || reps[0][1].TTFTMs != 10 {
		t.Errorf("prefill repetitions: %+v, want one: as many as the row with the fewest", reps)
	}
}
