// Package realtimetest is a fake Realtime speech-to-speech server for
// tests, in OpenAI's GA dialect or the beta one: an energy VAD over the
// audio it receives, an answer of audio, transcript and text deltas on a
// known schedule, and the faults a session meets (an error event, a
// dropped socket, a VAD that never says the caller stopped, a refused
// upgrade, audio sent after a cancel). It records every event it
// received with the moment it read it, and the moments it sent what the
// client measures, on the test's own clock.
package realtimetest

import (
	"context"
	"encoding/base64"
	"encoding/binary"
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

// Server is the fake. Its zero value answers each utterance, 200 ms of
// silence after its last speech frame, 50 ms later with 10 audio deltas
// of 100 ms at real time, in the GA dialect.
type Server struct {
	// Beta speaks the beta names (response.audio.delta, a session
	// without "type").
	Beta bool
	// StopAfterMs is the silence audio after the last speech frame that
	// ends the caller's utterance (speech_stopped) (0: 200).
	StopAfterMs int
	// Delay is from speech_stopped to the first audio delta.
	Delay time.Duration
	// Deltas audio deltas of DeltaMs each (0: 10 of 100 ms), Pace apart
	// (0: DeltaMs, real time; less is faster than real time).
	Deltas  int
	DeltaMs int
	Pace    time.Duration
	// Transcript and Text are sent in pieces, one beside each audio
	// delta (Transcript) and with the first (Text whole); "" sends none.
	Transcript, Text string
	// AfterCancelMs is the audio the answer still sends after
	// response.cancel, in deltas of DeltaMs (the last one shorter), at
	// Pace, before its response.done (status cancelled). A response
	// the caller speaks over holds its deltas from the speech_started it
	// sends until the cancel, so what comes after the cancel is exactly
	// this much.
	AfterCancelMs int
	// ErrorOn answers utterance k (from 1) with an error event instead of
	// a response; ErrorMsg is its message ("" : "the model failed"),
	// EchoAuth appends the upgrade's Authorization to it, as a careless
	// server does.
	ErrorOn  int
	ErrorMsg string
	EchoAuth bool
	// DropOn closes the socket (no close frame) a Pace after utterance
	// k's first audio delta.
	DropOn int
	// NoSpeechStopped never ends an utterance.
	NoSpeechStopped bool
	// StallOn creates utterance k's response and never sends a delta or
	// its response.done.
	StallOn int
	// NoResponseCreated never announces a response: its deltas and
	// response.done come without a response.created before them.
	NoResponseCreated bool
	// DeafWhileAnswering hears nothing while a response streams: a
	// caller who speaks over it gets no speech_started until it ended.
	DeafWhileAnswering bool
	// Refuse refuses the upgrade with this HTTP status.
	Refuse int

	mu       sync.Mutex
	sessions []*Session
}

// Received is one client event as the fake read it: At is the clock read
// right after the read returned, in the test's own process.
type Received struct {
	Type string
	At   time.Time
	Raw  json.RawMessage
	// Samples and Speech are an append's: its samples, and whether its
	// peak is above callaudio.SpeechPeak of full scale.
	Samples int
	Speech  bool
}

// Answer is one response the fake made: when it sent speech_stopped
// and the audio_end_ms it gave, its first audio delta (the clock read
// right before its write), when it read the cancel, and the audio bytes
// it sent after that.
type Answer struct {
	ID               string
	StoppedAt        time.Time
	AudioEndMs       float64
	FirstAudioAt     time.Time
	CancelAt         time.Time
	AfterCancelBytes int
	AudioBytes       int
}

// Session is what the fake saw and did on one WebSocket.
type Session struct {
	// Query and Auth are the upgrade request's query and Authorization.
	Query, Auth string
	Events      []Received
	Answers     []Answer
}

// Appends are the session's input_audio_buffer.append events.
func (s Session) Appends() []Received {
	var out []Received
	for _, r := range s.Events {
		if r.Type == "input_audio_buffer.append" {
			out = append(out, r)
		}
	}
	return out
}

// Of are the session's events of one type.
func (s Session) Of(typ string) []Received {
	var out []Received
	for _, r := range s.Events {
		if r.Type == typ {
			out = append(out, r)
		}
	}
	return out
}

// Sessions are copies of the sessions so far, oldest first.
func (f *Server) Sessions() []Session {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]Session, len(f.sessions))
	for i, s := range f.sessions {
		out[i] = *s
		out[i].Events = append([]Received(nil), s.Events...)
		out[i].Answers = append([]Answer(nil), s.Answers...)
	}
	return out
}

