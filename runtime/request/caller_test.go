package request

import (
	"testing"
	"time"

	"ttftlab/internal/stream"
	"ttftlab/internal/stt"
	"ttftlab/internal/voice"
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
	s := turnStamps(r, t0, &ttft, &first, &sent, &audio)
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
	if none := turnStamps(r, time.Time{}, &ttft, nil, nil, nil); none.RequestMs != nil || none.TTFTMs != nil {
		t.Errorf("a request never written has no LLM stamps: %+v", none)
	}
}

// TestTurnOf: a turn's first sentence is the speech pipeline's when the
// answer was spoken (the sentence sent to the speech engine, with its
// hand-off and first audio), else the one a speaker's pace of the chunks
// finds, with nothing of the speech engine; without an LLM request
// (listen()) only the speech-to-text side's stamps are there.
func TestTurnOf(t *testing.T) {
	start := time.Now()
	r := &stt.Result{Start: start, SpeechEndMs: 1200, FinalMs: 1500}
	res := &stream.Result{Chunks: []stream.Chunk{{TMs: 80, Text: "We open", Index: 1}, {TMs: 120, Text: " at nine. ", Index: 2},
		{TMs: 200, Text: "See you then.", Index: 3}}, TotalMs: 210}
	res.Info.T0, res.Info.HasTTFT, res.Info.TTFTMs, res.Info.Done = start.Add(1510*time.Millisecond), true, 80, true
	sent, audio := 126.0, 190.0
	answer := &voice.Answer{Sentences: []voice.Sentence{{Text: "We open at nine.", ReadyMs: 125, TTSSentMs: &sent, FirstAudioMs: &audio}},
		FirstAudioMs: &audio}
	at := func(p *float64) any {
		if p == nil {
			return nil
		}
		return *p
	}
	for _, c := range []struct {
		name                     string
		res                      *stream.Result
		answer                   *voice.Answer
		ttft, first, sent, audio any
	}{
		{"spoken", res, answer, 1590.0, 1635.0, 1636.0, 1700.0},
		{"not spoken", res, nil, 1590.0, 1630.0, nil, nil},
		{"spoken, no sentence", res, &voice.Answer{}, 1590.0, nil, nil, nil},
		{"no request", nil, answer, nil, nil, nil, nil},
	} {
		s := TurnOf(r, c.res, c.answer)
		for _, f := range []struct {
			name      string
			got, want any
		}{{"ttft", at(s.TTFTMs), c.ttft}, {"first sentence", at(s.FirstSentenceMs), c.first},
			{"tts sent", at(s.TTSSentMs), c.sent}, {"first audio", at(s.FirstAudioMs), c.audio}} {
			if f.got != f.want {
				t.Errorf("%s: %s %v, want %v", c.name, f.name, f.got, f.want)
			}
		}
		if s.SpeechEndMs != 1200 || s.FinalMs == nil || *s.FinalMs != 1500 {
			t.Errorf("%s: the speech-to-text stamps moved: %+v", c.name, s)
		}
	}
}
