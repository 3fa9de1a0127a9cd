// Package turn is one voice turn's figures on one clock: from the moment
// the caller stops speaking to the moment the caller hears the answer
// (mouth to ear), and the parts it is made of, named as the voice
// platforms name them; and the word error rate of a transcript against
// what was said.
//
// Every stamp is in milliseconds on the turn's clock, which starts when
// the caller's first audio frame left (the caller began to speak). The
// parts of a turn that reached its first audio add up to mouth_to_ear_ms
// exactly:
//
//	mouth_to_ear = stt_final + handoff + llm_ttft + first_sentence
//	               + tts_handoff + tts_first_audio
//
// where handoff and tts_handoff are the client's own time (transcript
// in hand -> LLM request sent; sentence complete -> sent to the speech
// engine), whose sum is client_overhead_ms.
package turn

// Stamps are the events of one turn, each in ms since the caller's first
// frame left; a pointer is nil for an event that did not happen or that
// the server does not report.
type Stamps struct {
	// SpeechEndMs is when the caller's speech ended: the moment the end of
	// the last frame above the energy threshold was sent (known from the
	// audio, not from the server).
	SpeechEndMs float64
	// SpeechStoppedMs is when the speech-to-text side said the caller
	// stopped (a VAD event received), where it says so.
	SpeechStoppedMs *float64
	// FirstPartialMs is the first partial transcript received.
	FirstPartialMs *float64
	// FinalMs is the final transcript received.
	FinalMs *float64
	// RequestMs is the LLM request sent (its t0).
	RequestMs *float64
	// TTFTMs, FirstSentenceMs: the LLM answer's first token and first
	// complete sentence, on the turn's clock.
	TTFTMs          *float64
	FirstSentenceMs *float64
	// TTSSentMs is the first sentence sent to the speech engine;
	// FirstAudioMs its first audio received.
	TTSSentMs    *float64
	FirstAudioMs *float64
}

// Parts are a turn's figures, in ms; nil where a stamp they need is
// missing. The JSON names are the records' (requests.jsonl, call.json).
type Parts struct {
	// MouthToEarMs = first audio - speech end.
	MouthToEarMs *float64 `json:"mouth_to_ear_ms"`
	// EndpointingMs = speech stopped (server) - speech end.
	EndpointingMs *float64 `json:"endpointing_ms"`
	// SttFinalMs = final transcript - speech end.
	SttFinalMs *float64 `json:"stt_final_ms"`
	// SttFirstPartialMs = first partial transcript - speech end (negative
	// when it came while the caller was still speaking).
	SttFirstPartialMs *float64 `json:"stt_first_partial_ms"`
	// TranscriptionMs = final transcript - speech stopped, where the
	// server said when; else nil.
	TranscriptionMs *float64 `json:"transcription_ms"`
	// HandoffMs = LLM request sent - final transcript (the client's own).
	HandoffMs *float64 `json:"handoff_ms"`
	// LLMTTFTMs = first token - LLM request sent.
	LLMTTFTMs *float64 `json:"llm_ttft_ms"`
	// FirstSentenceMs = first complete sentence - first token.
	FirstSentenceMs *float64 `json:"first_sentence_ms"`
	// TTSHandoffMs = sent to the speech engine - first sentence (the
	// client's own).
	TTSHandoffMs *float64 `json:"tts_handoff_ms"`
	// TTSFirstAudioMs = first audio - sent to the speech engine.
	TTSFirstAudioMs *float64 `json:"tts_first_audio_ms"`
	// ClientOverheadMs = HandoffMs + TTSHandoffMs.
	ClientOverheadMs *float64 `json:"client_overhead_ms"`
}

// Parts computes the figures from the stamps.
func (s Stamps) Parts() Parts {
	end := &s.SpeechEndMs
	p := Parts{
		MouthToEarMs:      diff(s.FirstAudioMs, end),
		EndpointingMs:     diff(s.SpeechStoppedMs, end),
		SttFinalMs:        diff(s.FinalMs, end),
		SttFirstPartialMs: diff(s.FirstPartialMs, end),
		TranscriptionMs:   diff(s.FinalMs, s.SpeechStoppedMs),
		HandoffMs:         diff(s.RequestMs, s.FinalMs),
		LLMTTFTMs:         diff(s.TTFTMs, s.RequestMs),
		FirstSentenceMs:   diff(s.FirstSentenceMs, s.TTFTMs),
		TTSHandoffMs:      diff(s.TTSSentMs, s.FirstSentenceMs),
		TTSFirstAudioMs:   diff(s.FirstAudioMs, s.TTSSentMs),
	}
	if p.HandoffMs != nil && p.TTSHandoffMs != nil {
		v := *p.HandoffMs + *p.TTSHandoffMs
		p.ClientOverheadMs = &v
	}
	return p
}

// diff is a - b to the microsecond, nil when either is.
func diff(a, b *float64) *float64 {
	if a == nil || b == nil {
		return nil
	}
	v := RoundUs(*a - *b)
	return &v
}

// RoundUs rounds ms to the microsecond, as every time of the records is.
func RoundUs(ms float64) float64 {
	if ms < 0 {
		return -RoundUs(-ms)
	}
	return float64(int64(ms*1000+0.5)) / 1000
}

// Unaccounted is what mouth to ear leaves once its parts are taken away:
// mouth_to_ear - (stt_final + llm_ttft + first_sentence +
// tts_first_audio) - client_overhead. Parts that add up leave nothing but
// the rounding of each difference to the microsecond (at most 0.0005 ms
// for each of the seven: mouth to ear, the four parts and the two
// hand-offs of the client overhead); nil when a part is missing (a turn
// that did not reach its first audio).
func (p Parts) Unaccounted() *float64 {
	sum := 0.0
	for _, v := range []*float64{p.SttFinalMs, p.LLMTTFTMs, p.FirstSentenceMs, p.TTSFirstAudioMs, p.ClientOverheadMs} {
		if v == nil {
			return nil
		}
		sum += *v
	}
	if p.MouthToEarMs == nil {
		return nil
	}
	v := *p.MouthToEarMs - sum
	return &v
}

// RoundingMs is how far parts that add up may leave mouth to ear
// unaccounted: seven differences rounded to the microsecond (0.0035 ms),
// and the floating point's own error on top.
const RoundingMs = 0.004

// GarbledWER is the word error rate above which a transcript is garbled:
// the LLM was asked something other than what the caller said, so its
// timings are those of another question.
const GarbledWER = 0.5

// Garbled says whether a transcript of word error rate wer is garbled.
func Garbled(wer float64) bool { return wer > GarbledWER }
