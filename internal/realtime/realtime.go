// Package realtime drives a speech-to-speech session over the Realtime
// WebSocket API (OpenAI's GA events, the beta names, the sglang-omni and
// vLLM differences) as a caller on a phone line does: the caller's audio
// paced to the wall clock in frames, silence between turns (so the
// server's VAD hears the caller stop), the answer's audio deltas, text and
// transcript, a barge-in while the answer plays (the next turn's audio
// injected, response.cancel and conversation.item.truncate at the played
// position), every received message stamped as it came off the socket.
//
// Every time of a turn (artifact.RealtimeTurn) is in ms since the turn's
// start, the moment right before its first frame's write (for a turn
// that barged in, the barge-in's onset). docs/realtime.md defines every
// figure.
package realtime

import (
	"context"
	"fmt"
	"math"
	"time"

	"ttftlab/internal/artifact"
	"ttftlab/internal/callaudio"
	"ttftlab/internal/endpoint"
)

// Dialects a session may turn out to speak (Result.Dialect).
const (
	// DialectGA is OpenAI's GA event names (response.output_audio.delta,
	// session.type "realtime").
	DialectGA = "openai-ga"
	// DialectBeta is the beta names (response.audio.delta,
	// response.audio_transcript.delta), which sglang-omni speaks too.
	DialectBeta = "beta"
)

// DefaultRate is the sample rate of the audio both ways unless the
// session says otherwise: PCM16 mono at 24 kHz.
const DefaultRate = 24000

// Config is one Realtime server and how to hold a session with it.
type Config struct {
	// Endpoint is the server: ws(s):// or http(s):// base (a base without
	// a path of its own gets /v1/realtime), key, headers, TLS, model.
	Endpoint *endpoint.Endpoint
	// Voice and Instructions go in session.update where given.
	Voice, Instructions string
	// FrameMs is one frame of the caller's audio (0:
	// callaudio.DefaultFrameMs).
	FrameMs int
	// TurnTimeout bounds a turn from its speech end to its response.done
	// (0: DefaultTurnTimeout); past it the turn fails (KindTimeout, or
	// KindNoSpeechStopped when the server never said the caller stopped).
	TurnTimeout time.Duration
	// ConnectTimeout bounds the upgrade and the session's opening (0:
	// 10 s).
	ConnectTimeout time.Duration
	// CancelAfter is how long after a barge-in's onset the client cancels
	// the response when the server has not said speech_started (0:
	// DefaultCancelAfter); at speech_started it cancels at once.
	CancelAfter time.Duration
	// KeepEvents fills each turn's Events with every event's type and
	// stamp (the report's timeline).
	KeepEvents bool
}

// DefaultTurnTimeout bounds a turn from its speech end to response.done.
const DefaultTurnTimeout = 30 * time.Second

// DefaultCancelAfter is how long a barge-in waits for speech_started
// before the client cancels on its own (a client-side VAD's delay).
const DefaultCancelAfter = 500 * time.Millisecond

// Turn is one turn of the caller.
type Turn struct {
	// Clip is what the caller says (any rate: resampled to the session's).
	Clip *callaudio.Clip
	// BargeAfterMs, when set, makes the caller barge in: this long after
	// the turn's first audio delta the NEXT turn's audio starts, over the
	// answer still playing. The last turn's is ignored.
	BargeAfterMs *float64
}

// Result is a whole session.
type Result struct {
	// Dialect is what the server turned out to speak; Rate the audio's
	// sample rate both ways.
	Dialect string `json:"dialect"`
	Rate    int    `json:"rate"`
	// Start is right before the session's first frame's write (frame i
	// is due at Start + i*FrameMs).
	Start time.Time `json:"-"`
	// Turns are the turns measured, in order; TurnStarts each one's
	// clock's zero: right before its first frame's write (for a turn that
	// barged in, the barge-in's onset; TurnStarts[0] is Start).
	Turns      []artifact.RealtimeTurn `json:"turns"`
	TurnStarts []time.Time             `json:"-"`
}

// Error kinds of a failed session or turn (Error.Kind), each its own in
// a load level's failures.
const (
	KindConnect         = "realtime_connect"           // could not connect, upgrade or open the session
	KindAuth            = "realtime_unauthorized"      // 401 or 403 at the upgrade
	KindDropped         = "realtime_dropped"           // the socket closed mid-session
	KindServer          = "realtime_error"             // the server sent an error event
	KindTimeout         = "realtime_timeout"           // no response.done within TurnTimeout
	KindNoSpeechStopped = "realtime_no_speech_stopped" // the server never said the caller stopped
	KindBadData         = "realtime_bad_data"          // a message that cannot be read
)

// Error is a failed session or turn: its kind, the HTTP status of a
// refused upgrade, and the turns measured before it (the failed turn's
// stamps so far last).
type Error struct {
	Kind    string
	Status  int
	Msg     string
	Partial *Result
	Err     error
}

func (e *Error) Error() string { return e.Msg }
func (e *Error) Unwrap() error { return e.Err }

// Run holds one session with the server: it connects, opens the session
// (session.update: audio formats, the server's VAD, voice, instructions),
// then speaks the turns in order, each after the previous turn's answer
// ended (response.done) or, when that turn barges in, over it. A failure
// is an *Error whose Partial holds the turns measured.
func Run(ctx context.Context, cfg Config, turns []Turn) (*Result, error) {
	if cfg.Endpoint == nil {
		return nil, &Error{Kind: KindConnect, Msg: "realtime: no server given"}
	}
	if len(turns) == 0 {
		return nil, &Error{Kind: KindConnect, Msg: "realtime: a session needs at least one turn"}
	}
	for i, t := range turns {
		if t.Clip == nil || len(t.Clip.Samples) == 0 || t.Clip.Rate <= 0 {
			return nil, &Error{Kind: KindConnect, Msg: fmt.Sprintf("realtime: turn %d has no audio", i+1)}
		}
		if t.BargeAfterMs != nil && (*t.BargeAfterMs < 0 || math.IsNaN(*t.BargeAfterMs) || math.IsInf(*t.BargeAfterMs, 0)) {
			return nil, &Error{Kind: KindConnect, Msg: fmt.Sprintf("realtime: turn %d: barge_after_ms must be a number of ms, 0 or more", i+1)}
		}
	}
	s := newSession(cfg, turns)
	return s.run(ctx)
}
