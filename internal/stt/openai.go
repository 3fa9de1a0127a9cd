package stt

import (
	"context"

	"ttftlab/internal/callaudio"
)

// DefaultModel is the model an OpenAI upload names when the endpoint
// names none.
const DefaultModel = "whisper-1"

func init() {
	protocols[APIOpenAI] = func(ctx context.Context, cfg Config, clip *callaudio.Clip) (*Result, error) {
		return upload(ctx, cfg, clip, APIOpenAI, openAIPath, openAIForm(cfg, false))
	}
	protocols[APIOpenAIStream] = func(ctx context.Context, cfg Config, clip *callaudio.Clip) (*Result, error) {
		return upload(ctx, cfg, clip, APIOpenAIStream, openAIPath, openAIForm(cfg, true))
	}
}

// openAIForm is POST /v1/audio/transcriptions' fields: model (the
// endpoint's, else DefaultModel), language when set, response_format
// json, and stream=true for the event stream.
func openAIForm(cfg Config, streamed bool) form {
	model := DefaultModel
	if cfg.Endpoint != nil && cfg.Endpoint.Model != "" {
		model = cfg.Endpoint.Model
	}
	f := form{{"model", model}}
	if cfg.Language != "" {
		f = append(f, [2]string{"language", cfg.Language})
	}
	f = append(f, [2]string{"response_format", "json"})
	if streamed {
		f = append(f, [2]string{"stream", "true"})
	}
	return f
}
