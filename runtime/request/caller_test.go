package request

import (
	"testing"
	"time"

	"ttftlab/internal/stt"
)

// TestTurnStampsOnTheTurnClock: the LLM's times, counted from its
// request's t0, land on the turn clock at t0's distance from the caller's
// first frame; the speech-to-text side's stay as they are; the parts add
// up to mouth to ear.
func TestTurnStampsOnTheTurnClock(t *testing.T) {
	start := time.Now()
	stopped, partial := 1350.0, 900.0
	r := &stt.Result{Start: start, SpeechEndMs: 1200, SpeechStoppedMs: &stopped, FirstPartialMs: &partial, FinalMs: 1500}
	t0 := start.Add(1510 * time.Millisecond)
	ttft, first, sent, audio := 80.0, 150.0, 151.0, 190.0
	s := TurnStamps(r, t0, &ttft, &first, &sent, &audio)
	want := map[string]*float64{"request": s.RequestMs, "ttft": s.TTFTMs, "first sentence": s.FirstSentenceMs, "tts sent": s.TTSSentMs, "first audio": s.FirstAudioMs}
	for name, at := range map[string]float64{"request": 1510, "ttft": 1590, "first sentence": 1660, "tts sent": 1661, "first audio": 1700} {
		if want[name] == nil || *want[name] != at {
			t.Errorf("%s: %v, want %v", name, want[name], at)
		}
	}
	if s.SpeechEndMs != 1200 || *s.SpeechStoppedMs != 1350 || *s.FirstPartialMs != 900 || *s.FinalMs != 1500 {
		t.Errorf("the speech-to-text stamps moved: %+v", s)
	}
	p := s.Parts()
	sum := *p.SttFinalMs + *p.HandoffMs + *p.LLMTTFTMs + *p.FirstSentenceMs + *p.TTSHandoffMs + *p.TTSFirstAudioMs
	if *p.MouthToEarMs != 500 || sum != *p.MouthToEarMs {
		t.Errorf("mouth to ear %v, parts add up to %v", *p.MouthToEarMs, sum)
	}
	if none := TurnStamps(r, time.Time{}, &ttft, nil, nil, nil); none.RequestMs != nil || none.TTFTMs != nil {
		t.Errorf("a request never written has no LLM stamps: %+v", none)
	}
}
