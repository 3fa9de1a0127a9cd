package artifact

import "encoding/json"

// CallFile is the call step's artifact.
const CallFile = "call.json"

// CallStamps are a turn's events in ms on the turn's clock (zero: the
// caller's first audio frame left), as the host returned them
// (stream()'s result.turn.stamps). SpeechStoppedMs and FirstPartialMs are
// absent or null where the speech-to-text server does not say them; every
// other stamp is there for a turn that reached its first audio.
type CallStamps struct {
	SpeechEndMs     float64  `json:"speech_end_ms"`
	SpeechStoppedMs *float64 `json:"speech_stopped_ms,omitempty"`
	FirstPartialMs  *float64 `json:"first_partial_ms,omitempty"`
	FinalMs         float64  `json:"final_ms"`
	RequestMs       float64  `json:"request_ms"`
	TTFTMs          float64  `json:"ttft_ms"`
	FirstSentenceMs float64  `json:"first_sentence_ms"`
	TTSSentMs       float64  `json:"tts_sent_ms"`
	FirstAudioMs    float64  `json:"first_audio_ms"`
}

// CallParts are a turn's figures as the host computed them from its
// stamps (internal/turn's Parts, whose JSON names these are); the three
// that need an event the server may not report are absent or null then.
type CallParts struct {
	MouthToEarMs      float64  `json:"mouth_to_ear_ms"`
	EndpointingMs     *float64 `json:"endpointing_ms,omitempty"`
	SttFinalMs        float64  `json:"stt_final_ms"`
	SttFirstPartialMs *float64 `json:"stt_first_partial_ms,omitempty"`
	TranscriptionMs   *float64 `json:"transcription_ms,omitempty"`
	HandoffMs         float64  `json:"handoff_ms"`
	LLMTTFTMs         float64  `json:"llm_ttft_ms"`
	FirstSentenceMs   float64  `json:"first_sentence_ms"`
	TTSHandoffMs      float64  `json:"tts_handoff_ms"`
	TTSFirstAudioMs   float64  `json:"tts_first_audio_ms"`
	ClientOverheadMs  float64  `json:"client_overhead_ms"`
}

// CallTurnSTT is what the speech-to-text side said of one turn: the
// protocol spoken (and the dialect where it has several), the rate the
// audio went at, its length, and how long the server says the request
// waited (null where it does not).
type CallTurnSTT struct {
	API     string   `json:"api"`
	Dialect string   `json:"dialect,omitempty"`
	Rate    float64  `json:"rate"`
	QueueMs *float64 `json:"queue_ms,omitempty"`
	AudioMs float64  `json:"audio_ms"`
}

// CallTurn is one spoken question through speech-to-text, the LLM and
// the speech engine: what was said, what the LLM was asked (the
// transcript) and its word error rate against what was said, the stamps
// and parts as the host returned them.
type CallTurn struct {
	Said       string      `json:"said"`
	Transcript string      `json:"transcript"`
	WER        float64     `json:"wer"`
	Stamps     CallStamps  `json:"stamps"`
	Parts      CallParts   `json:"parts"`
	STT        CallTurnSTT `json:"stt"`
	// Answer is the LLM's answer to the transcript.
	Answer string `json:"answer,omitempty"`
}

// CallRun is one repetition of the call step: every question, a turn
// each, in order.
type CallRun struct {
	Turns []CallTurn `json:"turns"`
}

// Call is call.json: the call's questions spoken Repeat times (Runs),
// each turn's mouth to ear and its parts, and their medians over every
// turn of every run.
type Call struct {
	// STT is the speech-to-text side the step listened through, as
	// stt_info() gives it: load.json's settings.stt's record.
	STT       LoadSTT  `json:"stt"`
	TTS       AudioTTS `json:"tts"`
	Questions []string `json:"questions"`
	// Repeat is how many repetitions the step was asked for (the lab's
	// --repeat), Runs every valid one in order, Discarded the attempts
	// set aside ({repetition, reason}).
	Repeat    int               `json:"repeat"`
	Runs      []CallRun         `json:"runs"`
	Discarded []json.RawMessage `json:"discarded,omitempty"`
	// MouthToEarP50 and SttFinalP50 are the medians over every turn of
	// every run; WERMax the largest word error rate of any turn.
	MouthToEarP50 float64 `json:"mouth_to_ear_p50"`
	SttFinalP50   float64 `json:"stt_final_p50"`
	WERMax        float64 `json:"wer_max"`
}

// Repetitions are the step's repetitions: its runs (the step was
// written repeated from the start, so a file has no other shape).
func (c Call) Repetitions() []CallRun {
	return c.Runs
}
