package stt

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/coder/websocket"

	"ttftlab/internal/callaudio"
	"ttftlab/internal/endpoint"
	"ttftlab/internal/wsstamp"
)

// A streaming turn (realtime, vllm-realtime) sends the caller's audio as
// a phone line does: frame i of FrameMs leaves at Start + i*FrameMs on
// the wall clock (each frame sleeps to its own deadline, computed from
// Start, so lateness never adds up), its send stamp taken right after its
// write returned; after the clip, silence frames at the same pace until
// the final transcript comes, or the protocol's silence ends, or Timeout
// passes. Meanwhile a reader takes the server's messages, each with the
// stamp of the socket read that completed it (internal/wsstamp).

// streamProto is one streaming protocol's events; the pacing, the socket
// and the failures are streamTurn's.
type streamProto interface {
	// rate is the sample rate the protocol takes.
	rate() int
	// open speaks the session's opening, after the upgrade and before
	// the first frame.
	open(ctx context.Context, t *streamTurn) error
	// silenceMs bounds the silence sent after the clip (0: until
	// Timeout).
	silenceMs(cfg Config) int
	// silenceOver is told that the silence after the clip ended with no
	// final transcript yet; it may send what asks for one (t.send, whose
	// failure it returns).
	silenceOver(ctx context.Context, t *streamTurn) error
	// handle reads one server event stamped ms on the turn clock into
	// t.res, with t.mu held; done says it was the final transcript.
	handle(t *streamTurn, ev wsEvent, ms float64) (done bool, err *Error)
}

// streaming registers a streaming protocol: api spoken at
// ws(s)://HOST/v1/realtime?query (when the base names no path of its
// own), a fresh proto a turn.
func streaming(api API, query string, proto func() streamProto) {
	protocols[api] = func(ctx context.Context, cfg Config, clip *callaudio.Clip) (*Result, error) {
		return streamTranscribe(ctx, cfg, clip, api, query, proto())
	}
}

// streamTurn is one utterance over a WebSocket.
type streamTurn struct {
	cfg     Config
	proto   streamProto
	ws      *wsstamp.Conn
	frameMs int
	// scrub takes the secrets the request sent (its key, its secret
	// headers) out of what the server says: its transcript, its errors.
	scrub *endpoint.Scrubber
	// mu guards res and speechSent between the sender and the reader.
	mu         sync.Mutex
	res        *Result
	speechSent bool // the clip's last speech frame has left

	final chan struct{} // closed by the reader at the final transcript
	failc chan *Error   // the reader's failure (one at most)
}

