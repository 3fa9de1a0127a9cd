package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"ttftlab/internal/llamaserver"
)

// upFlags are the flags that start a server: `server up`, and lab/run with
// --model.
type upFlags struct {
	model, host, llamaServer string
	port, ctx, slots, cache  int
	threads                  int
	timeout                  time.Duration
}

func (u *upFlags) register(fs *flag.FlagSet, withPort bool) {
	fs.StringVar(&u.model, "model", "", "GGUF model file to serve")
	if withPort {
		fs.StringVar(&u.host, "host", "127.0.0.1", "address llama-server listens on")
		fs.IntVar(&u.port, "port", 8080, "port llama-server listens on")
	}
	fs.IntVar(&u.ctx, "ctx", 4096, "context size (-c)")
	fs.IntVar(&u.slots, "slots", 1, "parallel slots (-np)")
	fs.IntVar(&u.cache, "cache-ram", 0, "host-memory prompt cache in MiB (--cache-ram; 0 keeps cache experiments clean)")
	fs.IntVar(&u.threads, "threads", 0, "llama-server threads (-t); 0: every core but one, which stays free for ttftlab's reads")
	fs.DurationVar(&u.timeout, "timeout", 120*time.Second, "how long to wait for the model to load")
	fs.StringVar(&u.llamaServer, "llama-server", "", "llama-server binary (default: $LLAMA_SERVER, PATH, then the installed copy)")
}

// startTracked starts llama-server detached and records it in the state
// folder, so `ttftlab server` commands can find it later.
func startTracked(ctx context.Context, u upFlags, extra []string, progress io.Writer) (*llamaserver.Server, error) {
	if st, err := llamaserver.LoadState(u.port); err != nil {
		return nil, err
	} else if st != nil {
		if st.Alive() {
			return nil, fmt.Errorf("ttftlab already runs llama-server on port %d (PID %d, %s); "+
				"stop it with `ttftlab server down --port %d` or choose another --port", u.port, st.PID, st.URL, u.port)
		}
		fmt.Fprintf(progress, "removing stale state for port %d (PID %d is gone)\n", u.port, st.PID)
		if err := llamaserver.RemoveState(u.port); err != nil {
			return nil, err
		}
	}
	bin, err := llamaserver.Find(u.llamaServer)
	if err != nil {
		return nil, err
	}
	logPath, err := llamaserver.LogPathFor(u.port)
	if err != nil {
		return nil, err
	}
	model, _ := filepath.Abs(u.model)
	fmt.Fprintf(progress, "starting llama-server on %s:%d with %s (log: %s)\n", u.host, u.port, model, logPath)
	srv, err := llamaserver.Start(ctx, llamaserver.Options{
		Binary: bin, Model: model, Host: u.host, Port: u.port, Ctx: u.ctx, Slots: u.slots,
		CacheRAM: u.cache, Threads: u.threads, Extra: extra, LogPath: logPath, Timeout: u.timeout, Detach: true,
		Progress: progressPrinter(progress),
	})
	if err != nil {
		return nil, err
	}
	st := llamaserver.State{PID: srv.PID, Port: u.port, URL: srv.URL, Model: model, Args: srv.Args,
		LogPath: logPath, Started: time.Now()}
	if err := llamaserver.SaveState(st); err != nil {
		srv.Stop(10 * time.Second)
		return nil, fmt.Errorf("llama-server started but its state could not be saved, so it was stopped: %w", err)
	}
	return srv, nil
}

func serverUp(args []string, stdout, stderr io.Writer) int {
	var u upFlags
	fs := newFlagSet("server up", "ttftlab server up --model FILE [flags] [-- extra llama-server args]", stderr)
	u.register(fs, true)
	if err := fs.Parse(args); err != nil {
		return parseErrCode(err)
	}
	if u.model == "" {
		fmt.Fprintln(stderr, "ttftlab server up: --model FILE is required")
		fs.Usage()
		return 2
	}
	ctx, stop := interruptContext(stderr, "stopping the server start-up")
	defer stop()
	srv, err := startTracked(ctx, u, fs.Args(), stdout)
	if err != nil {
		fmt.Fprintf(stderr, "ttftlab server up: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "llama-server is up: %s (PID %d)\n  command: %s\n  log: %s\n  stop it with: ttftlab server down --port %d\n",
		srv.URL, srv.PID, strings.Join(srv.Args, " "), srv.LogPath, u.port)
	return 0
}
