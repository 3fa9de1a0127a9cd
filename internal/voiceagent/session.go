package voiceagent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/coder/websocket"

	"ttftlab/internal/engineserve"
	"ttftlab/internal/pocketsphinx"
)

// session is one Realtime connection: its settings, its conversation and
// the answer being given.
type session struct {
	a    *Agent
	c    *websocket.Conn
	ctx  context.Context
	id   string
	ev   *engineserve.Events
	ears Ears

	mu           sync.Mutex // what follows
	voice        string
	instructions string
	// history is the conversation: the caller's items and the answers.
	history []item
	// resp is the last answer (nil before the first); nresp counts them.
	resp  *response
	nresp int
}

// item is one item of the conversation: the caller's words, or an
// answer (its text is the response's: what was said, cut by a truncate).
type item struct {
	id   string
	role string
	text string
	resp *response
}

// content is what the LLM is given of the item.
func (it item) content() string {
	if it.resp != nil {
		return it.resp.said()
	}
	return it.text
}

// clientEvent is what the session reads of a client event.
type clientEvent struct {
	Type         string          `json:"type"`
	EventID      string          `json:"event_id"`
	Audio        string          `json:"audio"`
	Session      json.RawMessage `json:"session"`
	ItemID       string          `json:"item_id"`
	ContentIndex int             `json:"content_index"`
	AudioEndMs   *int            `json:"audio_end_ms"`
}

// served are the client events a session takes, for the refusal of
// another.
const served = "session.update, input_audio_buffer.append, input_audio_buffer.commit, response.create, response.cancel, conversation.item.truncate"

// serve reads client events until the socket closes.
func (s *session) serve() error {
	for {
		_, data, err := s.c.Read(s.ctx)
		if err != nil {
			return err
		}
		var ev clientEvent
		if err := json.Unmarshal(data, &ev); err != nil {
			s.ev.Fail("invalid_json", "", "the event is not JSON: %v", err)
			continue
		}
		switch ev.Type {
		case "session.update":
			if err := s.update(ev.Session); err != nil {
				s.ev.Fail("invalid_value", ev.EventID, "%v", err)
				continue
			}
			s.sendSession("session.updated")
		case "input_audio_buffer.append":
			s.ears.AppendEvent(ev.Audio, ev.EventID)
		case "input_audio_buffer.commit":
			s.ears.Commit(ev.EventID)
		case "response.create":
			s.create(ev.EventID)
		case "response.cancel":
			s.cancel(ev.EventID)
		case "conversation.item.truncate":
			s.truncate(ev)
		default:
			s.ev.Fail("invalid_value", ev.EventID, "event type %q is not served: this agent takes %s", ev.Type, served)
		}
	}
}

// sessionUpdate is what a session.update may say, in the generally
// available shape (audio.input/output) or the beta one
// (input_audio_format, output_audio_format, voice, turn_detection).
type sessionUpdate struct {
	Instructions *string `json:"instructions"`
	// beta
	Voice             *string         `json:"voice"`
	InputAudioFormat  *string         `json:"input_audio_format"`
	OutputAudioFormat *string         `json:"output_audio_format"`
	TurnDetection     json.RawMessage `json:"turn_detection"`
	// GA
	Audio *struct {
		Input *struct {
			Format        *pocketsphinx.InputFormat `json:"format"`
			TurnDetection json.RawMessage           `json:"turn_detection"`
		} `json:"input"`
		Output *struct {
			Format *pocketsphinx.InputFormat `json:"format"`
			Voice  *string                   `json:"voice"`
		} `json:"output"`
	} `json:"audio"`
}

// update applies a session.update: all of it, or none when a part is
// refused.
func (s *session) update(raw json.RawMessage) error {
	var u sessionUpdate
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &u); err != nil {
			return fmt.Errorf("session: %v", err)
		}
	}
	var inGA *pocketsphinx.InputFormat
	voice := u.Voice
	turn := u.TurnDetection
	if f := u.OutputAudioFormat; f != nil && *f != "pcm16" {
		return fmt.Errorf("output_audio_format %q is not served: this agent speaks pcm16 (24 kHz)", *f)
	}
	if a := u.Audio; a != nil {
		if a.Input != nil {
			inGA = a.Input.Format
			if len(a.Input.TurnDetection) > 0 {
				turn = a.Input.TurnDetection
			}
		}
		if o := a.Output; o != nil {
			if f := o.Format; f != nil && ((f.Type != "" && f.Type != "audio/pcm") || (f.Rate != 0 && f.Rate != OutputRate)) {
				return fmt.Errorf("output audio format %s at %d Hz is not served: this agent speaks audio/pcm at %d Hz", f.Type, f.Rate, OutputRate)
			}
			if o.Voice != nil {
				voice = o.Voice
			}
		}
	}
	if len(turn) > 0 {
		var td *struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(turn, &td); err != nil {
			return fmt.Errorf("turn_detection: %v", err)
		}
		if td == nil || td.Type != "server_vad" {
			return fmt.Errorf("turn_detection %s is not served: this agent answers when its own voice activity detection hears the caller stop (server_vad)", turn)
		}
	}
	rate, err := pocketsphinx.InputRate(s.ears.Rate(), u.InputAudioFormat, inGA)
	if err != nil {
		return err
	}
	s.ears.SetRate(rate)
	s.mu.Lock()
	defer s.mu.Unlock()
	if voice != nil {
		s.voice = *voice
	}
	if u.Instructions != nil {
		s.instructions = *u.Instructions
	}
	return nil
}

