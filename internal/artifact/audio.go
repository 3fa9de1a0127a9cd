package artifact

import "encoding/json"

// AudioFile is the audio step's artifact.
const AudioFile = "audio.json"

// AudioTTS is the speech server the audio step spoke through, as
// tts_info() gives it (the key only as how it was set).
type AudioTTS struct {
	URL    string `json:"url"`
	Source string `json:"source"`
	Model  string `json:"model"`
	Format string `json:"format"`
	Engine string `json:"engine"`
	Voice  string `json:"voice,omitempty"`
	APIKey string `json:"api_key,omitempty"`
}

// AudioRun is one of audio.json's runs: when the caller first heard the
// answer, on its time axis (t0 of the LLM request).
type AudioRun struct {
	TTFTMs          float64 `json:"ttft_ms"`
	FirstSentenceMs float64 `json:"first_sentence_ms"`
	// TTSSentMs is when the first sentence's speech request was written;
	// TTSFirstAudioMs the speech server's own time from then to its first
	// audio.
	TTSSentMs       float64  `json:"tts_sent_ms"`
	FirstAudioMs    float64  `json:"first_audio_ms"`
	FirstVoicedMs   *float64 `json:"first_voiced_ms,omitempty"`
	TTSFirstAudioMs float64  `json:"tts_first_audio_ms"`
	// AudioMs is the length of the answer's audio, every sentence's.
	AudioMs    float64 `json:"audio_ms"`
	UnderrunMs float64 `json:"underrun_ms"`
	Underruns  float64 `json:"underruns"`
	SpeakEndMs float64 `json:"speak_end_ms"`
	OverheadMs float64 `json:"overhead_ms"`
	Sentences  float64 `json:"sentences"`
	TotalMs    float64 `json:"total_ms"`
}

// SpokenRow is one sentence of the answer as spoken: ready, sent to the
// speech server, its audio's first and last bytes, its length, and when a
// speaker plays it.
type SpokenRow struct {
	Text          string   `json:"text"`
	Voice         string   `json:"voice,omitempty"`
	ReadyMs       float64  `json:"ready_ms"`
	TTSSentMs     float64  `json:"tts_sent_ms"`
	FirstAudioMs  float64  `json:"first_audio_ms"`
	FirstVoicedMs *float64 `json:"first_voiced_ms,omitempty"`
	AudioDoneMs   float64  `json:"audio_done_ms"`
	AudioMs       float64  `json:"audio_ms"`
	StartMs       float64  `json:"start_ms"`
	EndMs         float64  `json:"end_ms"`
}

// Audio is audio.json: Repeat runs of the answer spoken sentence by
// sentence, their medians, and the first run's sentences and chunks for a
// timeline.
type Audio struct {
	TTS AudioTTS `json:"tts"`
	// Repeat is how many runs the step was asked for (the lab's
	// --repeat); 0 in files written before it was recorded, which hold 5.
	Repeat           int               `json:"repeat,omitempty"`
	Runs             []AudioRun        `json:"runs"`
	TTFTP50          float64           `json:"ttft_p50"`
	FirstSentenceP50 float64           `json:"first_sentence_p50"`
	FirstAudioP50    float64           `json:"first_audio_p50"`
	TTSFirstAudioP50 float64           `json:"tts_first_audio_p50"`
	UnderrunP50      float64           `json:"underrun_p50"`
	TTSShare         float64           `json:"tts_share"`
	Spoken           []SpokenRow       `json:"spoken"`
	Chunks           []Chunk           `json:"chunks"`
	Discarded        []json.RawMessage `json:"discarded,omitempty"`
}
