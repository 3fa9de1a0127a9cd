package turn

import (
	"encoding/json"
	"math"
	"testing"
)

func ptr(v float64) *float64 { return &v }

// The parts of a whole turn add up to mouth to ear, and each is the
// difference of its two stamps.
func TestPartsAddUp(t *testing.T) {
	s := Stamps{SpeechEndMs: 2000.5, SpeechStoppedMs: ptr(2300.25), FirstPartialMs: ptr(1500), FinalMs: ptr(2450.125),
		RequestMs: ptr(2451), TTFTMs: ptr(2600.75), FirstSentenceMs: ptr(2700), TTSSentMs: ptr(2700.5), FirstAudioMs: ptr(2900.875)}
	p := s.Parts()
	want := map[string]float64{"mouth_to_ear_ms": 900.375, "endpointing_ms": 299.75, "stt_final_ms": 449.625,
		"stt_first_partial_ms": -500.5, "transcription_ms": 149.875, "handoff_ms": 0.875, "llm_ttft_ms": 149.75,
		"first_sentence_ms": 99.25, "tts_handoff_ms": 0.5, "tts_first_audio_ms": 200.375, "client_overhead_ms": 1.375}
	b, _ := json.Marshal(p)
	var got map[string]float64
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	for k, v := range want {
		if math.Abs(got[k]-v) > 1e-9 {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
	sum := *p.SttFinalMs + *p.HandoffMs + *p.LLMTTFTMs + *p.FirstSentenceMs + *p.TTSHandoffMs + *p.TTSFirstAudioMs
	if math.Abs(sum-*p.MouthToEarMs) > 1e-9 {
		t.Errorf("the parts add up to %v, mouth to ear is %v", sum, *p.MouthToEarMs)
	}
}

// A server that says nothing of when the caller stopped leaves
// endpointing and transcription null; a turn without audio has no mouth
// to ear.
func TestPartsMissing(t *testing.T) {
	p := Stamps{SpeechEndMs: 1000, FinalMs: ptr(1400), RequestMs: ptr(1401), TTFTMs: ptr(1500)}.Parts()
	if p.EndpointingMs != nil || p.TranscriptionMs != nil || p.MouthToEarMs != nil || p.ClientOverheadMs != nil {
		t.Errorf("parts without their stamps: %+v", p)
	}
	if p.SttFinalMs == nil || *p.SttFinalMs != 400 || *p.LLMTTFTMs != 99 {
		t.Errorf("stt_final %v, llm_ttft %v; want 400, 99", p.SttFinalMs, p.LLMTTFTMs)
	}
}

// The word error rate is rounded to four decimals: 5/6 is 0.8333.
func TestWER(t *testing.T) {
	for _, c := range []struct {
		ref, hyp string
		want     float64
	}{
		{"Do you open on Saturday morning?", "do you open on saturday morning", 0},
		{"Do you open on Saturday morning?", "open on saturday morning the debris on", 0.8333},
		{"It's a test.", "its a test", 0.3333},
		{"", "", 0},
		{"", "noise", 1},
		{"one two", "", 1},
		{"a b c", "a x c d", 0.6667},
	} {
		if got := WER(c.ref, c.hyp); got != c.want {
			t.Errorf("WER(%q, %q) = %v, want %v", c.ref, c.hyp, got, c.want)
		}
	}
}

// Parts that add up leave nothing of mouth to ear; a part recorded wrong
// leaves its error; a turn without its first audio has nothing to add up.
func TestUnaccounted(t *testing.T) {
	s := Stamps{SpeechEndMs: 2000.5, FinalMs: ptr(2450.125), RequestMs: ptr(2451), TTFTMs: ptr(2600.75),
		FirstSentenceMs: ptr(2700), TTSSentMs: ptr(2700.5), FirstAudioMs: ptr(2900.875)}
	p := s.Parts()
	if u := p.Unaccounted(); u == nil || math.Abs(*u) > RoundingMs {
		t.Fatalf("unaccounted %v, want 0 within %v", u, RoundingMs)
	}
	*p.LLMTTFTMs += 10
	if u := p.Unaccounted(); u == nil || math.Abs(*u+10) > RoundingMs {
		t.Errorf("a part 10 ms too long leaves %v, want -10", u)
	}
	s.FirstAudioMs = nil
	if u := s.Parts().Unaccounted(); u != nil {
		t.Errorf("a turn without first audio leaves %v, want nil", *u)
	}
}

func TestGarbled(t *testing.T) {
	if Garbled(GarbledWER) || !Garbled(GarbledWER+0.01) || Garbled(0) {
		t.Errorf("garbled is a WER above %v", GarbledWER)
	}
}
