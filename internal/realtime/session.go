package realtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/coder/websocket"

	"ttftlab/internal/artifact"
	"ttftlab/internal/audio"
	"ttftlab/internal/callaudio"
	"ttftlab/internal/endpoint"
	"ttftlab/internal/turn"
	"ttftlab/internal/wsstamp"
)

// A session is one goroutine that sends the caller's audio, frame i of
// the whole session at start + i*FrameMs on the wall clock (each frame
// sleeps to its own deadline, so lateness never adds up), and handles
// the server's events between two frames as they come: a reader
// goroutine takes each message off the socket with its receive stamp
// (internal/wsstamp) and hands it over. A frame's send stamp is taken
// right after its write returned; the turn's clock starts right before
// the write of its first frame.

// readLimit bounds one server message: an audio delta is a few hundred
// ms of audio, tens of kilobytes in base64.
const readLimit = 1 << 24

// maxText bounds a turn's transcript and text: more is no answer.
const maxText = 1 << 20

// DefaultConnectTimeout bounds the upgrade and the session's opening.
const DefaultConnectTimeout = 10 * time.Second

// session is one Run.
type session struct {
	cfg     Config
	turns   []Turn
	frameMs int
	frame   time.Duration
	rate    int
	scrub   *endpoint.Scrubber
	ws      *wsstamp.Conn
	res     *Result

	start time.Time   // frame i is due at start + i*frame
	sent  []time.Time // every frame's send stamp, in order
	ts    []*turnState
	// next is the turn to begin, at the first frame due at or after
	// ready (readySet).
	next     int
	ready    time.Time
	readySet bool
	speaking *turnState // the turn whose clip is being sent
	resps    map[string]*turnState
	lastResp *turnState // the turn of the latest response (events naming none)
	nresp    int
	// cancelSent says the client sent response.cancel: a server's
	// "no active response" after it is a race, no failure.
	cancelSent bool

	evc   chan inEvent
	failc chan *Error
}

// turnState is one turn as it runs.
type turnState struct {
	rec        artifact.RealtimeTurn
	msgs       [][]byte // its frames' messages, made before the session
	speechEnd  int      // its last speech frame, -1 without
	sentFrames int
	start      time.Time
	speechSent bool
	deadline   time.Time // speech end + TurnTimeout, once it left
	stopped    bool      // speech_stopped came
	resp       string    // its response's id
	respEnded  bool
	itemID     string // the answer's audio item
	audioBytes int
	// The answer as a speaker plays it from its first delta, each delta
	// placed after the one before (audio.Place), up to the cancel.
	placed  []audio.Played
	pb      audio.Playback
	prevEnd float64

	transcript, text strings.Builder

	// The barge-in: barge when BargeAfterMs is set and a turn follows;
	// onsetDue once the first audio came; onset when the next turn began;
	// bargeIn when that was over the answer; acted once the cancel (and
	// truncate) left or were found needless.
	barge      bool
	bargeAfter time.Duration
	onsetDue   time.Time
	onset      time.Time
	bargeIn    bool
	cancelDue  time.Time
	acted      bool
	cancelAt   time.Time
	cancelled  bool // response.cancel left (the response was streaming)
	afterBytes int
	lastAfter  time.Time
	ended      bool
}

// inEvent is a server event and the receive stamp of the read that
// completed it.
type inEvent struct {
	ev event
	at time.Time
}

func newSession(cfg Config, turns []Turn) *session {
	if cfg.FrameMs <= 0 {
		cfg.FrameMs = callaudio.DefaultFrameMs
	}
	if cfg.TurnTimeout <= 0 {
		cfg.TurnTimeout = DefaultTurnTimeout
	}
	if cfg.ConnectTimeout <= 0 {
		cfg.ConnectTimeout = DefaultConnectTimeout
	}
	if cfg.CancelAfter <= 0 {
		cfg.CancelAfter = DefaultCancelAfter
	}
	s := &session{cfg: cfg, turns: turns, frameMs: cfg.FrameMs, frame: time.Duration(cfg.FrameMs) * time.Millisecond,
		rate: DefaultRate, scrub: cfg.Endpoint.Scrubber(), res: &Result{Rate: DefaultRate},
		resps: map[string]*turnState{}, evc: make(chan inEvent, 256), failc: make(chan *Error, 1)}
	return s
}

