package cli

import (
	"io"
	"net/http"

	"ttftlab/internal/tts"
)

// defaultTTSPort is Kokoro-FastAPI's port, so a client set up for one finds
// the other.
const defaultTTSPort = 8880

// newTTSServe is `ttftlab tts serve [--host H] [--port N]`.
func newTTSServe(e *env) runner {
	return &engineServe{env: e, port: defaultTTSPort,
		about: "Answers OpenAI's POST /v1/audio/speech by running espeak-ng (installed on first use), one process\n" +
			"a request, the audio streamed as it is spoken: response_format wav (22.05 kHz, 16-bit mono, as\n" +
			"espeak-ng writes it) or pcm (24 kHz, 16-bit mono, as OpenAI defines it). The voice follows the\n" +
			"text's language (English, Mandarin, Korean, Japanese) unless an espeak-ng voice is named.",
		what: "speech server", answers: "POST /v1/audio/speech",
		findOrInstall: tts.FindOrInstall, version: tts.Version,
		server: func(bin string, log io.Writer) (http.Handler, func() error, func() error) {
			return &tts.Server{Bin: bin, Log: log}, nil, nil
		}}
}
