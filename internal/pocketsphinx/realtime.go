package pocketsphinx

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"

	"ttftlab/internal/audio"
	"ttftlab/internal/callaudio"
)

// RealtimeRate is the sample rate of a Realtime session's PCM16 audio
// unless the session says another (OpenAI's pcm16 is 24 kHz).
const RealtimeRate = 24000

// HangoverMs is how long the energy detector's speech (samples above
// callaudio.SpeechPeak, 1 % of full scale: the caller's audio rule) lasts after its
// last sample above SpeechPeak: speech that resumes within it is the same
// speech, so an utterance pocketsphinx ended in the middle of it gets no
// input_audio_buffer.speech_started of its own (its speech_stopped
// brings one, at the start pocketsphinx gives).
const HangoverMs = 300

// speechLevel is callaudio.SpeechPeak of full scale as a sample value.
var speechLevel = int(math.Ceil(callaudio.SpeechPeak * 32767))

// maxMessage bounds a client event: a second of 48 kHz PCM16 in base64
// is 128 KiB; 16 MiB is far above any append.
const maxMessage = 16 << 20

// realtime serves OpenAI's Realtime transcription session over a
// WebSocket. The audio (PCM16 at the session's rate) goes, resampled to
// 16 kHz, to the connection's own `pocketsphinx live -` as it arrives;
// input_audio_buffer.speech_started comes from an energy detector on the
// audio (callaudio.SpeechPeak, HangoverMs), and when pocketsphinx ends an
// utterance (its own voice activity detection) the server sends
// speech_stopped, committed and
// conversation.item.input_audio_transcription.completed.
// input_audio_buffer.commit ends the audio given so far: the decoder's
// input is closed, it prints what it holds, and the next audio goes to a
// new decoder.
func (s *Server) realtime(w http.ResponseWriter, r *http.Request) {
	c, err := websocket.Accept(w, r, nil)
	if err != nil {
		return // Accept answered the request
	}
	c.SetReadLimit(maxMessage)
	ctx, cancel := context.WithCancel(r.Context())
	rt := &session{s: s, c: c, ctx: ctx, cancel: cancel, rate: RealtimeRate, lastSpeech: math.Inf(-1),
		beta: r.Header.Get("OpenAI-Beta") != "", id: fmt.Sprintf("sess_%d", time.Now().UnixNano())}
	defer rt.end()
	start := time.Now()
	rt.sendSession("created")
	err = rt.serve()
	if s.Log != nil {
		why := "closed"
		if err != nil && websocket.CloseStatus(err) == -1 && !errors.Is(err, io.EOF) {
			why = err.Error()
		}
		rt.mu.Lock()
		fed, items := rt.fedMs, rt.items
		rt.mu.Unlock()
		fmt.Fprintf(s.Log, "stt realtime: %.2f s of audio at %d Hz, %d utterances in %s, %s\n", fed/1000, rt.rate, items, time.Since(start).Round(time.Millisecond), why)
	}
}

// session is one Realtime connection.
type session struct {
	s      *Server
	c      *websocket.Conn
	ctx    context.Context
	cancel context.CancelFunc
	id     string
	beta   bool // opened as OpenAI's beta dialect (transcription_session.*)

	rate int // of the client's audio
	rs   *audio.Resampler

	// dec is the decoder the audio goes to, nil before the first append
	// and after a commit; offsetMs is the audio given to the decoders
	// before it; reader is closed when dec's output has been read.
	dec      *decoder
	offsetMs float64
	reader   chan struct{}

	mu sync.Mutex // what follows, and the order of events
	// fedMs is the audio received so far, in ms.
	fedMs float64
	// lastSpeech is the time (ms) of the last sample above SpeechPeak.
	lastSpeech float64
	// open is the item a speech_started opened and no utterance ended;
	// pending says audio came since the last item ended.
	open     string
	pending  bool
	items    int
	prevItem string

	wmu    sync.Mutex // a write at a time, event ids in order
	events int
}

// serve reads client events until the socket closes.
func (rt *session) serve() error {
	for {
		_, data, err := rt.c.Read(rt.ctx)
		if err != nil {
			return err
		}
		var ev struct {
			Type    string          `json:"type"`
			EventID string          `json:"event_id"`
			Audio   string          `json:"audio"`
			Session json.RawMessage `json:"session"`
		}
		if err := json.Unmarshal(data, &ev); err != nil {
			rt.fail("invalid_json", "", "the event is not JSON: %v", err)
			continue
		}
		switch ev.Type {
		case "session.update", "transcription_session.update":
			if err := rt.update(ev.Session); err != nil {
				rt.fail("invalid_value", ev.EventID, "%v", err)
				continue
			}
			kind := "updated"
			if ev.Type == "transcription_session.update" {
				rt.beta = true
			}
			rt.sendSession(kind)
		case "input_audio_buffer.append":
			pcm, err := base64.StdEncoding.DecodeString(ev.Audio)
			if err != nil {
				rt.fail("invalid_value", ev.EventID, "audio is not base64: %v", err)
				continue
			}
			if err := rt.append(pcm); err != nil {
				rt.fail("server_error", ev.EventID, "%v", err)
			}
		case "input_audio_buffer.commit":
			rt.commit(ev.EventID)
		default:
			rt.fail("invalid_request_error", ev.EventID, "event type %q is not served: this server takes session.update, transcription_session.update, "+
				"input_audio_buffer.append and input_audio_buffer.commit", ev.Type)
		}
	}
}