// prepare makes every turn's frames: the clip at the session's rate, a
// short last frame filled with silence (the line sends whole frames, so
// the server's audio positions are frames' bounds).
func (s *session) prepare(i int) *turnState {
	t := s.turns[i]
	clip := t.Clip
	if clip.Rate != s.rate {
		clip = clip.Resample(s.rate)
	}
	n := clip.Frames(s.frameMs)
	whole := 2 * clip.FrameSamples(s.frameMs)
	ts := &turnState{msgs: make([][]byte, n), speechEnd: clip.SpeechEndFrame(s.frameMs)}
	for j := range ts.msgs {
		pcm := clip.Frame(j, s.frameMs)
		if len(pcm) < whole {
			pcm = append(pcm, make([]byte, whole-len(pcm))...)
		}
		ts.msgs[j] = wsstamp.AppendAudio(pcm)
	}
	ts.rec = artifact.RealtimeTurn{Turn: i + 1, Said: clip.Text, AudioMs: turn.RoundUs(clip.DurationMs())}
	if t.BargeAfterMs != nil && i+1 < len(s.turns) {
		ts.barge = true
		ts.bargeAfter = time.Duration(*t.BargeAfterMs * float64(time.Millisecond))
	}
	return ts
}

func (s *session) run(ctx context.Context) (*Result, error) {
	query := ""
	if m := s.cfg.Endpoint.Model; m != "" {
		query = "model=" + url.QueryEscape(m)
	}
	rawURL, err := wsstamp.URL(s.cfg.Endpoint.Base, "/v1/realtime", query)
	if err != nil {
		return nil, &Error{Kind: KindConnect, Err: err, Msg: "realtime: bad server URL " + err.Error()}
	}
	// Every frame is made before the session opens.
	pending := make([]*turnState, len(s.turns))
	for i := range s.turns {
		pending[i] = s.prepare(i)
	}
	silence := wsstamp.AppendAudio(callaudio.Silence(s.rate, s.frameMs))

	ws, err := s.dial(ctx, rawURL)
	if err != nil {
		return nil, err
	}
	s.ws = ws
	defer ws.CloseNow()
	if e := s.open(ctx); e != nil {
		e.Msg = s.scrub.String(e.Msg)
		return nil, e
	}

	rctx, stopReading := context.WithCancel(ctx)
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		s.read(rctx)
	}()
	stop := func() {
		stopReading()
		ws.CloseNow()
		<-readerDone
	}
	fail := func(e *Error) (*Result, error) {
		stop()
		e.Msg = s.scrub.String(e.Msg)
		e.Partial = s.result()
		return nil, e
	}

	s.readySet = true
	for slot := 0; ; slot++ {
		if slot > 0 {
			if e := s.wait(ctx, s.start.Add(time.Duration(slot)*s.frame)); e != nil {
				return fail(e)
			}
		}
		if s.done() {
			break
		}
		pre := time.Now()
		if slot == 0 {
			s.start, s.res.Start = pre, pre
		}
		msg, t := silence, s.speaking
		if t == nil && s.next < len(pending) && s.readySet && !pre.Before(s.ready) {
			t = pending[s.next]
			s.begin(t, pre)
		}
		if t != nil {
			msg = t.msgs[t.sentFrames]
		}
		if err := s.write(ctx, msg); err != nil {
			return fail(s.writeError(ctx, err))
		}
		at := time.Now()
		s.sent = append(s.sent, at)
		if t != nil {
			if t.sentFrames == t.speechEnd {
				t.rec.SpeechEndMs = t.ms(at)
			}
			t.sentFrames++
			if t.sentFrames == t.speechEnd+1 || (t.speechEnd < 0 && t.sentFrames == 1) {
				t.speechSent = true
				t.deadline = at.Add(s.cfg.TurnTimeout)
			}
			if t.sentFrames == len(t.msgs) {
				s.speaking = nil
				s.checkEnd(t)
			}
		}
	}
	stop()
	return s.result(), nil
}

