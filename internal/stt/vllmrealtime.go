package stt

import (
	"context"
	"strings"

	"ttftlab/internal/callaudio"
)

func init() { protocols[APIVLLMRealtime] = transcribeVLLMRealtime }

// VLLMRealtimeRate is the sample rate of vLLM /v1/realtime's PCM16 input.
const VLLMRealtimeRate = 16000

// VLLMTailMs is the silence sent after the clip before the final commit
// to vLLM, unless Config.SilenceMs says another length: the model hears
// the caller's last word end, as a phone line would let it.
const VLLMTailMs = 500

// transcribeVLLMRealtime speaks vLLM's /v1/realtime: session.created,
// session.update {model}, input_audio_buffer.commit (final false: start
// transcribing), the frames, the commit with final true after the clip
// and its tail of silence, then transcription.delta ... transcription.done.
func transcribeVLLMRealtime(ctx context.Context, cfg Config, clip *callaudio.Clip) (*Result, error) {
	if cfg.Endpoint == nil {
		return nil, &Error{Kind: KindConnect, Msg: "speech-to-text: no server given"}
	}
	u, err := wsURL(cfg.Endpoint.Base, "/v1/realtime", "")
	if err != nil {
		return nil, &Error{Kind: KindConnect, Msg: err.Error(), Err: err}
	}
	return streamTranscribe(ctx, cfg, clip, APIVLLMRealtime, &vllmProto{}, u)
}

// vllmProto is one vLLM realtime turn's state.
type vllmProto struct {
	text strings.Builder // the deltas so far
}

func (p *vllmProto) rate() int { return VLLMRealtimeRate }

// open waits for session.created, names the model (null: the server's
// own) and starts the transcription.
func (p *vllmProto) open(ctx context.Context, t *streamTurn) error {
	data, err := t.readFirst(ctx)
	if err != nil {
		return err
	}
	ev, e := parseEvent(data)
	if e != nil {
		return e
	}
	if ev.Type == "error" {
		return errorEvent(ev)
	}
	var model *string
	if m := t.cfg.Endpoint.Model; m != "" {
		model = &m
	}
	if err := t.send(ctx, map[string]any{"type": "session.update", "model": model}); err != nil {
		return t.writeError(ctx, err)
	}
	if err := t.send(ctx, map[string]any{"type": "input_audio_buffer.commit", "final": false}); err != nil {
		return t.writeError(ctx, err)
	}
	return nil
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

func (p *vllmProto) handle(t *streamTurn, data []byte, ms float64) (bool, *Error) {
	ev, e := parseEvent(data)
	if e != nil {
		return false, e
	}
	r := t.res
	switch ev.Type {
	case "error":
		return false, errorEvent(ev)
	case "transcription.delta":
		p.text.WriteString(ev.Delta)
		if r.FirstPartialMs == nil {
			r.FirstPartialMs = ptrMs(ms)
		}
	case "transcription.done":
		r.FinalMs = ms
		r.Text = strings.TrimSpace(ev.Text)
		if r.Text == "" {
			r.Text = strings.TrimSpace(p.text.String())
		}
		return true, nil
	}
	return false, nil
}
