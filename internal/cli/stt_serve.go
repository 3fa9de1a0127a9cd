package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"

	"ttftlab/internal/pocketsphinx"
)

// sttServeCmd is `ttftlab stt serve [--host H] [--port N]`.
type sttServeCmd struct{ env *env }

func newSTTServe(e *env) runner { return &sttServeCmd{env: e} }

// defaultSTTPort is Speaches' port, so a client set up for one finds the
// other.
const defaultSTTPort = 8000

func (c *sttServeCmd) Run(ctx context.Context, args []string) error {
	fs := c.env.flags("[--host H] [--port N]",
		"Answers OpenAI's POST /v1/audio/transcriptions (a WAV file of any rate; response_format json or\n"+
			"text; stream=true for transcript.text.delta/done events) and GET /v1/realtime (OpenAI's Realtime\n"+
			"transcription session over a WebSocket: PCM16 appended as it is spoken, speech_started from an\n"+
			"energy detector, the transcript when pocketsphinx ends the utterance) by running pocketsphinx 5\n"+
			"with its en-us model (installed on first use): one process a request or connection, a warm one\n"+
			"kept ready. English only.")
	host := fs.String("host", "127.0.0.1", "address to listen on")
	port := fs.intFlag("port", defaultSTTPort, 0, 65535, "port to listen on (0: a free one)")
	verbose := fs.Bool("v", false, "print a line per request")
	if err := fs.parse(args); err != nil {
		return err
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	bin, err := pocketsphinx.FindOrInstall(ctx, c.env.Err)
	if err != nil {
		return err
	}
	srv := &pocketsphinx.Server{Bin: bin}
	defer srv.Close()
	if *verbose {
		srv.Log = c.env.Err
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(*host, strconv.Itoa(*port)))
	if err != nil {
		return fmt.Errorf("cannot listen on %s:%d: %w (pick another with --port)", *host, *port, err)
	}
	if err := srv.Warm(); err != nil {
		ln.Close()
		return err
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	c.env.signals.describe("stopping the speech-to-text server")
	fmt.Fprintf(c.env.Out, "speech-to-text server: http://%s (POST /v1/audio/transcriptions, GET /v1/realtime; %s %s); Ctrl-C stops it\n",
		ln.Addr(), pocketsphinx.Version(bin), bin)
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		srv.Close()
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if err := hs.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
			return err
		}
		return ctx.Err()
	}
}