// begin starts turn t, its first frame about to leave at pre: the turn
// before it, when it barges in, learns its onset.
func (s *session) begin(t *turnState, pre time.Time) {
	t.start = pre
	s.ts = append(s.ts, t)
	s.next++
	s.readySet = false
	s.speaking = t
	if len(s.ts) < 2 {
		return
	}
	p := s.ts[len(s.ts)-2]
	if !p.barge || p.onsetDue.IsZero() || p.acted {
		return
	}
	p.onset = pre
	// Still streaming, or still playing: the speaker's end of the last
	// delta is ahead.
	if !p.respEnded || p.ms(pre) < p.pb.EndMs {
		p.bargeIn = true
		p.rec.BargeOnsetMs = ptr(p.ms(pre))
		p.cancelDue = pre.Add(s.cfg.CancelAfter)
		return
	}
	// The answer had ended and played out: the caller just spoke next.
	p.acted = true
	s.checkEnd(p)
}

// done says whether the session is over: every turn begun and ended.
func (s *session) done() bool {
	if s.next < len(s.turns) {
		return false
	}
	for _, t := range s.ts {
		if !t.ended {
			return false
		}
	}
	return true
}

// checkEnd ends t when its clip has left, its response ended and its
// barge-in, if any, is done; the next turn then begins at the next frame,
// unless it barges in at its own time.
func (s *session) checkEnd(t *turnState) {
	if t.ended || t.sentFrames < len(t.msgs) || !t.respEnded {
		return
	}
	if t.barge && !t.onsetDue.IsZero() && !t.acted {
		return
	}
	t.ended = true
	if t == s.ts[len(s.ts)-1] && !s.readySet {
		s.ready, s.readySet = time.Now(), true
	}
}

// ms is at on t's clock, to the microsecond.
func (t *turnState) ms(at time.Time) float64 {
	return turn.RoundUs(float64(at.Sub(t.start)) / float64(time.Millisecond))
}

// playedBy is the ms of the answer a speaker had played by tMs on the
// turn's clock.
func (t *turnState) playedBy(tMs float64) float64 {
	var sum float64
	for _, p := range t.placed {
		sum += math.Max(0, math.Min(tMs-p.StartMs, p.EndMs-p.StartMs))
	}
	return sum
}

// wait handles the server's events until `until`, or returns the
// session's failure; it returns early once the session is done.
func (s *session) wait(ctx context.Context, until time.Time) *Error {
	tm := time.NewTimer(time.Until(until))
	defer tm.Stop()
	for {
		if s.done() {
			return nil
		}
		var next time.Time
		var dueTurn *turnState
		for _, t := range s.ts {
			if t.bargeIn && !t.acted && (next.IsZero() || t.cancelDue.Before(next)) {
				next, dueTurn = t.cancelDue, t
			}
		}
		var late *turnState
		for _, t := range s.ts {
			if !t.ended && !t.deadline.IsZero() && (late == nil || t.deadline.Before(late.deadline)) {
				late = t
			}
		}
		var cancelC, lateC <-chan time.Time
		var timers []*time.Timer
		if dueTurn != nil {
			ct := time.NewTimer(time.Until(next))
			timers = append(timers, ct)
			cancelC = ct.C
		}
		if late != nil {
			lt := time.NewTimer(time.Until(late.deadline))
			timers = append(timers, lt)
			lateC = lt.C
		}
		woke, e := s.waitOne(ctx, tm.C, cancelC, lateC, dueTurn, late)
		for _, x := range timers {
			x.Stop()
		}
		if e != nil || woke {
			return e
		}
	}
}

// waitOne waits for one of: the frame's time (woke), an event, a
// failure, the context, the barge-in's cancel time, a turn's deadline.
func (s *session) waitOne(ctx context.Context, tick, cancelC, lateC <-chan time.Time, dueTurn, late *turnState) (woke bool, e *Error) {
	select {
	case <-tick:
		return true, nil
	case in := <-s.evc:
		return false, s.handle(ctx, in.ev, in.at)
	case e := <-s.failc:
		return false, e
	case <-ctx.Done():
		return false, ctxError(ctx.Err())
	case <-cancelC:
		return false, s.act(ctx, dueTurn, "timeout")
	case <-lateC:
		// Events already read come first: they may end the turn.
		for {
			select {
			case in := <-s.evc:
				if e := s.handle(ctx, in.ev, in.at); e != nil {
					return false, e
				}
				continue
			default:
			}
			break
		}
		switch {
		case late.ended:
			return false, nil
		case !late.stopped:
			return false, &Error{Kind: KindNoSpeechStopped, Msg: fmt.Sprintf("realtime: turn %d: the server never said the caller stopped (no input_audio_buffer.speech_stopped within %v of the speech end)", late.rec.Turn, s.cfg.TurnTimeout)}
		}
		return false, &Error{Kind: KindTimeout, Msg: fmt.Sprintf("realtime: turn %d: no response.done within %v of the speech end", late.rec.Turn, s.cfg.TurnTimeout)}
	}
}

