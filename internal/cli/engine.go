package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"time"
)

// engineServe is a `serve` command of a default engine (`stt serve`,
// `tts serve`): found or installed, served on --host:--port until Ctrl-C.
type engineServe struct {
	env   *env
	about string
	port  int // the default --port
	// what the server is, on its banner and Ctrl-C's line ("speech
	// server"), and what it answers ("POST /v1/audio/speech").
	what, answers string
	findOrInstall func(ctx context.Context, log io.Writer) (string, error)
	version       func(bin string) string
	// server is the engine's handler for bin, a line per request to log
	// (nil: none); warm, when not nil, readies it before it is announced;
	// stop, when not nil, ends its processes.
	server func(bin string, log io.Writer) (h http.Handler, warm func() error, stop func() error)
}

func (c *engineServe) Run(ctx context.Context, args []string) error {
	fs := c.env.flags("[--host H] [--port N]", c.about)
	host := fs.String("host", "127.0.0.1", "address to listen on")
	port := fs.intFlag("port", c.port, 0, 65535, "port to listen on (0: a free one)")
	verbose := fs.Bool("v", false, "print a line per request")
	if err := fs.parse(args); err != nil {
		return err
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	bin, err := c.findOrInstall(ctx, c.env.Err)
	if err != nil {
		return err
	}
	var log io.Writer
	if *verbose {
		log = c.env.Err
	}
	h, warm, stop := c.server(bin, log)
	if stop == nil {
		stop = func() error { return nil }
	}
	defer stop()
	ln, err := net.Listen("tcp", net.JoinHostPort(*host, strconv.Itoa(*port)))
	if err != nil {
		return fmt.Errorf("cannot listen on %s:%d: %w (pick another with --port)", *host, *port, err)
	}
	if warm != nil {
		if err := warm(); err != nil {
			ln.Close()
			return err
		}
	}
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	c.env.signals.describe("stopping the " + c.what)
	fmt.Fprintf(c.env.Out, "%s: http://%s (%s; %s %s); Ctrl-C stops it\n", c.what, ln.Addr(), c.answers, c.version(bin), bin)
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		stop()
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if err := hs.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
			return err
		}
		return ctx.Err()
	}
}

// programInstall is an `install` command (`server install`, `stt
// install`, `tts install`): the program's install script run, its path
// printed.
type programInstall struct {
	env   *env
	about string
	name  string // the program, on the printed line and --force's help
	// install runs the script; failedHint says what to do when it failed.
	install    func(ctx context.Context, force bool, log io.Writer) (string, error)
	failedHint string
}

func (c *programInstall) Run(ctx context.Context, args []string) error {
	fs := c.env.flags("[--force]", c.about)
	force := fs.Bool("force", false, "reinstall even when "+c.name+" is already found")
	if err := fs.parse(args); err != nil {
		return err
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	path, err := c.install(ctx, *force, c.env.Err)
	if err != nil {
		return fmt.Errorf("%w; %s", err, c.failedHint)
	}
	fmt.Fprintf(c.env.Out, "%s: %s\n", c.name, path)
	return nil
}

// serveForRun serves a default engine's handler on a free loopback port
// for one run (`--tts default`, `--stt default`): its base URL, and the
// stop that shuts the server down and then ends the engine's own
// processes (closeEngine; nil when it keeps none between requests).
// what names the engine in an error ("speech engine").
func serveForRun(h http.Handler, closeEngine func() error, what string) (base string, stop func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", func() {}, fmt.Errorf("the default %s cannot listen on loopback: %w", what, err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	return "http://" + ln.Addr().String(), func() {
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
		if closeEngine != nil {
			closeEngine()
		}
	}, nil
}
