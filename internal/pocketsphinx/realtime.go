package pocketsphinx

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/coder/websocket"

	"ttftlab/internal/engineserve"
)

// realtime serves OpenAI's Realtime transcription session over a
// WebSocket: a Listener hears the audio (its events: speech_started,
// speech_stopped, committed, the transcript); input_audio_buffer.commit
// ends the audio given so far.
func (s *Server) realtime(w http.ResponseWriter, r *http.Request) {
	c, err := websocket.Accept(w, r, nil)
	if err != nil {
		return // Accept answered the request
	}
	c.SetReadLimit(MaxEvent)
	ctx, cancel := context.WithCancel(r.Context())
	ev := engineserve.NewEvents(ctx, c)
	id := fmt.Sprintf("sess_%d", time.Now().UnixNano())
	rt := &session{c: c, ev: ev, ctx: ctx, cancel: cancel, id: id, l: s.Listen(ctx, ev, id),
		beta: r.Header.Get("OpenAI-Beta") != ""}
	defer rt.end()
	start := time.Now()
	rt.sendSession("created")
	err = rt.serve()
	if s.Log != nil {
		why := "closed"
		if err != nil && websocket.CloseStatus(err) == -1 && !errors.Is(err, io.EOF) {
			why = err.Error()
		}
		fed, items := rt.l.Heard()
		fmt.Fprintf(s.Log, "stt realtime: %.2f s of audio at %d Hz, %d utterances in %s, %s\n", fed/1000, rt.l.Rate(), items, time.Since(start).Round(time.Millisecond), why)
	}
}

// session is one Realtime transcription connection.
type session struct {
	c      *websocket.Conn
	ev     *engineserve.Events
	ctx    context.Context
	cancel context.CancelFunc
	id     string
	l      *Listener
	beta   bool // opened as OpenAI's beta dialect (transcription_session.*)
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
			rt.ev.Fail("invalid_json", "", "the event is not JSON: %v", err)
			continue
		}
		switch ev.Type {
		case "session.update", "transcription_session.update":
			if err := rt.update(ev.Session); err != nil {
				rt.ev.Fail("invalid_value", ev.EventID, "%v", err)
				continue
			}
			kind := "updated"
			if ev.Type == "transcription_session.update" {
				rt.beta = true
			}
			rt.sendSession(kind)
		case "input_audio_buffer.append":
			rt.l.AppendEvent(ev.Audio, ev.EventID)
		case "input_audio_buffer.commit":
			rt.l.Commit(ev.EventID)
		default:
			rt.ev.Fail("invalid_request_error", ev.EventID, "event type %q is not served: this server takes session.update, transcription_session.update, "+
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
				Format        *InputFormat `json:"format"`
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
	lang := ""
	var ga *InputFormat
	if t := sess.InputAudioTranscription; t != nil {
		lang = t.Language
	}
	if a := sess.Audio; a != nil && a.Input != nil {
		ga = a.Input.Format
		if t := a.Input.Transcription; t != nil && t.Language != "" {
			lang = t.Language
		}
	}
	rate, err := InputRate(rt.l.Rate(), sess.InputAudioFormat, ga)
	if err != nil {
		return err
	}
	if err := checkLanguage(lang); err != nil {
		return err
	}
	rt.l.SetRate(rate)
	return nil
}

// end stops the connection's decoder (by its PID) and closes the socket.
func (rt *session) end() {
	rt.cancel()
	rt.l.Close()
	rt.c.CloseNow()
}

// sendSession sends session.created or session.updated (in the beta
// dialect transcription_session.*).
func (rt *session) sendSession(kind string) {
	typ := "session." + kind
	if rt.beta {
		typ = "transcription_session." + kind
	}
	rt.ev.Send(map[string]any{"type": typ, "session": map[string]any{
		"id": rt.id, "object": "realtime.transcription_session", "type": "transcription",
		"audio": map[string]any{"input": map[string]any{
			"format":         map[string]any{"type": "audio/pcm", "rate": rt.l.Rate()},
			"transcription":  map[string]any{"model": Model, "language": "en"},
			"turn_detection": map[string]any{"type": "server_vad"},
		}},
	}})
}