// act cuts the answer of t when the caller barged in: response.cancel
// while the response streams, then conversation.item.truncate at the
// audio played by now (whole ms). The cut's stamp is taken right before
// the cancel's write: a delta received after it is audio after the
// cancel, since the server cannot have sent it in answer to anything
// later (a stamp after the write returned may come after the server's
// answer to it, on loopback).
func (s *session) act(ctx context.Context, t *turnState, on string) *Error {
	t.acted = true
	pre := time.Now()
	played := math.Floor(t.playedBy(t.ms(pre)))
	t.cancelAt = pre
	t.rec.CancelMs, t.rec.CancelOn, t.rec.PlayedMs = ptr(t.ms(pre)), on, ptr(played)
	if !t.respEnded {
		t.cancelled, s.cancelSent = true, true
		if err := s.send(ctx, map[string]any{"type": "response.cancel"}); err != nil {
			return s.writeError(ctx, err)
		}
		s.keep(t, "response.cancel", pre, true)
	}
	if t.itemID != "" {
		at := time.Now()
		if err := s.send(ctx, map[string]any{"type": "conversation.item.truncate", "item_id": t.itemID, "content_index": 0, "audio_end_ms": int64(played)}); err != nil {
			return s.writeError(ctx, err)
		}
		s.keep(t, "conversation.item.truncate", at, true)
	}
	s.checkEnd(t)
	return nil
}

// keep records an event of t's timeline when asked to.
func (s *session) keep(t *turnState, typ string, at time.Time, sent bool) {
	if s.cfg.KeepEvents && t != nil {
		t.rec.Events = append(t.rec.Events, artifact.RealtimeEvent{Type: typ, AtMs: t.ms(at), Sent: sent})
	}
}

// latest is the turn begun last.
func (s *session) latest() *turnState {
	if len(s.ts) == 0 {
		return nil
	}
	return s.ts[len(s.ts)-1]
}

