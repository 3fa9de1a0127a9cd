package stt

import (
	"context"

	"ttftlab/internal/callaudio"
)

func init() {
	protocols[APIWhisper] = func(ctx context.Context, cfg Config, clip *callaudio.Clip) (*Result, error) {
		return upload(ctx, cfg, clip, APIWhisper, whisperPath, whisperForm(cfg))
	}
}

// whisperForm is whisper-server's POST /inference fields:
// response_format json ({"text": ...}), and language when set (the
// server's own default otherwise).
func whisperForm(cfg Config) form {
	f := form{{"response_format", "json"}}
	if cfg.Language != "" {
		f = append(f, [2]string{"language", cfg.Language})
	}
	return f
}
