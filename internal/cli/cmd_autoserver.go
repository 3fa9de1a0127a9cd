package cli

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"time"

	"ttftlab/internal/llamaserver"
)

// autoServer starts a llama-server for lab/run when --model is given and
// nothing answers at --server. stop ends it again (a no-op when nothing was
// started or --keep-server was given).
type autoServer struct {
	up   upFlags
	keep bool
	srv  *llamaserver.Server
	// synthPreset is the synthetic model the lab serves when it has neither
	// a server nor --model (default synth.DefaultPreset).
	synthPreset string
}

// ensure makes sure a server answers at f.server. requireServer makes an
// unreachable server an error even without --model (the lab needs one).
func (a *autoServer) ensure(ctx context.Context, f *scriptFlags, requireServer bool, stdout io.Writer) error {
	if _, ok := llamaserver.Health(ctx, f.server); ok {
		if a.up.model != "" {
			fmt.Fprintf(stdout, "a server already answers at %s: using it, --model is ignored\n", f.server)
		}
		return nil
	}
	if a.up.model == "" {
		if !requireServer {
			return nil
		}
		if _, _, err := localHostPort(f.server); err != nil {
			return fmt.Errorf("no LLM server answers at %s/health.\n"+
				"  Point ttftlab at a running server:   --server URL\n"+
				"  or let ttftlab start llama-server:   --model FILE.gguf", f.server)
		}
		model, err := a.synthModel(f.server, stdout)
		if err != nil {
			return err
		}
		a.up.model = model
	}
	host, port, err := localHostPort(f.server)
	if err != nil {
		return err
	}
	a.up.host, a.up.port = host, port
	srv, err := startTracked(ctx, a.up, nil, stdout)
	if err != nil {
		return err
	}
	a.srv = srv
	if !a.keep {
		port := a.up.port
		onHardExit(func() {
			srv.Stop(2 * time.Second)
			llamaserver.RemoveState(port)
		})
	}
	if f.serverLog == "" {
		f.serverLog = srv.LogPath
	}
	fmt.Fprintf(stdout, "llama-server is up at %s (PID %d)\n", srv.URL, srv.PID)
	return nil
}

func (a *autoServer) stop(stdout io.Writer) {
	if a.srv == nil {
		return
	}
	if a.keep {
		fmt.Fprintf(stdout, "llama-server keeps running at %s (PID %d); stop it with `ttftlab server down --port %d`\n",
			a.srv.URL, a.srv.PID, a.up.port)
		return
	}
	a.srv.Stop(10 * time.Second)
	llamaserver.RemoveState(a.up.port)
	fmt.Fprintf(stdout, "stopped llama-server (PID %d)\n", a.srv.PID)
}

// localHostPort splits a server URL into the host and port to start a
// server on; only this machine's addresses qualify.
func localHostPort(raw string) (string, int, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "", 0, fmt.Errorf("--server %q is not a URL like http://127.0.0.1:8080", raw)
	}
	host, portText := u.Hostname(), u.Port()
	if portText == "" {
		portText = "80"
	}
	port, err := strconv.Atoi(portText)
	if err != nil {
		return "", 0, fmt.Errorf("--server %q: bad port: %w", raw, err)
	}
	if host == "localhost" {
		host = "127.0.0.1"
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return "", 0, fmt.Errorf("--server %s is not on this machine's loopback; ttftlab starts llama-server only on 127.0.0.1 (use --server http://127.0.0.1:PORT with --model)", raw)
	}
	return host, port, nil
}