// handle reads one server event into the turns.
func (s *session) handle(ctx context.Context, ev event, at time.Time) *Error {
	cur := s.latest()
	switch ev.Type {
	case "error":
		s.keep(cur, ev.Type, at, false)
		if s.cancelSent && errorCode(ev) == "response_cancel_not_active" {
			// The response ended as the cancel went.
			return nil
		}
		return errorEvent(ev)
	case "input_audio_buffer.speech_started":
		s.keep(cur, ev.Type, at, false)
		if cur.rec.SpeechStartedMs == nil {
			cur.rec.SpeechStartedMs = ptr(cur.ms(at))
			if ev.AudioStartMs != nil {
				cur.rec.ServerAudioStartMs = ptr(s.audioAt(cur, *ev.AudioStartMs))
			}
		}
		if len(s.ts) > 1 {
			if p := s.ts[len(s.ts)-2]; p.bargeIn {
				if p.rec.OnsetToSpeechStartedMs == nil {
					p.rec.OnsetToSpeechStartedMs = ptr(turn.RoundUs(float64(at.Sub(p.onset)) / float64(time.Millisecond)))
				}
				if !p.acted {
					return s.act(ctx, p, "speech_started")
				}
			}
		}
	case "input_audio_buffer.speech_stopped":
		s.keep(cur, ev.Type, at, false)
		// The last stop is the end of the caller's turn.
		cur.stopped = true
		cur.rec.SpeechStoppedMs = ptr(cur.ms(at))
		if ev.AudioEndMs != nil {
			cur.rec.ServerAudioEndMs = ptr(s.audioAt(cur, *ev.AudioEndMs))
		}
	case "response.created":
		id := ""
		if ev.Response != nil {
			id = ev.Response.ID
		}
		s.nresp++
		if id == "" {
			id = fmt.Sprintf("#%d", s.nresp)
		}
		// The answer of the latest turn once its speech has left; a
		// response made of part of the utterance is no turn's.
		var owner *turnState
		if cur.speechSent && cur.resp == "" {
			owner = cur
			cur.resp = id
		}
		s.resps[id] = owner
		s.lastResp = owner
		s.keep(cur, ev.Type, at, false)
		if owner != nil {
			// The next response.created ends the turns before.
			for _, t := range s.ts[:len(s.ts)-1] {
				if t.resp != "" && !t.respEnded {
					t.respEnded = true
					s.checkEnd(t)
				}
			}
		}
	case "response.done":
		id := ""
		if ev.Response != nil {
			id = ev.Response.ID
		}
		t := s.owner(id)
		s.keep(or(t, cur), ev.Type, at, false)
		if t == nil || t.respEnded {
			return nil
		}
		t.respEnded = true
		t.rec.DoneMs = ptr(t.ms(at))
		if ev.Response != nil {
			t.rec.Status = ev.Response.Status
		}
		s.checkEnd(t)
	case "response.output_audio.delta", "response.audio.delta":
		t := s.owner(ev.ResponseID)
		s.keep(or(t, cur), ev.Type, at, false)
		if t == nil || t.respEnded {
			return nil
		}
		s.audio(t, ev, at)
	case "response.output_audio_transcript.delta", "response.audio_transcript.delta":
		t := s.owner(ev.ResponseID)
		s.keep(or(t, cur), ev.Type, at, false)
		if t == nil {
			return nil
		}
		if t.rec.FirstTranscriptMs == nil {
			t.rec.FirstTranscriptMs = ptr(t.ms(at))
		}
		if t.transcript.Len()+len(ev.Delta) > maxText {
			return tooLong("transcript")
		}
		t.transcript.WriteString(ev.Delta)
	case "response.output_text.delta", "response.text.delta":
		t := s.owner(ev.ResponseID)
		s.keep(or(t, cur), ev.Type, at, false)
		if t == nil {
			return nil
		}
		if t.rec.FirstTextMs == nil {
			t.rec.FirstTextMs = ptr(t.ms(at))
		}
		if t.text.Len()+len(ev.Delta) > maxText {
			return tooLong("text")
		}
		t.text.WriteString(ev.Delta)
	default:
		s.keep(cur, ev.Type, at, false)
	}
	return nil
}

// owner is the turn whose answer the response id is (the latest
// response's when the event names none); nil for a response no turn's.
// A response never announced by response.created is taken as the latest
// turn's answer on its first event, as response.created would have been.
func (s *session) owner(id string) *turnState {
	if id == "" {
		return s.lastResp
	}
	t, known := s.resps[id]
	if !known {
		if cur := s.latest(); cur.speechSent && cur.resp == "" {
			cur.resp, t = id, cur
		}
		s.resps[id], s.lastResp = t, t
	}
	return t
}

func or(a, b *turnState) *turnState {
	if a != nil {
		return a
	}
	return b
}

// audio takes one audio delta of t's answer.
func (s *session) audio(t *turnState, ev event, at time.Time) {
	ms := t.ms(at)
	if t.rec.FirstAudioMs == nil {
		t.rec.FirstAudioMs = ptr(ms)
		if t.barge {
			t.onsetDue = at.Add(t.bargeAfter)
			if t == s.latest() && s.next < len(s.turns) {
				s.ready, s.readySet = t.onsetDue, true
			}
		}
	}
	if t.itemID == "" {
		t.itemID = ev.ItemID
	}
	t.audioBytes += ev.audio
	if t.cancelled && at.After(t.cancelAt) {
		t.afterBytes += ev.audio
		t.lastAfter = at
		return
	}
	p := audio.Place(audio.Sentence{FirstAudioMs: ms, AudioDoneMs: ms, AudioMs: bytesMs(ev.audio, s.rate)}, t.prevEnd, len(t.placed) == 0)
	if len(t.placed) == 0 {
		t.pb.StartMs = p.StartMs
	}
	t.placed = append(t.placed, p)
	t.pb.Add(p)
	t.pb.EndMs, t.prevEnd = p.EndMs, p.EndMs
}

