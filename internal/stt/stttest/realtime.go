package stttest

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"ttftlab/internal/callaudio"
)

// Frame is one input_audio_buffer.append as a fake received it.
type Frame struct {
	// At is when the message was read: the clock read right after the
	// read returned, in the test's own process, so it compares with the
	// client's stamps.
	At      time.Time
	Samples int
	// Speech says whether its peak is above callaudio.SpeechPeak of full
	// scale (the fakes' energy VAD).
	Speech bool
}

// Commit is one input_audio_buffer.commit received.
type Commit struct {
	At    time.Time
	Final bool // vLLM's "final"
}

// Session is what a fake saw and did on one WebSocket.
type Session struct {
	// Query and Auth are the upgrade request's query and Authorization.
	Query, Auth string
	// Update is the type of the session update received and Model the
	// model it named.
	Update, Model string
	Frames        []Frame
	Commits       []Commit
	// LastSpeech is the receive stamp of the last speech frame.
	LastSpeech time.Time
	// StoppedAt is when speech_stopped was sent, AudioEndMs the
	// audio_end_ms it gave; FinalAt when the final transcript was sent
	// (taken before its write). Zero when not sent.
	StoppedAt  time.Time
	AudioEndMs float64
	FinalAt    time.Time
}

// FinalDelay is the fake's own delay from the last speech frame's
// arrival to its sending the final transcript.
func (s Session) FinalDelay() time.Duration { return s.FinalAt.Sub(s.LastSpeech) }

// fakeWS is what the two realtime fakes share: the refusal, the
// sessions' records, the frames' energy.
type fakeWS struct {
	mu       sync.Mutex
	sessions []*Session
}

// Sessions are copies of the sessions so far, oldest first.
func (f *fakeWS) Sessions() []Session {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]Session, len(f.sessions))
	for i, s := range f.sessions {
		out[i] = *s
		out[i].Frames = append([]Frame(nil), s.Frames...)
		out[i].Commits = append([]Commit(nil), s.Commits...)
	}
	return out
}

// conn is one session a fake accepted.
type conn struct {
	ctx context.Context
	ws  *websocket.Conn
	s   *Session
}

// send writes one event.
func (c *conn) send(v any) {
	b, _ := json.Marshal(v)
	c.ws.Write(c.ctx, websocket.MessageText, b)
}

// serve refuses the upgrade with refuse (when not 0), or accepts it,
// starts a session's record, sends hello and hands each client event
// with its receive stamp to the handler run returns, until the socket
// closes or the handler says stop; a message that is no JSON is answered
// with badJSON.
func (f *fakeWS) serve(w http.ResponseWriter, r *http.Request, refuse int, hello, badJSON any, run func(c *conn) func(ev clientEvent, at time.Time) (stop bool)) {
	if refuse != 0 {
		http.Error(w, fmt.Sprintf(`{"error":{"message":"refused with %d"}}`, refuse), refuse)
		return
	}
	ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{CompressionMode: websocket.CompressionDisabled})
	if err != nil {
		return
	}
	defer ws.CloseNow()
	ws.SetReadLimit(1 << 22)
	c := &conn{ctx: r.Context(), ws: ws, s: &Session{Query: r.URL.RawQuery, Auth: r.Header.Get("Authorization")}}
	f.mu.Lock()
	f.sessions = append(f.sessions, c.s)
	f.mu.Unlock()
	handle := run(c)
	c.send(hello)
	for {
		_, data, err := ws.Read(c.ctx)
		at := time.Now()
		if err != nil {
			return
		}
		var ev clientEvent
		if json.Unmarshal(data, &ev) != nil {
			c.send(badJSON)
			continue
		}
		if handle(ev, at) {
			return
		}
	}
}

// orHello is text, "hello world" when empty.
func orHello(text string) string {
	if text == "" {
		return "hello world"
	}
	return text
}

