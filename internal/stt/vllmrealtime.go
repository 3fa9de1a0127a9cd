package stt

import (
	"context"
	"strings"
)

// vLLM's /v1/realtime: session.created, session.update {model},
// input_audio_buffer.commit (final false: start transcribing), the
// frames, the commit with final true after the clip and its tail of
// silence, then transcription.delta ... transcription.done.
func init() { streaming(APIVLLMRealtime, "", func() streamProto { return &vllmProto{} }) }

// VLLMRealtimeRate is the sample rate of vLLM /v1/realtime's PCM16 input.
const VLLMRealtimeRate = 16000

// VLLMTailMs is the silence sent after the clip before the final commit
// to vLLM, unless Config.SilenceMs says another length: the model hears
// the caller's last word end, as a phone line would let it.
const VLLMTailMs = 500

// vllmProto is one vLLM realtime turn's state.
type vllmProto struct {
	text strings.Builder // the deltas so far
}

func (p *vllmProto) rate() int { return VLLMRealtimeRate }

// open waits for session.created, names the model (null: the server's
// own) and starts the transcription.
func (p *vllmProto) open(ctx context.Context, t *streamTurn) error {
	if _, err := t.firstEvent(ctx); err != nil {
		return err
	}
	var model *string
	if m := t.cfg.Endpoint.Model; m != "" {
		model = &m
	}
	return t.send(ctx, map[string]any{"type": "session.update", "model": model},
		map[string]any{"type": "input_audio_buffer.commit", "final": false})
}

func (p *vllmProto) silenceMs(cfg Config) int {
	if cfg.SilenceMs > 0 {
		return cfg.SilenceMs
	}
	return VLLMTailMs
}

// silenceOver says the audio ended: vLLM transcribes what it has and
// sends transcription.done.
func (p *vllmProto) silenceOver(ctx context.Context, t *streamTurn) error {
	return t.send(ctx, map[string]any{"type": "input_audio_buffer.commit", "final": true})
}

func (p *vllmProto) handle(t *streamTurn, ev wsEvent, ms float64) (bool, *Error) {
	r := t.res
	switch ev.Type {
	case "error":
		return false, errorEvent(ev)
	case "transcription.delta":
		if p.text.Len()+len(ev.Delta) > MaxTranscript {
			return false, tooLong(p.text.Len() + len(ev.Delta))
		}
		p.text.WriteString(ev.Delta)
		t.partial(ms)
	case "transcription.done":
		if len(ev.Text) > MaxTranscript {
			return false, tooLong(len(ev.Text))
		}
		r.FinalMs = ms
		r.Text = strings.TrimSpace(ev.Text)
		if r.Text == "" {
			r.Text = strings.TrimSpace(p.text.String())
		}
		return true, nil
	}
	return false, nil
}
