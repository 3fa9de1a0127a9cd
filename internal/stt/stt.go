// Package stt sends a caller's utterance (a callaudio.Clip) to a
// speech-to-text server the way a voice platform does and stamps what
// comes back: OpenAI's POST /v1/audio/transcriptions (the clip uploaded
// whole when the caller's audio ends; with stream=true its
// transcript.text.delta / .done events), whisper.cpp's POST /inference,
// and, over a WebSocket while the caller speaks, OpenAI's Realtime
// transcription session and vLLM's /v1/realtime. Streaming audio leaves
// paced to the wall clock in frames, followed by silence frames as a
// phone line sends them; every answer's bytes are stamped as they come
// off the socket.
//
// Every time of a Result is in ms since Start, the moment the caller
// began to speak (the first frame left, or, for an upload, the moment the
// clip's real-time playback began).
package stt

import (
	"context"
	"fmt"
	"time"

	"ttftlab/internal/callaudio"
	"ttftlab/internal/endpoint"
)

// API is a speech-to-text protocol.
type API string

const (
	// APIOpenAI is POST /v1/audio/transcriptions, multipart, the clip
	// uploaded whole (with Content-Length) when its audio ends; the
	// answer is JSON {"text": ...}.
	APIOpenAI API = "openai"
	// APIOpenAIStream is the same with stream=true: the answer is
	// server-sent events transcript.text.delta (delta) and
	// transcript.text.done (text).
	APIOpenAIStream API = "openai-stream"
	// APIWhisper is whisper.cpp's whisper-server: POST /inference,
	// multipart file, response_format=json.
	APIWhisper API = "whisper"
	// APIRealtime is OpenAI's Realtime transcription session over a
	// WebSocket (GET /v1/realtime?intent=transcription):
	// input_audio_buffer.append while the caller speaks, the server's VAD
	// events input_audio_buffer.speech_started / speech_stopped,
	// conversation.item.input_audio_transcription.delta / .completed.
	APIRealtime API = "realtime"
	// APIVLLMRealtime is vLLM's /v1/realtime dialect: session.update,
	// input_audio_buffer.append / commit, transcription.delta /
	// transcription.done.
	APIVLLMRealtime API = "vllm-realtime"
)

// APIs lists the protocols in the order --stt-api's help gives them.
var APIs = []API{APIOpenAI, APIOpenAIStream, APIWhisper, APIRealtime, APIVLLMRealtime}

// ParseAPI reads --stt-api's value.
func ParseAPI(s string) (API, error) {
	for _, a := range APIs {
		if string(a) == s {
			return a, nil
		}
	}
	return "", fmt.Errorf("unknown speech-to-text API %q: want one of %v", s, APIs)
}

// Streaming says whether the protocol takes the audio while the caller
// speaks (paced frames, then silence) rather than as one upload after.
func (a API) Streaming() bool { return a == APIRealtime || a == APIVLLMRealtime }

// Config is one speech-to-text server and how to speak to it.
type Config struct {
	// Endpoint is the server: base URL (a path in it may name the
	// protocol's, e.g. .../inference or ws://.../v1/realtime), key,
	// headers, TLS, model.
	Endpoint *endpoint.Endpoint
	// API is the protocol; "" takes it from the URL (APIFor).
	API API
	// Language is sent where the protocol takes one ("" : none).
	Language string
	// FrameMs is the length of one frame of streamed audio (0:
	// callaudio.DefaultFrameMs).
	FrameMs int
	// SilenceMs bounds the silence frames a streaming connection sends
	// after the clip, while it waits for the final transcript (0: as long
	// as Timeout allows).
	SilenceMs int
	// Timeout bounds the wait for the final transcript after the clip's
	// audio ended (0: DefaultTimeout); past it the turn fails with
	// KindTimeout.
	Timeout time.Duration
	// KeepFrames fills Result.Frames with every frame's send stamp.
	KeepFrames bool
}

// MaxTranscript bounds a transcript, in bytes, whatever the protocol: an
// hour of speech is some 60 KB of text, so a server that sends more is
// not transcribing the caller (the turn fails with KindBadData), and the
// client's memory stays bounded.
const MaxTranscript = 1 << 20

// DefaultTimeout is how long a final transcript may take after the
// caller's audio ended.
const DefaultTimeout = 15 * time.Second