// audioAt maps a position the server gave (ms of the session's audio
// from its first frame) onto t's clock: the send stamp of the frame that
// completed the audio up to it.
func (s *session) audioAt(t *turnState, posMs float64) float64 {
	i := int(math.Ceil(posMs/float64(s.frameMs))) - 1
	i = max(0, min(i, len(s.sent)-1))
	if len(s.sent) == 0 {
		return 0
	}
	return t.ms(s.sent[i])
}

// result is the session's record so far: every turn begun, its figures.
func (s *session) result() *Result {
	r := *s.res
	r.Turns = make([]artifact.RealtimeTurn, 0, len(s.ts))
	r.TurnStarts = make([]time.Time, 0, len(s.ts))
	for _, t := range s.ts {
		rec := t.rec
		rec.AnswerAudioMs = turn.RoundUs(bytesMs(t.audioBytes, s.rate))
		if len(t.placed) > 0 {
			rec.UnderrunMs = ptr(turn.RoundUs(t.pb.UnderrunMs))
		}
		rec.MouthToEarMs = turn.Stamps{SpeechEndMs: rec.SpeechEndMs, FirstAudioMs: rec.FirstAudioMs}.Parts().MouthToEarMs
		rec.Transcript = s.scrub.String(t.transcript.String())
		rec.Text = s.scrub.String(t.text.String())
		if !t.cancelAt.IsZero() {
			after, last := 0.0, 0.0
			if t.afterBytes > 0 {
				after = turn.RoundUs(bytesMs(t.afterBytes, s.rate))
				last = turn.RoundUs(float64(t.lastAfter.Sub(t.cancelAt)) / float64(time.Millisecond))
			}
			rec.AudioAfterCancelMs, rec.CancelToLastAudioMs = &after, &last
		}
		rec.Events = append([]artifact.RealtimeEvent(nil), rec.Events...)
		r.Turns = append(r.Turns, rec)
		r.TurnStarts = append(r.TurnStarts, t.start)
	}
	return &r
}

// bytesMs is the duration of n bytes of PCM16 mono at rate.
func bytesMs(n, rate int) float64 { return float64(n) / 2 / float64(rate) * 1000 }

func ptr(v float64) *float64 { return &v }

// dial opens the WebSocket within ConnectTimeout.
func (s *session) dial(ctx context.Context, rawURL string) (*wsstamp.Conn, error) {
	shown := endpoint.ShownURL(rawURL)
	ws, err := wsstamp.Dial(ctx, s.cfg.Endpoint, rawURL, s.cfg.ConnectTimeout)
	if err != nil {
		var refused *wsstamp.RefusedError
		switch {
		case errors.As(err, &refused):
			// The answer's body is not shown: a refusal may quote the key.
			e := &Error{Kind: KindConnect, Status: refused.Status, Err: err,
				Msg: fmt.Sprintf("realtime server %s refused the WebSocket upgrade: HTTP %s", shown, refused.StatusLine)}
			if refused.Status == http.StatusUnauthorized || refused.Status == http.StatusForbidden {
				e.Kind = KindAuth
			}
			return nil, e
		case ctx.Err() != nil:
			return nil, ctxError(ctx.Err())
		}
		return nil, &Error{Kind: KindConnect, Err: err, Msg: fmt.Sprintf("realtime server %s: %s", shown, s.scrub.String(err.Error()))}
	}
	ws.SetReadLimit(readLimit)
	return ws, nil
}

// open waits for session.created within ConnectTimeout, finds the
// dialect and sends session.update in it.
func (s *session) open(ctx context.Context) *Error {
	octx, cancel := context.WithTimeout(ctx, s.cfg.ConnectTimeout)
	defer cancel()
	for {
		typ, data, _, err := s.ws.Read(octx)
		if err != nil {
			switch {
			case ctx.Err() != nil:
				return ctxError(ctx.Err())
			case octx.Err() != nil:
				return &Error{Kind: KindConnect, Err: err, Msg: fmt.Sprintf("realtime: the server opened no session (no session.created) within %v", s.cfg.ConnectTimeout)}
			}
			e := readError(err)
			if e.Kind == KindDropped {
				e.Kind = KindConnect
				e.Msg = strings.Replace(e.Msg, "mid-session", "before the session opened", 1)
			}
			return e
		}
		if typ != websocket.MessageText {
			return binaryError()
		}
		ev, e := s.parse(data)
		if e != nil {
			return e
		}
		switch ev.Type {
		case "error":
			return errorEvent(ev)
		case "session.created":
			s.res.Dialect = dialectOf(ev.Session)
			return s.update(ctx)
		}
	}
}