// Start serves f on loopback until the test ends and returns its base URL.
func (f *Server) Start(t testing.TB) string {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return srv.URL
}

// conn is one session the fake accepted. Its writes are serialized, so
// that a response's deltas and the VAD's events go out in the order the
// fake decided them.
type conn struct {
	f     *Server
	ctx   context.Context
	ws    *websocket.Conn
	s     *Session
	auth  string
	wmu   sync.Mutex
	names names
	rate  int

	// The response streaming (nil: none); its state under f.mu.
	cur *response
}

// response is one answer being sent.
type response struct {
	idx       int // in Session.Answers
	id, item  string
	held      bool          // the caller spoke over it: deltas wait for the cancel
	cancelled chan struct{} // closed at response.cancel
	once      sync.Once
}

// names are a dialect's event names.
type names struct{ audio, transcript, text, audioDone string }

var (
	gaNames   = names{"response.output_audio.delta", "response.output_audio_transcript.delta", "response.output_text.delta", "response.output_audio.done"}
	betaNames = names{"response.audio.delta", "response.audio_transcript.delta", "response.text.delta", "response.audio.done"}
)

// send writes one event.
func (c *conn) send(v any) error {
	b, _ := json.Marshal(v)
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.ws.Write(c.ctx, websocket.MessageText, b)
}

func (f *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if f.Refuse != 0 {
		http.Error(w, fmt.Sprintf(`{"error":{"message":"refused with %d"}}`, f.Refuse), f.Refuse)
		return
	}
	ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{CompressionMode: websocket.CompressionDisabled})
	if err != nil {
		return
	}
	defer ws.CloseNow()
	ws.SetReadLimit(1 << 22)
	c := &conn{f: f, ctx: r.Context(), ws: ws, auth: r.Header.Get("Authorization"), rate: 24000,
		s: &Session{Query: r.URL.RawQuery, Auth: r.Header.Get("Authorization")}, names: gaNames}
	f.mu.Lock()
	f.sessions = append(f.sessions, c.s)
	f.mu.Unlock()
	hello := map[string]any{"type": "session.created", "session": map[string]any{"type": "realtime", "object": "realtime.session",
		"audio": map[string]any{"input": map[string]any{"format": map[string]any{"type": "audio/pcm", "rate": 24000}}}}}
	if f.Beta {
		c.names = betaNames
		hello = map[string]any{"type": "session.created", "session": map[string]any{"object": "realtime.session",
			"modalities": []string{"audio", "text"}, "input_audio_format": "pcm16", "output_audio_format": "pcm16"}}
	}
	c.send(hello)
	c.serve()
}