// streamTranscribe runs one streaming turn of proto at the endpoint's
// /v1/realtime?query.
func streamTranscribe(ctx context.Context, cfg Config, clip *callaudio.Clip, api API, query string, proto streamProto) (*Result, error) {
	if cfg.Endpoint == nil {
		return nil, &Error{Kind: KindConnect, Msg: "speech-to-text: no server given"}
	}
	rawURL, err := wsURL(cfg.Endpoint.Base, "/v1/realtime", query)
	if err != nil {
		return nil, &Error{Kind: KindConnect, Msg: err.Error(), Err: err}
	}
	rate := proto.rate()
	if clip.Rate != rate {
		clip = clip.Resample(rate)
	}
	frameMs := cfg.FrameMs
	if frameMs <= 0 {
		frameMs = callaudio.DefaultFrameMs
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	t := &streamTurn{cfg: cfg, proto: proto, frameMs: frameMs, scrub: cfg.Endpoint.Scrubber(),
		res:   &Result{API: api, Rate: rate, AudioMs: clip.DurationMs()},
		final: make(chan struct{}), failc: make(chan *Error, 1)}

	ws, err := wsDial(ctx, cfg.Endpoint, rawURL, cfg.Timeout)
	if err != nil {
		return nil, err
	}
	t.ws = ws
	defer ws.CloseNow()
	if err := proto.open(ctx, t); err != nil {
		var e *Error
		if errors.As(err, &e) {
			e.Msg = t.scrub.String(e.Msg)
		}
		return nil, err
	}

	// Every message is made before the first frame leaves.
	n := clip.Frames(frameMs)
	msgs := make([][]byte, n)
	for i := range msgs {
		msgs[i] = wsstamp.AppendAudio(clip.Frame(i, frameMs))
	}
	silence := wsstamp.AppendAudio(callaudio.Silence(rate, frameMs))
	speechEnd := clip.SpeechEndFrame(frameMs)
	if speechEnd < 0 {
		t.speechSent = true
	}

	rctx, stopReading := context.WithCancel(ctx)
	readerDone := make(chan struct{})
	start := time.Now()
	t.res.Start = start
	go func() {
		defer close(readerDone)
		t.read(rctx)
	}()
	stop := func() {
		stopReading()
		ws.CloseNow()
		<-readerDone
	}
	fail := func(e *Error) (*Result, error) {
		stop()
		// What the server said may echo a secret the request sent.
		e.Msg = t.scrub.String(e.Msg)
		p := *t.res
		e.Partial = &p
		return nil, e
	}

	frame := time.Duration(frameMs) * time.Millisecond
	sched := func(i int) time.Time { return start.Add(time.Duration(i) * frame) }
	var clipEnd time.Time
	for i := 0; i < n; i++ {
		if e := t.wait(ctx, sched(i), time.Time{}); e != nil {
			return fail(e)
		}
		if done := t.isFinal(); done {
			break
		}
		if err := ws.Write(ctx, websocket.MessageText, msgs[i]); err != nil {
			return fail(t.writeError(ctx, err))
		}
		at := time.Now()
		ms := t.ms(at)
		t.mu.Lock()
		if cfg.KeepFrames {
			t.res.Frames = append(t.res.Frames, ms)
		}
		if i == speechEnd {
			t.res.SpeechEndMs, t.speechSent = ms, true
		}
		t.res.SentMs = ms
		t.mu.Unlock()
		clipEnd = at
	}
	if clipEnd.IsZero() {
		clipEnd = time.Now()
	}
	deadline := clipEnd.Add(cfg.Timeout)

	limit := proto.silenceMs(cfg)
	for j := n; !t.isFinal(); j++ {
		if limit > 0 && (j-n)*frameMs >= limit {
			if err := proto.silenceOver(ctx, t); err != nil {
				var e *Error
				if !errors.As(err, &e) {
					e = t.writeError(ctx, err)
				}
				return fail(e)
			}
			break
		}
		if e := t.wait(ctx, sched(j), deadline); e != nil {
			return fail(e)
		}
		if t.isFinal() {
			break
		}
		if err := ws.Write(ctx, websocket.MessageText, silence); err != nil {
			return fail(t.writeError(ctx, err))
		}
		ms := t.ms(time.Now())
		t.mu.Lock()
		if cfg.KeepFrames {
			t.res.Frames = append(t.res.Frames, ms)
		}
		t.res.SilenceFrames++
		t.mu.Unlock()
	}
	if e := t.wait(ctx, time.Time{}, deadline); e != nil {
		return fail(e)
	}
	stop()
	return t.res, nil
}

// ms is at on the turn clock.
func (t *streamTurn) ms(at time.Time) float64 { return msSince(t.res.Start, at) }

// isFinal says whether the final transcript has come.
func (t *streamTurn) isFinal() bool {
	select {
	case <-t.final:
		return true
	default:
		return false
	}
}

// wait sleeps until `until` (zero: until the final transcript) and
// returns nil then, or at the final transcript; it returns the failure
// of the reader, of ctx, or of the deadline (when not zero) passing.
func (t *streamTurn) wait(ctx context.Context, until, deadline time.Time) *Error {
	var tick, dl <-chan time.Time
	if !until.IsZero() {
		d := time.Until(until)
		if d <= 0 {
			// Overdue (a busy machine held the sender back): the frame
			// leaves now, unless the turn is over.
			select {
			case e := <-t.failc:
				return e
			default:
			}
			if !deadline.IsZero() && !time.Now().Before(deadline) && !t.isFinal() {
				return t.timeoutError()
			}
			return nil
		}
		tm := time.NewTimer(d)
		defer tm.Stop()
		tick = tm.C
	}
	if !deadline.IsZero() {
		tm := time.NewTimer(time.Until(deadline))
		defer tm.Stop()
		dl = tm.C
	}
	select {
	case <-tick:
		return nil
	case <-t.final:
		return nil
	case e := <-t.failc:
		return e
	case <-ctx.Done():
		return wsCtxError(ctx.Err(), nil)
	case <-dl:
		select {
		case <-t.final:
			return nil
		default:
		}
		return t.timeoutError()
	}
}

// timeoutError is the final transcript's wait run out.
func (t *streamTurn) timeoutError() *Error {
	return &Error{Kind: KindTimeout,
		Msg: fmt.Sprintf("speech-to-text: no final transcript within %v of the caller's audio end", t.cfg.Timeout)}
}

// send writes messages of the protocol's own (not frames), in turn; a
// failed write is the turn's failure (writeError, an *Error).
func (t *streamTurn) send(ctx context.Context, msgs ...any) error {
	for _, v := range msgs {
		b, _ := json.Marshal(v) // maps of strings, numbers and bools
		if err := t.ws.Write(ctx, websocket.MessageText, b); err != nil {
			return t.writeError(ctx, err)
		}
	}
	return nil
}

// writeError is a failed write: the reader's failure when it saw why
// (the server closed), else the context's, else a dropped connection.
func (t *streamTurn) writeError(ctx context.Context, err error) *Error {
	select {
	case e := <-t.failc:
		return e
	case <-time.After(50 * time.Millisecond):
	}
	if ctx.Err() != nil {
		return wsCtxError(ctx.Err(), nil)
	}
	return &Error{Kind: KindDropped, Err: err, Msg: fmt.Sprintf("speech-to-text: the WebSocket closed mid-turn: %v", err)}
}

// read takes the server's messages until the final transcript, a failure
// or ctx's end.
func (t *streamTurn) read(ctx context.Context) {
	for {
		typ, data, at, err := t.ws.Read(ctx)
		if err != nil {
			if ctx.Err() == nil {
				t.failc <- readError(err)
			}
			return
		}
		if typ != websocket.MessageText {
			t.failc <- &Error{Kind: KindBadData, Msg: "speech-to-text: the server sent a binary message where JSON events are spoken"}
			return
		}
		ev, e := t.parseEvent(data)
		if e != nil {
			t.failc <- e
			return
		}
		t.mu.Lock()
		done, e := t.proto.handle(t, ev, t.ms(at))
		if done {
			// A server may echo the key: the whole transcript is
			// scrubbed once joined, so a key cut across deltas or items
			// is found too.
			t.res.Text = t.scrub.String(t.res.Text)
		}
		t.mu.Unlock()
		if e != nil {
			t.failc <- e
			return
		}
		if done {
			close(t.final)
			return
		}
	}
}

// firstEvent reads the server's first event (the session's creation)
// before the turn's clock starts, within the turn's Timeout; an error
// event is the turn's failure.
func (t *streamTurn) firstEvent(ctx context.Context) (wsEvent, error) {
	data, err := t.readFirst(ctx)
	if err != nil {
		return wsEvent{}, err
	}
	ev, e := t.parseEvent(data)
	if e != nil {
		return ev, e
	}
	if ev.Type == "error" {
		return ev, errorEvent(ev)
	}
	return ev, nil
}

// readFirst reads the server's first message.
func (t *streamTurn) readFirst(ctx context.Context) ([]byte, error) {
	rctx, cancel := context.WithTimeout(ctx, t.cfg.Timeout)
	defer cancel()
	typ, data, _, err := t.ws.Read(rctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil, wsCtxError(ctx.Err(), nil)
		}
		if rctx.Err() != nil {
			return nil, &Error{Kind: KindTimeout, Err: err,
				Msg: fmt.Sprintf("speech-to-text: the server opened no session within %v", t.cfg.Timeout)}
		}
		return nil, readError(err)
	}
	if typ != websocket.MessageText {
		return nil, &Error{Kind: KindBadData, Msg: "speech-to-text: the server sent a binary message where JSON events are spoken"}
	}
	return data, nil
}