// dialectOf is the dialect session.created's session shows: GA when it
// has "type": "realtime" or an "audio" object, else beta.
func dialectOf(session json.RawMessage) string {
	var v struct {
		Type  string          `json:"type"`
		Audio json.RawMessage `json:"audio"`
	}
	json.Unmarshal(session, &v)
	if a := strings.TrimSpace(string(v.Audio)); v.Type == "realtime" || strings.HasPrefix(a, "{") {
		return DialectGA
	}
	return DialectBeta
}

// update sends session.update in the session's dialect: PCM16 at the
// rate both ways, the server's VAD, the voice and instructions given.
func (s *session) update(ctx context.Context) *Error {
	vad := map[string]any{"type": "server_vad"}
	var sess map[string]any
	if s.res.Dialect == DialectGA {
		out := map[string]any{"format": map[string]any{"type": "audio/pcm", "rate": s.rate}}
		if s.cfg.Voice != "" {
			out["voice"] = s.cfg.Voice
		}
		sess = map[string]any{"type": "realtime", "audio": map[string]any{
			"input":  map[string]any{"format": map[string]any{"type": "audio/pcm", "rate": s.rate}, "turn_detection": vad},
			"output": out,
		}}
	} else {
		sess = map[string]any{"input_audio_format": "pcm16", "output_audio_format": "pcm16", "turn_detection": vad}
		if s.cfg.Voice != "" {
			sess["voice"] = s.cfg.Voice
		}
	}
	if s.cfg.Instructions != "" {
		sess["instructions"] = s.cfg.Instructions
	}
	if err := s.send(ctx, map[string]any{"type": "session.update", "session": sess}); err != nil {
		return s.writeError(ctx, err)
	}
	return nil
}

// write sends one message, bounded by TurnTimeout (a server that reads
// nothing fills the socket's buffers).
func (s *session) write(ctx context.Context, msg []byte) error {
	wctx, cancel := context.WithTimeout(ctx, s.cfg.TurnTimeout)
	defer cancel()
	return s.ws.Write(wctx, websocket.MessageText, msg)
}

// send writes one event of the client's own.
func (s *session) send(ctx context.Context, v any) error {
	b, _ := json.Marshal(v) // maps of strings and numbers
	return s.write(ctx, b)
}

// writeError is a failed write: the reader's failure when it saw why
// (the server closed), else the context's, else a dropped connection.
func (s *session) writeError(ctx context.Context, err error) *Error {
	select {
	case e := <-s.failc:
		return e
	case <-time.After(50 * time.Millisecond):
	}
	if ctx.Err() != nil {
		return ctxError(ctx.Err())
	}
	return &Error{Kind: KindDropped, Err: err, Msg: fmt.Sprintf("realtime: the WebSocket closed mid-session: %v", err)}
}

// read takes the server's messages, each with its stamp, to the session
// until ctx ends or a failure.
func (s *session) read(ctx context.Context) {
	for {
		typ, data, at, err := s.ws.Read(ctx)
		if err != nil {
			if ctx.Err() == nil {
				s.failc <- readError(err)
			}
			return
		}
		if typ != websocket.MessageText {
			s.failc <- binaryError()
			return
		}
		ev, e := s.parse(data)
		if e != nil {
			s.failc <- e
			return
		}
		select {
		case s.evc <- inEvent{ev, at}:
		case <-ctx.Done():
			return
		}
	}
}

// ctxError is a session cut by its context: realtime_timeout when its
// deadline passed, realtime_dropped when it was canceled.
func ctxError(err error) *Error {
	if errors.Is(err, context.DeadlineExceeded) {
		return &Error{Kind: KindTimeout, Err: err, Msg: "realtime: the session's deadline passed"}
	}
	return &Error{Kind: KindDropped, Err: err, Msg: "realtime: the session was canceled"}
}

func tooLong(what string) *Error {
	return &Error{Kind: KindBadData, Msg: fmt.Sprintf("realtime: the answer's %s passed %d bytes: no answer is that long", what, maxText)}
}