// serve reads the client's events until the socket closes.
func (c *conn) serve() {
	f := c.f
	stopAfter := f.StopAfterMs
	if stopAfter == 0 {
		stopAfter = 200
	}
	var (
		utter            int     // utterances begun
		inSpeech         bool    // within an utterance
		posMs, speechEnd float64 // audio position, end of the last speech frame
		silentMs         float64
	)
	for {
		_, data, err := c.ws.Read(c.ctx)
		at := time.Now()
		if err != nil {
			return
		}
		var ev struct {
			Type  string `json:"type"`
			Audio string `json:"audio"`
		}
		if json.Unmarshal(data, &ev) != nil {
			c.send(map[string]any{"type": "error", "error": map[string]any{"type": "invalid_request_error", "message": "invalid JSON"}})
			continue
		}
		rec := Received{Type: ev.Type, At: at, Raw: append(json.RawMessage(nil), data...)}
		if ev.Type == "input_audio_buffer.append" {
			pcm, err := base64.StdEncoding.DecodeString(ev.Audio)
			if err != nil {
				c.send(map[string]any{"type": "error", "error": map[string]any{"type": "invalid_request_error", "message": "invalid audio"}})
				continue
			}
			rec.Samples, rec.Raw, rec.Speech = len(pcm)/2, nil, callaudio.PCMHasSpeech(pcm)
		}
		f.mu.Lock()
		c.s.Events = append(c.s.Events, rec)
		f.mu.Unlock()

		switch ev.Type {
		case "session.update":
			c.send(map[string]any{"type": "session.updated", "session": json.RawMessage(sessionOf(data))})
		case "input_audio_buffer.append":
			frameMs := float64(rec.Samples) * 1000 / float64(c.rate)
			f.mu.Lock()
			deaf := f.DeafWhileAnswering && c.cur != nil
			f.mu.Unlock()
			if deaf {
				rec.Speech = false
			}
			if rec.Speech {
				if !inSpeech {
					inSpeech = true
					utter++
					c.speechStarted(utter, posMs)
				}
				speechEnd, silentMs = posMs+frameMs, 0
			} else if inSpeech {
				silentMs += frameMs
				if silentMs >= float64(stopAfter) && !f.NoSpeechStopped {
					inSpeech = false
					c.speechStopped(utter, speechEnd)
				}
			}
			posMs += frameMs
		case "response.cancel":
			f.mu.Lock()
			r := c.cur
			if r != nil {
				c.s.Answers[r.idx].CancelAt = at
			}
			f.mu.Unlock()
			if r == nil {
				c.send(map[string]any{"type": "error", "error": map[string]any{"type": "invalid_request_error",
					"code": "response_cancel_not_active", "message": "there is no active response"}})
				continue
			}
			r.once.Do(func() { close(r.cancelled) })
		case "conversation.item.truncate":
			var tr struct {
				ItemID string `json:"item_id"`
			}
			json.Unmarshal(data, &tr)
			c.send(map[string]any{"type": "conversation.item.truncated", "item_id": tr.ItemID})
		}
	}
}

// sessionOf is the session a session.update carried.
func sessionOf(data []byte) []byte {
	var v struct {
		Session json.RawMessage `json:"session"`
	}
	json.Unmarshal(data, &v)
	if len(v.Session) == 0 {
		return []byte("{}")
	}
	return v.Session
}

// speechStarted sends utterance k's speech_started; a response still
// streaming holds its deltas from now until the cancel.
func (c *conn) speechStarted(k int, posMs float64) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.f.mu.Lock()
	if c.cur != nil {
		c.cur.held = true
	}
	c.f.mu.Unlock()
	b, _ := json.Marshal(map[string]any{"type": "input_audio_buffer.speech_started", "item_id": fmt.Sprintf("item_in_%d", k), "audio_start_ms": int(math.Round(posMs))})
	c.ws.Write(c.ctx, websocket.MessageText, b)
}

// speechStopped ends utterance k and answers it.
func (c *conn) speechStopped(k int, endMs float64) {
	f := c.f
	at := time.Now()
	c.send(map[string]any{"type": "input_audio_buffer.speech_stopped", "item_id": fmt.Sprintf("item_in_%d", k), "audio_end_ms": int(math.Round(endMs))})
	c.send(map[string]any{"type": "input_audio_buffer.committed", "item_id": fmt.Sprintf("item_in_%d", k)})
	if k == f.ErrorOn {
		msg := f.ErrorMsg
		if msg == "" {
			msg = "the model failed"
		}
		if f.EchoAuth {
			msg += " for " + c.auth
		}
		c.send(map[string]any{"type": "error", "error": map[string]any{"type": "server_error", "code": "server_error", "message": msg}})
		return
	}
	r := &response{id: fmt.Sprintf("resp_%d", k), item: fmt.Sprintf("item_out_%d", k), cancelled: make(chan struct{})}
	f.mu.Lock()
	r.idx = len(c.s.Answers)
	c.s.Answers = append(c.s.Answers, Answer{ID: r.id, StoppedAt: at, AudioEndMs: math.Round(endMs)})
	c.cur = r
	f.mu.Unlock()
	if !f.NoResponseCreated {
		c.send(map[string]any{"type": "response.created", "response": map[string]any{"id": r.id, "object": "realtime.response", "status": "in_progress"}})
	}
	if k == f.StallOn {
		return
	}
	go c.answer(k, r)
}