// update reads the session's audio format and language, in the
// generally available shape (audio.input.format {type, rate},
// audio.input.transcription.language) or the beta one
// (input_audio_format "pcm16", input_audio_transcription.language).
func (rt *session) update(raw json.RawMessage) error {
	var sess struct {
		InputAudioFormat        *string `json:"input_audio_format"`
		InputAudioTranscription *struct {
			Language string `json:"language"`
		} `json:"input_audio_transcription"`
		Audio *struct {
			Input *struct {
				Format *struct {
					Type string `json:"type"`
					Rate int    `json:"rate"`
				} `json:"format"`
				Transcription *struct {
					Language string `json:"language"`
				} `json:"transcription"`
			} `json:"input"`
		} `json:"audio"`
	}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &sess); err != nil {
			return fmt.Errorf("session: %v", err)
		}
	}
	rate, lang := rt.rate, ""
	if f := sess.InputAudioFormat; f != nil {
		if *f != "pcm16" {
			return fmt.Errorf("input_audio_format %q is not served: send pcm16", *f)
		}
		rate = RealtimeRate
	}
	if t := sess.InputAudioTranscription; t != nil {
		lang = t.Language
	}
	if a := sess.Audio; a != nil && a.Input != nil {
		if f := a.Input.Format; f != nil {
			if f.Type != "" && f.Type != "audio/pcm" {
				return fmt.Errorf("audio format %q is not served: send audio/pcm (PCM16)", f.Type)
			}
			if f.Rate < 0 || f.Rate > 192000 {
				return fmt.Errorf("audio rate %d is not a sample rate", f.Rate)
			}
			rate = RealtimeRate
			if f.Rate > 0 {
				rate = f.Rate
			}
		}
		if t := a.Input.Transcription; t != nil && t.Language != "" {
			lang = t.Language
		}
	}
	if err := checkLanguage(lang); err != nil {
		return err
	}
	if rate != rt.rate {
		rt.rate, rt.rs = rate, nil
	}
	return nil
}

// append takes a piece of the client's audio: the energy detector reads
// it, and the decoder gets it at 16 kHz.
func (rt *session) append(pcm []byte) error {
	n := len(pcm) / 2
	if n == 0 {
		return nil
	}
	if rt.dec != nil && rt.decoderGone() {
		// The decoder died (its reader said so with an error event):
		// this audio goes to a new one.
		d := rt.dec
		rt.dec, rt.rs = nil, nil
		rt.s.done(d)
	}
	if rt.dec == nil {
		if err := rt.startDecoder(); err != nil {
			return err
		}
	}
	rt.mu.Lock()
	at := rt.fedMs
	for i := 0; i < n; i++ {
		if v := int(int16(binary.LittleEndian.Uint16(pcm[2*i:]))); v > speechLevel || -v > speechLevel {
			t := at + float64(i)*1000/float64(rt.rate)
			if t-rt.lastSpeech > HangoverMs && rt.open == "" {
				rt.open = rt.newItem()
				rt.send(map[string]any{"type": "input_audio_buffer.speech_started", "audio_start_ms": int(t), "item_id": rt.open})
			}
			rt.lastSpeech = t
		}
	}
	rt.fedMs += float64(n) * 1000 / float64(rt.rate)
	rt.pending = true
	rt.mu.Unlock()
	if rt.rs == nil {
		rt.rs = audio.NewResampler(rt.rate, Rate)
	}
	if err := rt.dec.write(rt.rs.Push(nil, pcm[:2*n])); err != nil {
		// The decoder is gone: the next audio gets a new one.
		d := rt.dec
		rt.dec = nil
		rt.s.done(d)
		return err
	}
	return nil
}

// decoderGone says whether the decoder's process died (its reader saw
// its output end with an error).
func (rt *session) decoderGone() bool { return rt.dec.died.Load() }

