package stt

import (
	"context"
	"strings"
)

// OpenAI's Realtime transcription session, at
// ws(s)://HOST/v1/realtime?intent=transcription.
func init() {
	streaming(APIRealtime, "intent=transcription", func() streamProto { return &realtimeProto{items: map[string]*rtItem{}} })
}

// RealtimeModel is the transcription model a Realtime session asks for
// when the endpoint names none.
const RealtimeModel = "gpt-4o-transcribe"

// RealtimeRate is the sample rate of OpenAI Realtime's PCM16 input.
const RealtimeRate = 24000

// Dialects of OpenAI's Realtime transcription session (Result.Dialect):
// the generally available API opens with session.created and takes
// session.update with session.type "transcription"; the beta one (asked
// for with the header OpenAI-Beta: realtime=v1) opens with
// transcription_session.created and takes transcription_session.update.
const (
	DialectGA   = "ga"
	DialectBeta = "beta"
)

// realtimeProto is one Realtime transcription turn's state.
type realtimeProto struct {
	dialect string
	// speech is the server's VAD: turns begun (speech_started) and
	// ended (speech_stopped); committed is set once the client committed
	// the buffer itself.
	started, stopped int
	committed        bool
	// items are the utterances the server made of the audio, in the
	// order it named them; the transcript is theirs joined.
	items map[string]*rtItem
	order []string
	// size is the transcripts' bytes so far, held to MaxTranscript.
	size int
}

type rtItem struct {
	ended bool // committed (speech_stopped or input_audio_buffer.committed)
	done  bool // its transcript completed
	text  string
}

func (p *realtimeProto) rate() int { return RealtimeRate }

// open reads the server's first event, which says the dialect, and
// configures the session: PCM16 at 24 kHz, the server's VAD, the model
// and the language.
func (p *realtimeProto) open(ctx context.Context, t *streamTurn) error {
	ev, err := t.firstEvent(ctx)
	if err != nil {
		return err
	}
	p.dialect = DialectGA
	if ev.Type == "transcription_session.created" {
		p.dialect = DialectBeta
	}
	t.res.Dialect = p.dialect
	model := t.cfg.Endpoint.Model
	if model == "" {
		model = RealtimeModel
	}
	tr := map[string]string{"model": model}
	if t.cfg.Language != "" {
		tr["language"] = t.cfg.Language
	}
	vad := map[string]string{"type": "server_vad"}
	var msg any
	if p.dialect == DialectBeta {
		msg = map[string]any{"type": "transcription_session.update", "session": map[string]any{
			"input_audio_format":        "pcm16",
			"input_audio_transcription": tr,
			"turn_detection":            vad,
		}}
	} else {
		msg = map[string]any{"type": "session.update", "session": map[string]any{
			"type": "transcription",
			"audio": map[string]any{"input": map[string]any{
				"format":         map[string]any{"type": "audio/pcm", "rate": RealtimeRate},
				"transcription":  tr,
				"turn_detection": vad,
			}},
		}}
	}
	return t.send(ctx, msg)
}

func (p *realtimeProto) silenceMs(cfg Config) int { return cfg.SilenceMs }

// silenceOver commits the buffer when the server's VAD did not end the
// caller's turn, so that its transcript comes.
func (p *realtimeProto) silenceOver(ctx context.Context, t *streamTurn) error {
	t.mu.Lock()
	need := p.stopped == 0 || p.started > p.stopped
	if need {
		p.committed = true
	}
	t.mu.Unlock()
	if !need {
		return nil
	}
	return t.send(ctx, map[string]string{"type": "input_audio_buffer.commit"})
}

// item is the utterance id names, made on first sight.
func (p *realtimeProto) item(id string) *rtItem {
	it, ok := p.items[id]
	if !ok {
		it = &rtItem{}
		p.items[id] = it
		p.order = append(p.order, id)
	}
	return it
}

func (p *realtimeProto) handle(t *streamTurn, ev wsEvent, ms float64) (bool, *Error) {
	r := t.res
	switch ev.Type {
	case "error":
		if p.committed && errorCode(ev) == "input_audio_buffer_commit_empty" {
			// The server's VAD had committed the audio as the client's
			// commit went: its transcript is on its way.
			return false, nil
		}
		return false, errorEvent(ev)
	case "transcription_session.created", "transcription_session.updated", "conversation.item.created":
		r.Dialect = DialectBeta
	case "session.created", "session.updated", "conversation.item.added":
		r.Dialect = DialectGA
	case "input_audio_buffer.speech_started":
		p.started++
		p.item(ev.ItemID)
		if r.SpeechStartedMs == nil {
			r.SpeechStartedMs = ptrMs(ms)
			if ev.AudioStartMs != nil {
				r.ServerAudioStartMs = ptrMs(*ev.AudioStartMs)
			}
		}
	case "input_audio_buffer.speech_stopped":
		p.stopped++
		p.item(ev.ItemID).ended = true
		// The last stop is the end of the caller's turn.
		r.SpeechStoppedMs = ptrMs(ms)
		if ev.AudioEndMs != nil {
			r.ServerAudioEndMs = ptrMs(*ev.AudioEndMs)
		}
	case "input_audio_buffer.committed":
		p.item(ev.ItemID).ended = true
	case "conversation.item.input_audio_transcription.delta":
		p.item(ev.ItemID)
		t.partial(ms)
	case "conversation.item.input_audio_transcription.completed":
		it := p.item(ev.ItemID)
		it.ended, it.done, it.text = true, true, strings.TrimSpace(ev.Transcript)
		if p.size += len(it.text); p.size > MaxTranscript {
			return false, tooLong(p.size)
		}
		if p.turnDone(t) {
			r.FinalMs = ms
			r.Text = p.text()
			return true, nil
		}
	}
	return false, nil
}

// turnDone says whether the caller's turn is transcribed whole: its last
// speech frame has left, the server's VAD closed every turn it opened (or
// the client committed), and every utterance it ended has its transcript.
func (p *realtimeProto) turnDone(t *streamTurn) bool {
	if !t.speechSent || (p.started > p.stopped && !p.committed) {
		return false
	}
	for _, id := range p.order {
		if it := p.items[id]; it.ended && !it.done {
			return false
		}
	}
	return true
}

// text joins the utterances' transcripts in the server's order.
func (p *realtimeProto) text() string {
	var parts []string
	for _, id := range p.order {
		if it := p.items[id]; it.done && it.text != "" {
			parts = append(parts, it.text)
		}
	}
	return strings.Join(parts, " ")
}