// answer sends response r of utterance k on its schedule.
func (c *conn) answer(k int, r *response) {
	f := c.f
	n, deltaMs, pace := f.Deltas, f.DeltaMs, f.Pace
	if n == 0 {
		n = 10
	}
	if deltaMs == 0 {
		deltaMs = 100
	}
	if pace == 0 {
		pace = time.Duration(deltaMs) * time.Millisecond
	}
	words := pieces(f.Transcript, n)
	ids := map[string]any{"response_id": r.id, "item_id": r.item, "output_index": 0, "content_index": 0}
	with := func(m map[string]any) map[string]any {
		for k, v := range ids {
			m[k] = v
		}
		return m
	}
	// delta sends one audio delta of ms (and its transcript piece);
	// false when the socket failed.
	delta := func(ms int, word string, first, after bool) bool {
		pcm := make([]byte, 2*c.rate*ms/1000)
		for i := 0; i+1 < len(pcm); i += 2 {
			binary.LittleEndian.PutUint16(pcm[i:], uint16(int16(3000*math.Sin(float64(i)/8))))
		}
		b, _ := json.Marshal(with(map[string]any{"type": c.names.audio, "delta": base64.StdEncoding.EncodeToString(pcm)}))
		c.wmu.Lock()
		f.mu.Lock()
		held := r.held && !after
		f.mu.Unlock()
		if held {
			c.wmu.Unlock()
			return true
		}
		at := time.Now()
		err := c.ws.Write(c.ctx, websocket.MessageText, b)
		c.wmu.Unlock()
		f.mu.Lock()
		a := &c.s.Answers[r.idx]
		if first {
			a.FirstAudioAt = at
		}
		a.AudioBytes += len(pcm)
		if after {
			a.AfterCancelBytes += len(pcm)
		}
		f.mu.Unlock()
		if err != nil {
			return false
		}
		if word != "" {
			c.send(with(map[string]any{"type": c.names.transcript, "delta": word}))
		}
		if first && f.Text != "" {
			c.send(with(map[string]any{"type": c.names.text, "delta": f.Text}))
		}
		return true
	}
	done := func(status string) {
		f.mu.Lock()
		if c.cur == r {
			c.cur = nil
		}
		f.mu.Unlock()
		c.send(with(map[string]any{"type": c.names.audioDone}))
		c.send(map[string]any{"type": "response.done", "response": map[string]any{"id": r.id, "object": "realtime.response", "status": status}})
	}
	sleep := func(d time.Duration) bool {
		select {
		case <-time.After(d):
			return true
		case <-r.cancelled:
			return false
		case <-c.ctx.Done():
			return false
		}
	}
	cancelled := false
	if !sleep(f.Delay) {
		cancelled = true
	}
	next := time.Now()
	for i := 0; i < n && !cancelled; i++ {
		f.mu.Lock()
		held := r.held
		f.mu.Unlock()
		if held {
			// Hold until the cancel.
			select {
			case <-r.cancelled:
			case <-c.ctx.Done():
			}
			cancelled = true
			break
		}
		if !delta(deltaMs, words[i], i == 0, false) {
			return
		}
		if i == 0 && k == f.DropOn {
			// A pace later, so that the delta is read before the
			// close (a socket closed with client frames unread is
			// reset, which may discard what the client had not read).
			time.Sleep(pace)
			c.ws.CloseNow()
			return
		}
		next = next.Add(pace)
		if i < n-1 && !sleep(time.Until(next)) {
			cancelled = true
		}
	}
	if c.ctx.Err() != nil {
		return
	}
	if !cancelled {
		done("completed")
		return
	}
	for left, i := f.AfterCancelMs, 0; left > 0; i++ {
		ms := min(left, deltaMs)
		if i > 0 {
			time.Sleep(pace)
		}
		if !delta(ms, "", false, true) {
			return
		}
		left -= ms
	}
	done("cancelled")
}

// pieces cuts text into n pieces of words (some "" when fewer words).
func pieces(text string, n int) []string {
	out := make([]string, n)
	words := strings.Fields(text)
	for i, w := range words {
		j := i * n / max(len(words), 1)
		if out[j] != "" || i > 0 {
			out[j] += " "
		}
		out[j] += w
	}
	return out
}
