package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"

	"ttftlab/internal/tts"
)

// ttsServeCmd is `ttftlab tts serve [--host H] [--port N]`.
type ttsServeCmd struct{ env *env }

func newTTSServe(e *env) runner { return &ttsServeCmd{env: e} }

// defaultTTSPort is Kokoro-FastAPI's port, so a client set up for one finds
// the other.
const defaultTTSPort = 8880

func (c *ttsServeCmd) Run(ctx context.Context, args []string) error {
	fs := c.env.flags("[--host H] [--port N]",
		"Answers OpenAI's POST /v1/audio/speech by running espeak-ng (installed on first use), one process\n"+
			"a request, the audio streamed as it is spoken: response_format wav (22.05 kHz, 16-bit mono, as\n"+
			"espeak-ng writes it) or pcm (24 kHz, 16-bit mono, as OpenAI defines it). The voice follows the\n"+
			"text's language (English, Mandarin, Korean, Japanese) unless an espeak-ng voice is named.")
	host := fs.String("host", "127.0.0.1", "address to listen on")
	port := fs.intFlag("port", defaultTTSPort, 0, 65535, "port to listen on (0: a free one)")
	verbose := fs.Bool("v", false, "print a line per request")
	if err := fs.parse(args); err != nil {
		return err
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	bin, err := tts.FindOrInstall(ctx, c.env.Err)
	if err != nil {
		return err
	}
	srv := &tts.Server{Bin: bin}
	if *verbose {
		srv.Log = c.env.Err
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(*host, strconv.Itoa(*port)))
	if err != nil {
		return fmt.Errorf("cannot listen on %s:%d: %w (pick another with --port)", *host, *port, err)
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	c.env.signals.describe("stopping the speech server")
	fmt.Fprintf(c.env.Out, "speech server: http://%s (POST /v1/audio/speech, espeak-ng %s); Ctrl-C stops it\n", ln.Addr(), bin)
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if err := hs.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
			return err
		}
		return ctx.Err()
	}
}
