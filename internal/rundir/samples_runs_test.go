package rundir

import (
	"slices"
	"testing"

	"ttftlab/internal/artifact"
)

// TestLabSamplesTakeEverySentencePrefillAudioRun: the sentence and prefill figures take
// a value from every repetition in runs, a folder written before the steps
// repeated its one value.
func TestLabSamplesTakeEverySentencePrefillAudioRun(t *testing.T) {
	ms := func(x float64) *float64 { return &x }
	l := &Lab{
		Prefill: []PrefillRow{
			{Docs: 0, TTFTMs: 8, PromptMs: ms(6), Repeat: 3, Runs: []artifact.PrefillRun{
				{TTFTMs: 8, PromptMs: ms(6)}, {TTFTMs: 9, PromptMs: ms(7)}, {TTFTMs: 7.5, PromptMs: ms(5.5)}}},
			{Docs: 12, TTFTMs: 200, PromptMs: ms(190)},
		},
		Sentence: &Sentence{FirstSentenceMs: 40, Pacing: &artifact.Pacing{StallMs: 0}, Repeat: 2, Runs: []artifact.SentenceRun{
			{FirstSentenceMs: 40, Pacing: &artifact.Pacing{StallMs: 0}}, {FirstSentenceMs: 55, Pacing: &artifact.Pacing{StallMs: 120}}}},
	}
	got := map[string][]float64{}
	for _, s := range l.Samples() {
		got[s.Name] = s.Values
	}
	for name, want := range map[string][]float64{
		"prefill 0 docs ttft_ms":    {8, 9, 7.5},
		"prefill 0 docs prompt_ms":  {6, 7, 5.5},
		"prefill 12 docs ttft_ms":   {200},
		"prefill 12 docs prompt_ms": {190},
		"first_sentence_ms":         {40, 55},
		"speech stall_ms":           {0, 120},
	} {
		if !slices.Equal(got[name], want) {
			t.Errorf("%s: %v, want %v", name, got[name], want)
		}
	}
	l.Sentence = &Sentence{FirstSentenceMs: 40}
	got = map[string][]float64{}
	for _, s := range l.Samples() {
		got[s.Name] = s.Values
	}
	if !slices.Equal(got["first_sentence_ms"], []float64{40}) || got["speech stall_ms"] != nil {
		t.Errorf("a sentence.json without runs or pacing: %v", got)
	}
}