// sendSession sends session.created or session.updated: the session in
// the generally available shape.
func (s *session) sendSession(typ string) {
	s.mu.Lock()
	voice, instructions := s.voice, s.instructions
	s.mu.Unlock()
	s.ev.Send(map[string]any{"type": typ, "session": map[string]any{
		"id": s.id, "object": "realtime.session", "type": "realtime", "model": Model,
		"output_modalities": []string{"audio"}, "instructions": instructions,
		"max_output_tokens": s.a.maxTokens(),
		"audio": map[string]any{
			"input": map[string]any{
				"format":         map[string]any{"type": "audio/pcm", "rate": s.ears.Rate()},
				"transcription":  map[string]any{"model": pocketsphinx.Model},
				"turn_detection": map[string]any{"type": "server_vad"},
			},
			"output": map[string]any{
				"format": map[string]any{"type": "audio/pcm", "rate": OutputRate},
				"voice":  voice,
			},
		},
	}})
}

// speechStarted is the caller speaking: over an answer, it stops the
// answer (server_vad's interruption).
func (s *session) speechStarted(string) {
	s.mu.Lock()
	r := s.resp
	s.mu.Unlock()
	if r != nil {
		r.stop("turn_detected")
	}
}

// heard is the caller's utterance transcribed: it joins the
// conversation and is answered.
func (s *session) heard(id, transcript string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.history = append(s.history, item{id: id, role: "user", text: transcript})
	s.answerLocked()
}

// create is response.create: an answer to the conversation as it is.
func (s *session) create(eventID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.resp != nil && s.resp.active() {
		s.ev.Fail("conversation_already_has_active_response", eventID, "the conversation already has an active response %s: cancel it first", s.resp.id)
		return
	}
	s.answerLocked()
}

// answerLocked starts an answer to the conversation, stopping one that
// is still going. s.mu is held.
func (s *session) answerLocked() {
	if s.resp != nil {
		s.resp.stop("turn_detected")
	}
	s.nresp++
	num := strings.TrimPrefix(s.id, "sess_")
	r := newResponse(s, fmt.Sprintf("resp_%s_%d", num, s.nresp), fmt.Sprintf("item_%s_a%d", num, s.nresp), s.voice)
	msgs := []map[string]string{{"role": "system", "content": s.instructions}}
	hist := s.history
	if len(hist) > maxHistory {
		hist = hist[len(hist)-maxHistory:]
	}
	for _, it := range hist {
		if c := it.content(); c != "" || it.role == "user" {
			msgs = append(msgs, map[string]string{"role": it.role, "content": c})
		}
	}
	s.history = append(s.history, item{id: r.item, role: "assistant", resp: r})
	s.resp = r
	go r.run(msgs)
}

// cancel is response.cancel: the answer going on stops at once.
func (s *session) cancel(eventID string) {
	s.mu.Lock()
	r := s.resp
	s.mu.Unlock()
	if r == nil || !r.stop("client_cancelled") {
		s.ev.Fail("response_cancel_not_active", eventID, "there is no active response to cancel")
	}
}

// truncate is conversation.item.truncate: the answer's text in the
// conversation cut to what the caller heard of its audio.
func (s *session) truncate(ev clientEvent) {
	s.mu.Lock()
	var r *response
	for _, it := range s.history {
		if it.id == ev.ItemID && it.resp != nil {
			r = it.resp
		}
	}
	s.mu.Unlock()
	switch {
	case r == nil:
		s.ev.Fail("invalid_value", ev.EventID, "item_id %q is no answer of this conversation", ev.ItemID)
		return
	case ev.ContentIndex != 0:
		s.ev.Fail("invalid_value", ev.EventID, "content_index %d: an answer has one part, 0", ev.ContentIndex)
		return
	case ev.AudioEndMs == nil || *ev.AudioEndMs < 0:
		s.ev.Fail("invalid_value", ev.EventID, "audio_end_ms is missing or below 0")
		return
	}
	if err := r.truncate(*ev.AudioEndMs); err != nil {
		s.ev.Fail("invalid_value", ev.EventID, "%v", err)
		return
	}
	s.ev.Send(map[string]any{"type": "conversation.item.truncated", "item_id": ev.ItemID, "content_index": 0, "audio_end_ms": *ev.AudioEndMs})
}

// end stops the answer going on and the hearing (its processes by PID).
func (s *session) end() {
	s.mu.Lock()
	r := s.resp
	s.mu.Unlock()
	if r != nil {
		r.stop("client_cancelled")
		r.wait()
	}
	s.ears.Close()
}