// Result is one utterance transcribed, with its stamps.
type Result struct {
	// API is the protocol spoken; Dialect what the server turned out to
	// speak where the protocol has several (e.g. "openai-ga", "beta").
	API     API    `json:"api"`
	Dialect string `json:"dialect,omitempty"`
	// Text is the final transcript.
	Text string `json:"text"`
	// Start is the instant of the turn clock's zero (with Go's monotonic
	// reading).
	Start time.Time `json:"-"`
	// Rate is the sample rate the audio was sent at.
	Rate int `json:"rate"`
	// AudioMs is the clip's length; SpeechEndMs the moment the end of its
	// last speech frame left (streaming), or would have been spoken
	// (upload: Start + the clip's speech end).
	AudioMs     float64 `json:"audio_ms"`
	SpeechEndMs float64 `json:"speech_end_ms"`
	// SentMs is when the last byte of the clip's audio was sent (an
	// upload's whole body; a stream's last frame of the clip, silence
	// after it not counted).
	SentMs float64 `json:"sent_ms"`
	// SpeechStartedMs / SpeechStoppedMs: the server's VAD events as
	// received, where it sends them; ServerAudioStartMs /
	// ServerAudioEndMs the audio positions it gave in them
	// (audio_start_ms / audio_end_ms), on the audio's own time.
	SpeechStartedMs    *float64 `json:"speech_started_ms"`
	SpeechStoppedMs    *float64 `json:"speech_stopped_ms"`
	ServerAudioStartMs *float64 `json:"server_audio_start_ms"`
	ServerAudioEndMs   *float64 `json:"server_audio_end_ms"`
	// FirstPartialMs is the first partial transcript (a delta), where the
	// protocol sends them; FinalMs the final transcript.
	FirstPartialMs *float64 `json:"first_partial_ms"`
	FinalMs        float64  `json:"final_ms"`
	// QueueMs is how long the server says the request waited before it
	// was worked on, where it says (null otherwise).
	QueueMs *float64 `json:"queue_ms"`
	// SilenceFrames is how many silence frames were sent after the clip.
	SilenceFrames int `json:"silence_frames"`
	// Frames holds every frame's send stamp when Config.KeepFrames is set.
	Frames []float64 `json:"-"`
}

// Error kinds of a failed transcription (Error.Kind), each its own in a
// load level's failures.
const (
	KindTimeout     = "stt_timeout"      // no final transcript within Timeout
	KindHTTP        = "stt_http"         // an HTTP status other than those below
	KindAuth        = "stt_unauthorized" // 401 or 403
	KindRateLimited = "stt_rate_limited" // 429
	KindDropped     = "stt_dropped"      // the connection closed mid-turn
	KindConnect     = "stt_connect"      // could not connect or upgrade
	KindBadData     = "stt_bad_data"     // an answer that cannot be read
	KindServer      = "stt_error"        // the server sent an error event
)

// Error is a failed transcription: its kind, the HTTP status where there
// was one, and the stamps taken before it failed.
type Error struct {
	Kind    string
	Status  int
	Msg     string
	Partial *Result
	Err     error
}

func (e *Error) Error() string { return e.Msg }
func (e *Error) Unwrap() error { return e.Err }

// APIFor is the protocol a URL names: a path ending in /inference is
// whisper-server's; ws:// or wss://, or a path ending in /realtime, is
// OpenAI's Realtime; anything else OpenAI's transcription upload.
func APIFor(base string) API { return apiFor(base) }

// Transcribe sends clip (resampled to the protocol's rate) as cfg says
// and returns the transcript with its stamps. A failure is an *Error.
func Transcribe(ctx context.Context, cfg Config, clip *callaudio.Clip) (*Result, error) {
	api := cfg.API
	if api == "" {
		api = APIFor(cfg.Endpoint.Base)
	}
	p, ok := protocols[api]
	if !ok {
		return nil, &Error{Kind: KindConnect, Msg: fmt.Sprintf("speech-to-text API %q is not spoken here", api)}
	}
	return p(ctx, cfg, clip)
}

// protocols are the protocols' implementations, each registered by its
// own file's init.
var protocols = map[API]func(ctx context.Context, cfg Config, clip *callaudio.Clip) (*Result, error){}