// frame records one append's audio and says whether it is speech.
func (f *fakeWS) frame(s *Session, at time.Time, audio string) (Frame, error) {
	pcm, err := base64.StdEncoding.DecodeString(audio)
	if err != nil {
		return Frame{}, err
	}
	fr := Frame{At: at, Samples: len(pcm) / 2, Speech: callaudio.PCMHasSpeech(pcm)}
	f.mu.Lock()
	s.Frames = append(s.Frames, fr)
	if fr.Speech {
		s.LastSpeech = at
	}
	f.mu.Unlock()
	return fr, nil
}

// set changes a session's record under the fake's lock.
func (f *fakeWS) set(fn func()) {
	f.mu.Lock()
	fn()
	f.mu.Unlock()
}

// start serves h until the test ends and returns its base URL.
func start(t testing.TB, h http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

// clientEvent holds the client events' fields the fakes read.
type clientEvent struct {
	Type    string          `json:"type"`
	Audio   string          `json:"audio"`
	Final   bool            `json:"final"`
	Model   *string         `json:"model"`
	Session json.RawMessage `json:"session"`
}

// Realtime is OpenAI's Realtime transcription session (GET /v1/realtime,
// any path): session.created (transcription_session.created when Beta),
// the session update answered with its .updated, PCM16 at Rate appended,
// an energy VAD that sends input_audio_buffer.speech_started at the
// first speech frame and speech_stopped + committed after HangoverMs of
// silence audio, then, Delay later, one
// conversation.item.input_audio_transcription.delta and .completed with
// Text. input_audio_buffer.commit ends the turn as speech_stopped does.
type Realtime struct {
	Text  string        // the transcript ("" : "hello world")
	Delay time.Duration // from speech_stopped (or the commit) to the transcript
	// HangoverMs is the silence audio after speech that ends a turn (0:
	// 200).
	HangoverMs int
	Rate       int // the audio's rate (0: 24000)
	Beta       bool
	// NoVAD never sends speech_stopped: only a commit ends the turn.
	NoVAD bool
	// Mute never sends a transcript.
	Mute bool
	// Drop closes the socket right after speech_started.
	Drop bool
	// Refuse refuses the upgrade with this HTTP status.
	Refuse int
	// ErrorMsg answers the session update with an error event.
	ErrorMsg string
	// EmptyCommit answers a commit with the error event
	// input_audio_buffer_commit_empty, as a server whose VAD committed
	// the audio while the commit was on its way, and transcribes as
	// that VAD would.
	EmptyCommit bool
	// Echo names upgrade request headers whose values the transcript
	// and an error event (ErrorMsg) quote (" heard VALUE").
	Echo []string
	// After, when set, is sent as a message of its own right after
	// speech_started (a text message, or binary when AfterBinary): a
	// message that is no event, a binary frame, a huge message.
	After       string
	AfterBinary bool

	fakeWS
}

// Start serves f until the test ends and returns its base URL.
func (f *Realtime) Start(t testing.TB) string { return start(t, f) }

func (f *Realtime) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rate, hang, text := f.Rate, f.HangoverMs, orHello(f.Text)
	if rate == 0 {
		rate = 24000
	}
	if hang == 0 {
		hang = 200
	}
	text += echoed(f.Echo, r.Header)
	prefix := "session"
	if f.Beta {
		prefix = "transcription_session"
	}
	hello := map[string]any{"type": prefix + ".created", "session": map[string]any{"type": "transcription"}}
	badJSON := map[string]any{"type": "error", "error": map[string]any{"message": "invalid JSON"}}
	f.serve(w, r, f.Refuse, hello, badJSON, func(c *conn) func(clientEvent, time.Time) bool {
		s := c.s
		var (
			item             int
			inSpeech         bool
			posMs, speechEnd float64 // audio position, end of the last speech frame
			silentMs         float64
		)
		itemID := func() string { return fmt.Sprintf("item_%d", item) }
		endTurn := func() {
			id := itemID()
			c.send(map[string]any{"type": "input_audio_buffer.committed", "item_id": id})
			if f.Mute {
				return
			}
			time.AfterFunc(f.Delay, func() {
				c.send(map[string]any{"type": "conversation.item.input_audio_transcription.delta", "item_id": id, "delta": strings.Fields(text)[0]})
				f.set(func() { s.FinalAt = time.Now() })
				c.send(map[string]any{"type": "conversation.item.input_audio_transcription.completed", "item_id": id, "transcript": text})
			})
		}
		return func(ev clientEvent, at time.Time) bool {
			switch ev.Type {
			case "session.update", "transcription_session.update":
				f.set(func() { s.Update, s.Model = ev.Type, modelOf(ev.Session) })
				if f.ErrorMsg != "" {
					c.send(map[string]any{"type": "error", "error": map[string]any{"type": "invalid_request_error", "message": f.ErrorMsg + echoed(f.Echo, r.Header)}})
					return false
				}
				c.send(map[string]any{"type": prefix + ".updated", "session": map[string]any{"type": "transcription"}})
			case "input_audio_buffer.append":
				fr, err := f.frame(s, at, ev.Audio)
				if err != nil {
					c.send(map[string]any{"type": "error", "error": map[string]any{"message": "invalid audio"}})
					return false
				}
				frameMs := float64(fr.Samples) * 1000 / float64(rate)
				if fr.Speech {
					if !inSpeech {
						inSpeech = true
						item++
						c.send(map[string]any{"type": "input_audio_buffer.speech_started", "item_id": itemID(), "audio_start_ms": int(posMs)})
						if f.Drop {
							return true
						}
						if f.After != "" {
							typ := websocket.MessageText
							if f.AfterBinary {
								typ = websocket.MessageBinary
							}
							c.ws.Write(c.ctx, typ, []byte(f.After))
						}
					}
					speechEnd, silentMs = posMs+frameMs, 0
				} else if inSpeech {
					silentMs += frameMs
					if silentMs >= float64(hang) && !f.NoVAD {
						inSpeech = false
						f.set(func() { s.StoppedAt, s.AudioEndMs = time.Now(), math.Round(speechEnd) })
						c.send(map[string]any{"type": "input_audio_buffer.speech_stopped", "item_id": itemID(), "audio_end_ms": int(math.Round(speechEnd))})
						endTurn()
					}
				}
				posMs += frameMs
			case "input_audio_buffer.commit":
				f.set(func() { s.Commits = append(s.Commits, Commit{At: at}) })
				if item == 0 {
					item++
				}
				if f.EmptyCommit {
					c.send(map[string]any{"type": "error", "error": map[string]any{"type": "invalid_request_error",
						"code": "input_audio_buffer_commit_empty", "message": "the buffer holds no audio"}})
				}
				inSpeech = false
				endTurn()
			}
			return false
		}
	})
}

// echoed is what a fake quotes of the request headers names (Echo), as
// a careless server does: " heard VALUE" for each.
func echoed(names []string, h http.Header) string {
	var b strings.Builder
	for _, name := range names {
		b.WriteString(" heard " + h.Get(name))
	}
	return b.String()
}

// cut is text in pieces of n bytes (the last one shorter), as deltas
// that split an echoed key across events.
func cut(text string, n int) []string {
	var out []string
	for len(text) > 0 {
		k := min(n, len(text))
		out = append(out, text[:k])
		text = text[k:]
	}
	return out
}

// modelOf is the model a session update names (GA or beta).
func modelOf(session json.RawMessage) string {
	var v struct {
		Audio struct {
			Input struct {
				Transcription struct{ Model string } `json:"transcription"`
			} `json:"input"`
		} `json:"audio"`
		Transcription struct{ Model string } `json:"input_audio_transcription"`
	}
	json.Unmarshal(session, &v)
	if m := v.Audio.Input.Transcription.Model; m != "" {
		return m
	}
	return v.Transcription.Model
}
