package voiceagent

import (
	"context"
	"testing"

	"ttftlab/internal/callaudio"
	"ttftlab/internal/endpoint"
	"ttftlab/internal/llamaserver/llamatest"
	"ttftlab/internal/pocketsphinx"
	"ttftlab/internal/realtime"
	"ttftlab/internal/tts"
	voiceturn "ttftlab/internal/turn"
)

// TestSessionThroughTheDriver: the session driver holds a session with
// the reference agent on the real engines (llama-server with the test
// model, pocketsphinx, espeak-ng). The first question gets audio back
// after the caller stopped (mouth_to_ear_ms above 0, the figures in the
// order they happen); the caller barges into its answer 300 ms after its
// first audio, which cancels it while it is still coming (response.done
// cancelled, the cancel and the played audio recorded); the second
// question, spoken over the answer, is answered in its turn.
func TestSessionThroughTheDriver(t *testing.T) {
	psBin, esBin := engines(t)
	llama := llamatest.Start(t, "--ignore-eos")
	ps := &pocketsphinx.Server{Bin: psBin}
	defer ps.Close()
	if err := ps.Warm(); err != nil {
		t.Fatal(err)
	}
	// An answer long enough to be still coming 300 ms after its first
	// audio (espeak-ng speaks far faster than real time), short enough to
	// fit the slot's context (2048 tokens).
	a := &Agent{LLM: &endpoint.Endpoint{Base: llama.URL}, Ears: Pocketsphinx{ps}, Voice: &tts.Server{Bin: esBin}, MaxTokens: 1500}
	url := serve(t, a)
	var turns []realtime.Turn
	for _, q := range []string{"What time does the clinic open on Saturday?", "Can I park in front of the clinic?"} {
		clip, err := callaudio.Synthesize(context.Background(), esBin, q, "en-us")
		if err != nil {
			t.Fatal(err)
		}
		turns = append(turns, realtime.Turn{Clip: clip})
	}
	barge := 300.0
	turns[0].BargeAfterMs = &barge
	res, err := realtime.Run(context.Background(), realtime.Config{Endpoint: &endpoint.Endpoint{Base: url}, KeepEvents: true}, turns)
	if err != nil {
		t.Fatalf("session: %v", err)
	}
	if res.Dialect != realtime.DialectGA || res.Rate != realtime.DefaultRate || len(res.Turns) != 2 {
		t.Fatalf("session: dialect %q rate %d, %d turns", res.Dialect, res.Rate, len(res.Turns))
	}
	at := func(p *float64) float64 {
		if p == nil {
			return -1
		}
		return *p
	}
	for i, tr := range res.Turns {
		if tr.FirstAudioMs == nil || tr.MouthToEarMs == nil || *tr.MouthToEarMs <= 0 ||
			*tr.MouthToEarMs != voiceturn.RoundUs(*tr.FirstAudioMs-tr.SpeechEndMs) {
			t.Errorf("turn %d: first audio %v, speech end %v, mouth to ear %v", i+1, at(tr.FirstAudioMs), tr.SpeechEndMs, at(tr.MouthToEarMs))
			continue
		}
		if tr.SpeechStoppedMs == nil || *tr.SpeechStoppedMs < tr.SpeechEndMs || *tr.SpeechStoppedMs > *tr.FirstAudioMs ||
			tr.DoneMs == nil || *tr.DoneMs < *tr.FirstAudioMs || tr.AnswerAudioMs <= 0 {
			t.Errorf("turn %d out of order: speech end %v, speech stopped %v, first audio %v, done %v, %v ms of audio", i+1,
				tr.SpeechEndMs, at(tr.SpeechStoppedMs), *tr.FirstAudioMs, at(tr.DoneMs), tr.AnswerAudioMs)
		}
	}
	first, second := res.Turns[0], res.Turns[1]
	if first.Status != "cancelled" || first.BargeOnsetMs == nil || first.CancelMs == nil || first.PlayedMs == nil ||
		*first.CancelMs < *first.BargeOnsetMs || *first.PlayedMs <= 0 {
		t.Errorf("the barge-in did not cancel the first answer: status %q onset %v cancel %v (%s) played %v", first.Status,
			at(first.BargeOnsetMs), at(first.CancelMs), first.CancelOn, at(first.PlayedMs))
	}
	// pocketsphinx may hear the second question as two utterances, the
	// second stopping the answer to the first: answered either way.
	if second.Text == "" || (second.Status != "completed" && second.Status != "cancelled") {
		t.Errorf("the second question was not answered: status %q, text %q", second.Status, second.Text)
	}
}
