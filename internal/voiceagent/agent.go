// Package voiceagent is a reference cascaded voice agent behind OpenAI's
// Realtime API: the caller's audio heard by the default speech-to-text
// engine (pocketsphinx's Listener: the server's VAD and the transcript),
// the answer streamed from an LLM server's chat completions, each
// sentence spoken by the default speech engine (espeak-ng) as it
// completes, its audio sent back as 24 kHz PCM16 deltas. A cancel, or the
// caller speaking over the answer, stops the LLM stream (its connection
// closed: the server sees the cut) and the speech engine at once.
package voiceagent

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"

	"ttftlab/internal/endpoint"
	"ttftlab/internal/engineserve"
	"ttftlab/internal/pocketsphinx"
)

// Model is the model name the agent answers to (and lists).
const Model = "ttftlab-voice-agent"

// OutputRate is the sample rate of the answer's audio: OpenAI's pcm, 24 kHz
// PCM16 mono.
const OutputRate = 24000

// bytesPerMs is the answer's audio: 24 kHz, 2 bytes a sample.
const bytesPerMs = OutputRate * 2 / 1000

// DeltaMs is the audio an output_audio.delta carries (the last of a
// sentence may carry less).
const DeltaMs = 100

// DefaultInstructions is the system prompt until a session.update gives
// its instructions.
const DefaultInstructions = "You are a helpful voice assistant on a phone line. Answer in one or two short sentences."

// DefaultMaxTokens bounds an answer unless the Agent says otherwise.
const DefaultMaxTokens = 200

// maxHistory is how many of the conversation's last items (the caller's
// and the answers') go to the LLM with each answer.
const maxHistory = 24

// Speaker speaks a text: its audio (24 kHz PCM16 mono) handed to put as
// it is made; the end of ctx stops it. tts.Server is one.
type Speaker interface {
	Speak(ctx context.Context, text, voice string, put func(pcm []byte) error) error
}

// Ears hear one session's audio and send the server's VAD and
// transcription events (pocketsphinx.Listener is one). Its methods are
// called from the session's reading goroutine.
type Ears interface {
	AppendEvent(b64, eventID string)
	Commit(eventID string)
	Rate() int
	SetRate(rate int)
	Close()
}

// Hearing gives a session its Ears: events go to ev; started is called
// after each speech_started, heard after each transcript (both must not
// block, nor call the Ears).
type Hearing interface {
	Listen(ctx context.Context, ev *engineserve.Events, id string, started func(item string), heard func(item, transcript string)) Ears
}

// Pocketsphinx is the Hearing of the default speech-to-text engine.
type Pocketsphinx struct{ *pocketsphinx.Server }

// Listen is a pocketsphinx.Listener with the session's hooks.
func (p Pocketsphinx) Listen(ctx context.Context, ev *engineserve.Events, id string, started func(string), heard func(string, string)) Ears {
	l := p.Server.Listen(ctx, ev, id)
	l.OnSpeechStarted, l.OnHeard = started, heard
	return l
}

// Agent answers GET /v1/realtime (OpenAI's Realtime API, the GA events;
// a beta client's session.update is read too) with one session per
// WebSocket, and GET /health and GET /v1/models. Ears, Voice and LLM must
// be set.
type Agent struct {
	// LLM is the LLM server the answers stream from (its base URL, key,
	// headers, TLS and model name).
	LLM *endpoint.Endpoint
	// Ears hear the caller; Voice speaks the answer.
	Ears  Hearing
	Voice Speaker
	// MaxTokens bounds each answer (0: DefaultMaxTokens).
	MaxTokens int
	// Log, when set, gets a line per session and per answer.
	Log io.Writer

	mu       sync.Mutex
	sessions sync.WaitGroup
	n        int
}

func (a *Agent) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	mux := engineserve.Mux{Model: Model, Routes: []engineserve.Route{
		{Method: http.MethodGet, Path: "/v1/realtime", Note: " (WebSocket)", Serve: a.realtime},
	}}
	mux.ServeHTTP(w, r)
}

// Wait waits until every session has ended (their requests' context
// ended, or their clients went away).
func (a *Agent) Wait() { a.sessions.Wait() }

func (a *Agent) realtime(w http.ResponseWriter, r *http.Request) {
	c, err := websocket.Accept(w, r, nil)
	if err != nil {
		return // Accept answered the request
	}
	a.sessions.Add(1)
	defer a.sessions.Done()
	c.SetReadLimit(pocketsphinx.MaxEvent)
	a.mu.Lock()
	a.n++
	id := fmt.Sprintf("sess_%d_%d", time.Now().UnixNano(), a.n)
	a.mu.Unlock()
	ctx, cancel := context.WithCancel(r.Context())
	s := &session{a: a, c: c, ctx: ctx, id: id, ev: engineserve.NewEvents(ctx, c),
		voice: "alloy", instructions: DefaultInstructions}
	s.ears = a.Ears.Listen(ctx, s.ev, id, s.speechStarted, s.heard)
	start := time.Now()
	s.sendSession("session.created")
	err = s.serve()
	cancel()
	s.end()
	c.CloseNow()
	if a.Log != nil {
		why := "closed"
		if err != nil && websocket.CloseStatus(err) == -1 && ctx.Err() == nil {
			why = err.Error()
		}
		s.mu.Lock()
		n := s.nresp
		s.mu.Unlock()
		fmt.Fprintf(a.Log, "voice: session %s: %d answers in %s, %s\n", id, n, time.Since(start).Round(time.Millisecond), why)
	}
}

func (a *Agent) maxTokens() int {
	if a.MaxTokens > 0 {
		return a.MaxTokens
	}
	return DefaultMaxTokens
}