// readError is a failed read: the connection closed mid-turn, or the
// server sent a message past the read limit.
func readError(err error) *Error {
	if errors.Is(err, websocket.ErrMessageTooBig) {
		return &Error{Kind: KindBadData, Err: err, Msg: fmt.Sprintf("speech-to-text: the server sent a message over %d bytes, more than any transcript event holds: "+
			"it is not transcribing the caller's audio", wsReadLimit)}
	}
	return &Error{Kind: KindDropped, Msg: "speech-to-text: the WebSocket closed mid-turn" + wsstamp.HowClosed(err), Err: err}
}

// wsEvent holds the fields of both protocols' server events that are read.
type wsEvent struct {
	Type         string          `json:"type"`
	ItemID       string          `json:"item_id"`
	AudioStartMs *float64        `json:"audio_start_ms"`
	AudioEndMs   *float64        `json:"audio_end_ms"`
	Delta        string          `json:"delta"`
	Transcript   string          `json:"transcript"`
	Text         string          `json:"text"`
	Error        json.RawMessage `json:"error"`
}

// parseEvent reads one server event; one that is none is quoted in the
// error, scrubbed of the request's secrets before it is shortened (a
// secret cut by the shortening would escape the scrubbing after).
func (t *streamTurn) parseEvent(data []byte) (wsEvent, *Error) {
	var ev wsEvent
	if err := json.Unmarshal(data, &ev); err != nil || ev.Type == "" {
		shown := t.scrub.Bytes(data)
		if len(shown) > 120 {
			shown = shown[:120]
		}
		return ev, &Error{Kind: KindBadData, Err: err, Msg: fmt.Sprintf("speech-to-text: the server sent a message that is no event: %q", shown)}
	}
	return ev, nil
}

// errorEvent is an error event as stt_error (wsstamp.ErrorEvent reads
// its message).
func errorEvent(ev wsEvent) *Error {
	msg, _ := wsstamp.ErrorEvent(ev.Error)
	return &Error{Kind: KindServer, Msg: "speech-to-text server error: " + msg}
}

// errorCode is an OpenAI error event's error.code ("" for none).
func errorCode(ev wsEvent) string {
	_, code := wsstamp.ErrorEvent(ev.Error)
	return code
}

// partial stamps the first partial transcript, at ms.
func (t *streamTurn) partial(ms float64) {
	if t.res.FirstPartialMs == nil {
		t.res.FirstPartialMs = ptrMs(ms)
	}
}

// tooLong is a transcript past MaxTranscript.
func tooLong(n int) *Error {
	return &Error{Kind: KindBadData, Msg: fmt.Sprintf("speech-to-text: the transcript passed %d bytes (%d so far), more than any utterance holds: "+
		"the server is not transcribing the caller's audio", MaxTranscript, n)}
}

// ptrMs is a stamp for an optional field.
func ptrMs(v float64) *float64 { return &v }
