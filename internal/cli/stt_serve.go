package cli

import (
	"io"
	"net/http"

	"ttftlab/internal/pocketsphinx"
)

// defaultSTTPort is Speaches' port, so a client set up for one finds the
// other.
const defaultSTTPort = 8000

// newSTTServe is `ttftlab stt serve [--host H] [--port N]`.
func newSTTServe(e *env) runner {
	return &engineServe{env: e, port: defaultSTTPort,
		about: "Answers OpenAI's POST /v1/audio/transcriptions (a WAV file of any rate; response_format json or\n" +
			"text; stream=true for transcript.text.delta/done events) and GET /v1/realtime (OpenAI's Realtime\n" +
			"transcription session over a WebSocket: PCM16 appended as it is spoken, speech_started from an\n" +
			"energy detector, the transcript when pocketsphinx ends the utterance) by running pocketsphinx 5\n" +
			"with its en-us model (installed on first use): one process a request or connection, a warm one\n" +
			"kept ready. English only.",
		what: "speech-to-text server", answers: "POST /v1/audio/transcriptions, GET /v1/realtime",
		findOrInstall: pocketsphinx.FindOrInstall, version: pocketsphinx.Version,
		server: func(bin string, log io.Writer) (http.Handler, func() error, func() error) {
			srv := &pocketsphinx.Server{Bin: bin, Log: log}
			return srv, srv.Warm, srv.Close
		}}
}
