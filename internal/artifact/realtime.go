package artifact

// A Realtime speech-to-speech session's turns (internal/realtime), as the
// lab's realtime step writes them (realtime.json), `session()` returns
// them to a script and the report draws them: one record type for the
// driver, the writers and every reader.

// RealtimeTurn is one turn's stamps and figures, every time in ms since
// Start (the turn's first speech frame left; for a turn that barged in,
// the barge-in's onset). A figure the turn never reached is nil.
type RealtimeTurn struct {
	Turn int `json:"turn"`
	// Said is the clip's text where known.
	Said string `json:"said,omitempty"`
	// AudioMs is the caller's clip; SpeechEndMs the end of its last
	// speech frame (a frame whose peak is above 1 % of full scale), sent.
	AudioMs     float64 `json:"audio_ms"`
	SpeechEndMs float64 `json:"speech_end_ms"`
	// SpeechStartedMs / SpeechStoppedMs: the server's VAD events as
	// received; ServerAudioStartMs / ServerAudioEndMs the positions it
	// gave in them (audio_start_ms / audio_end_ms) mapped onto the turn
	// clock (the session's audio sent counts from the session's first
	// frame).
	SpeechStartedMs    *float64 `json:"speech_started_ms"`
	SpeechStoppedMs    *float64 `json:"speech_stopped_ms"`
	ServerAudioStartMs *float64 `json:"server_audio_start_ms"`
	ServerAudioEndMs   *float64 `json:"server_audio_end_ms"`
	// FirstTranscriptMs is the first transcript delta of the answer
	// (output_audio_transcript), FirstTextMs the first text delta,
	// FirstAudioMs the first audio delta.
	FirstTranscriptMs *float64 `json:"first_transcript_ms"`
	FirstTextMs       *float64 `json:"first_text_ms"`
	FirstAudioMs      *float64 `json:"first_audio_ms"`
	// MouthToEarMs is FirstAudioMs - SpeechEndMs.
	MouthToEarMs *float64 `json:"mouth_to_ear_ms"`
	// AnswerAudioMs is the answer's audio, from its bytes; UnderrunMs the
	// silence a speaker playing it at real time from the first delta
	// would have waited in the middle of it.
	AnswerAudioMs float64  `json:"answer_audio_ms"`
	UnderrunMs    *float64 `json:"underrun_ms"`
	// DoneMs is response.done; Status its status (completed, cancelled,
	// failed, incomplete).
	DoneMs *float64 `json:"done_ms"`
	Status string   `json:"status,omitempty"`
	// Transcript is the answer's audio transcript, Text its text deltas.
	Transcript string `json:"transcript,omitempty"`
	Text       string `json:"text,omitempty"`
	// The barge-in into this turn's answer, each absent without one: the
	// caller started the next turn BargeOnsetMs after this turn's start,
	// while the answer played; the server's speech_started came
	// OnsetToSpeechStartedMs after the onset (null when none came); the
	// client sent response.cancel (and conversation.item.truncate at
	// PlayedMs, the answer's audio played by then) at CancelMs, CancelOn
	// saying why then ("speech_started", or "timeout": none came within
	// the driver's CancelAfter); the last audio delta came
	// CancelToLastAudioMs after the cancel (0 when none came after it), and
	// AudioAfterCancelMs is the ms of audio that arrived after the cancel:
	// what the caller hears over their own voice.
	BargeOnsetMs           *float64 `json:"barge_onset_ms,omitempty"`
	OnsetToSpeechStartedMs *float64 `json:"onset_to_speech_started_ms,omitempty"`
	CancelMs               *float64 `json:"cancel_ms,omitempty"`
	CancelOn               string   `json:"cancel_on,omitempty"`
	PlayedMs               *float64 `json:"played_ms,omitempty"`
	CancelToLastAudioMs    *float64 `json:"cancel_to_last_audio_ms,omitempty"`
	AudioAfterCancelMs     *float64 `json:"audio_after_cancel_ms,omitempty"`
	// Events are every event of the turn with its stamp
	// (the driver's KeepEvents).
	Events []RealtimeEvent `json:"events,omitempty"`
}

// RealtimeEvent is one received (or sent, Sent true) event and its stamp.
type RealtimeEvent struct {
	Type string  `json:"type"`
	AtMs float64 `json:"at_ms"`
	Sent bool    `json:"sent,omitempty"`
}

// RealtimeFile is the lab's realtime step's artifact.
const RealtimeFile = "realtime.json"

// Realtime is realtime.json, the lab's realtime step: the server (its
// URL, the secrets never in it), the dialect it spoke, the audio's rate,
// the turns each session was to have (Plan: what the caller said and
// where a barge-in was asked), and every turn of every session.
type Realtime struct {
	Step     string            `json:"step"`
	Server   string            `json:"server"`
	Dialect  string            `json:"dialect"`
	Rate     int               `json:"rate"`
	Plan     []RealtimePlanned `json:"plan,omitempty"`
	Sessions []RealtimeSession `json:"sessions"`
}

// RealtimePlanned is one turn a session was to have: what the caller
// says, and BargeAfterMs when the next turn barges into this one's
// answer (session()'s turns[k].barge_after_ms).
type RealtimePlanned struct {
	Say          string   `json:"say"`
	BargeAfterMs *float64 `json:"barge_after_ms,omitempty"`
}

// RealtimeSession is one session of the step: its turns, and the failure
// that ended it early ("" kind when none).
type RealtimeSession struct {
	Turns     []RealtimeTurn `json:"turns"`
	ErrorKind *string        `json:"error_kind"`
	Error     *string        `json:"error"`
}