// startDecoder takes a decoder for the audio from now on and reads its
// utterances as it prints them.
func (rt *session) startDecoder() error {
	d, _, err := rt.s.take(rt.ctx)
	if err != nil {
		return err
	}
	rt.mu.Lock()
	rt.dec, rt.offsetMs, rt.reader = d, rt.fedMs, make(chan struct{})
	offset, done := rt.offsetMs, rt.reader
	rt.mu.Unlock()
	go func() {
		defer close(done)
		for {
			u, err := d.next()
			if err == io.EOF {
				return
			}
			if err != nil {
				// Marked before the error event goes, so the audio the
				// client sends after it goes to a new decoder.
				d.died.Store(true)
				if rt.ctx.Err() == nil {
					rt.mu.Lock()
					rt.fail("server_error", "", "%v", err)
					rt.mu.Unlock()
				}
				return
			}
			rt.utterance(u, offset)
		}
	}()
	return nil
}

// utterance is pocketsphinx's end of an utterance: the item the energy
// detector opened (else one opened now, at pocketsphinx's start) stops,
// is committed and has its transcript.
func (rt *session) utterance(u utterance, offset float64) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	id := rt.open
	if id == "" {
		id = rt.newItem()
		rt.send(map[string]any{"type": "input_audio_buffer.speech_started", "audio_start_ms": int(offset + u.Begin*1000), "item_id": id})
	}
	rt.send(map[string]any{"type": "input_audio_buffer.speech_stopped", "audio_end_ms": int(offset + (u.Begin+u.Dur)*1000), "item_id": id})
	rt.closeItem(id, strings.TrimSpace(u.Text))
}

// closeItem sends an item's committed and completed events.
func (rt *session) closeItem(id, text string) {
	rt.send(map[string]any{"type": "input_audio_buffer.committed", "previous_item_id": nullable(rt.prevItem), "item_id": id})
	rt.send(map[string]any{"type": "conversation.item.input_audio_transcription.completed", "item_id": id, "content_index": 0, "transcript": text})
	rt.prevItem, rt.open, rt.pending = id, "", false
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// commit ends the audio given so far: the decoder's input is closed, its
// utterances are sent as it prints them, and an item still open (or audio
// that made none) is committed with what pocketsphinx made of it.
func (rt *session) commit(eventID string) {
	rt.mu.Lock()
	pending := rt.pending
	rt.mu.Unlock()
	if rt.dec == nil || !pending {
		rt.mu.Lock()
		rt.fail("input_audio_buffer_commit_empty", eventID, "the audio buffer is empty: append audio before committing it")
		rt.mu.Unlock()
		return
	}
	d, done := rt.dec, rt.reader
	d.closeInput()
	select {
	case <-done:
	case <-rt.ctx.Done():
		return
	}
	rt.s.done(d)
	rt.dec = nil
	rt.rs = nil
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.pending {
		id := rt.open
		if id == "" {
			id = rt.newItem()
		}
		rt.closeItem(id, "")
	}
}

// end stops the connection's decoder (by its PID) and closes the socket.
func (rt *session) end() {
	rt.cancel()
	if rt.dec != nil {
		d := rt.dec
		rt.dec = nil
		rt.s.done(d)
	}
	rt.c.CloseNow()
}

func (rt *session) newItem() string {
	rt.items++
	return fmt.Sprintf("item_%s_%d", strings.TrimPrefix(rt.id, "sess_"), rt.items)
}

// sendSession sends session.created or session.updated (in the beta
// dialect transcription_session.*).
func (rt *session) sendSession(kind string) {
	typ := "session." + kind
	if rt.beta {
		typ = "transcription_session." + kind
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.send(map[string]any{"type": typ, "session": map[string]any{
		"id": rt.id, "object": "realtime.transcription_session", "type": "transcription",
		"audio": map[string]any{"input": map[string]any{
			"format":         map[string]any{"type": "audio/pcm", "rate": rt.rate},
			"transcription":  map[string]any{"model": Model, "language": "en"},
			"turn_detection": map[string]any{"type": "server_vad"},
		}},
	}})
}

// fail sends an error event; the session goes on.
func (rt *session) fail(code, eventID, format string, args ...any) {
	e := map[string]any{"type": "invalid_request_error", "code": code, "message": fmt.Sprintf(format, args...)}
	if eventID != "" {
		e["event_id"] = eventID
	}
	rt.send(map[string]any{"type": "error", "error": e})
}

// writeTimeout bounds one event's write to a client that stopped reading.
const writeTimeout = 10 * time.Second

// send writes one server event with its event_id.
func (rt *session) send(ev map[string]any) {
	rt.wmu.Lock()
	defer rt.wmu.Unlock()
	rt.events++
	ev["event_id"] = fmt.Sprintf("event_%d", rt.events)
	b, _ := json.Marshal(ev)
	ctx, cancel := context.WithTimeout(rt.ctx, writeTimeout)
	defer cancel()
	rt.c.Write(ctx, websocket.MessageText, b)
}
