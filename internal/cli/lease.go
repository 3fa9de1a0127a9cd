package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"ttftlab/internal/llamaserver"
	"ttftlab/internal/synth"
)

// need says what a command requires at --server.
type need int

const (
	// anyServer: a script may run without a server; only --model starts one.
	anyServer need = iota
	// serverOrSynth: the lab needs a server; without --model it serves the
	// synthetic model.
	serverOrSynth
	// serverRequired: a server must answer at --server; none is started
	// (a shard of a load run).
	serverRequired
)

// lease makes sure a server answers at --server as the command needs,
// starting one when the flags say so. The caller must release it.
func (e *env) lease(ctx context.Context, h *hostFlags, n need) (*llamaserver.Lease, error) {
	reg, err := llamaserver.OpenRegistry()
	if err != nil {
		return nil, err
	}
	want := llamaserver.Want{Endpoint: h.ep, Options: h.start.options(), Progress: e.Out, Install: true, Required: n == serverRequired}
	// The synthetic model is served at the default address only (or
	// where --synth-preset asks for it): a server the user named that
	// does not answer is a mistake to show, not one to paper over.
	named := n == serverOrSynth && h.start.model == "" && h.serverFrom != "" && !h.synthAsked
	switch {
	case named:
		want.Required = true
	case n == serverOrSynth && h.start.model == "":
		want.Fallback = func(context.Context) (string, error) { return e.synthModel(h) }
	}
	l, err := llamaserver.Ensure(e.waiting(ctx, h.server), reg, want)
	var none *llamaserver.NoServerError
	switch {
	case err != nil && n == serverRequired && errors.As(err, &none):
		return nil, fmt.Errorf("no LLM server answers at %s/health; a shard never starts one: start the server every shard loads, then point --server at it", h.server)
	case err != nil && named && errors.As(err, &none):
		return nil, fmt.Errorf("no LLM server answers at %s/health (named by %s; ttftlab serves its synthetic model unasked only at the default %s).\n"+
			"  Point ttftlab at a running server:        --server URL\n"+
			"  or let ttftlab start llama-server there:  --model FILE.gguf\n"+
			"  or serve the synthetic model there:       --synth-preset %s",
			h.server, h.serverFrom, defaultServer, synth.DefaultPreset)
	case err != nil:
		return nil, leaseHint(err, h)
	}
	if l.Endpoint == nil {
		l.Endpoint = h.ep
	}
	switch {
	case l.Answered && h.start.model != "":
		fmt.Fprintf(e.Out, "a server already answers at %s: using it, --model is ignored\n", h.server)
	case l.Tracked != nil:
		if !h.keep {
			e.signals.onHardExit(l.Kill)
		}
		fmt.Fprintf(e.Out, "llama-server is up at %s (PID %d)\n", l.URL, l.Tracked.PID)
		if h.ep.Key != "" {
			fmt.Fprintf(e.Err, "%s: the llama-server ttftlab started has no API key: the key from %s is not sent to it\n",
				label(e.cmd), h.ep.KeySource)
		}
	}
	// Also where /health did not answer 200: a hosted API has none.
	if err := e.settle(ctx, l); err != nil {
		l.Release()
		return nil, err
	}
	return l, nil
}

// serverLog is the log to search for evidence: --server-log, else the log
// of the server ttftlab started at --server (now or with `server up`).
func serverLog(l *llamaserver.Lease, h *hostFlags) string {
	if h.serverLog == "" && l != nil {
		return l.Log
	}
	return h.serverLog
}

// release stops a server the lease started, unless --keep-server.
func (e *env) release(l *llamaserver.Lease, h *hostFlags) {
	if l == nil || l.Tracked == nil {
		return
	}
	t := l.Tracked
	if h.keep {
		fmt.Fprintf(e.Out, "llama-server keeps running at %s (PID %d); stop it with `ttftlab server down --port %d`\n",
			t.URL, t.PID, t.State.Port)
		return
	}
	if err := l.Release(); err != nil {
		fmt.Fprintf(e.Err, "%s: %v\n", label(e.cmd), err)
		return
	}
	fmt.Fprintf(e.Out, "stopped llama-server (PID %d)\n", t.PID)
}

// leaseHint adds, to what went wrong, the flags that fix it.
func leaseHint(err error, h *hostFlags) error {
	var none *llamaserver.NoServerError
	var notLocal *llamaserver.NotLocalError
	var notLLM *llamaserver.NotLLMError
	var tlsErr *llamaserver.TLSError
	if errors.As(err, &notLLM) {
		// What answered refused the key on /v1/models too (a hosted
		// API, a keyed llama-server): the key is what to fix, not --server.
		if m := notLLM.Health.AnswerOf("/v1/models"); m != nil {
			if kerr := authError(h.ep.URL("/v1/models"), m.Status, m.Body, h.ep, notLLM.Route); kerr != nil {
				return kerr
			}
		}
	}
	switch {
	case errors.As(err, &tlsErr) && h.ep.TLSHint(err) != "":
		// Each cause its own way out: the CA, a new certificate, the
		// name the certificate holds.
		return fmt.Errorf("%w; %s", err, h.ep.TLSHint(err))
	case errors.As(err, &tlsErr):
		return err
	case errors.As(err, &notLLM) && notLLM.Health.Loading:
		return fmt.Errorf("%w; wait until it has loaded (`ttftlab server status` tells), or point --server at another server", err)
	case errors.As(err, &notLLM) && notLLM.Health.Busy:
		return fmt.Errorf("%w; the server is busy/overloaded: wait until it has room, or point --server at another server", err)
	case errors.As(err, &notLLM):
		return fmt.Errorf("%w.\n"+
			"  Point ttftlab at the LLM server:        --server URL\n"+
			"  or let ttftlab start one on a free port: --server http://127.0.0.1:PORT [--model FILE.gguf]", err)
	case errors.As(err, &notLocal) && h.start.model != "":
		return fmt.Errorf("--server %s is not on this machine's loopback; ttftlab starts llama-server only on 127.0.0.1 (use --server http://127.0.0.1:PORT with --model)", h.server)
	case errors.As(err, &none), errors.As(err, &notLocal):
		return fmt.Errorf("no LLM server answers at %s/health.\n"+
			"  Point ttftlab at a running server:   --server URL\n"+
			"  or let ttftlab start llama-server:   --model FILE.gguf", h.server)
	}
	return startHint(err, "choose another port in --server")
}

// startHint adds the flags that fix a failed server start; other says how
// to pick another port.
func startHint(err error, other string) error {
	var running *llamaserver.AlreadyRunningError
	var taken *llamaserver.PortTakenError
	switch {
	case errors.As(err, &running):
		return fmt.Errorf("%w; stop it with `ttftlab server down --port %d` or %s", err, running.State.Port, other)
	case errors.As(err, &taken):
		return fmt.Errorf("%w; %s", err, other)
	case errors.Is(err, llamaserver.ErrStartTimeout):
		return fmt.Errorf("%w (raise --timeout for a big model)", err)
	case errors.Is(err, llamaserver.ErrNoModel):
		return fmt.Errorf("%w: pass --model FILE", err)
	}
	return err
}

// synthModel is the lab's model when it has neither a server nor --model:
// a synthetic preset, built once into the user's cache folder.
func (e *env) synthModel(h *hostFlags) (string, error) {
	// Without llama-server the model is of no use: say so before writing it.
	if _, err := llamaserver.Find(h.start.llamaServer); err != nil {
		return "", fmt.Errorf("no server answers at %s and no --model was given, so ttftlab would serve its synthetic model, but: %w", h.server, err)
	}
	preset := h.synthPreset
	if preset == "" {
		preset = synth.DefaultPreset
	}
	path, _, err := synth.Cached(preset, e.Out)
	if err != nil {
		return "", fmt.Errorf("no server answers at %s and no --model was given, and the synthetic model could not be prepared: %w", h.server, err)
	}
	fmt.Fprintf(e.Out, "no server answers at %s and no --model was given: serving the SYNTHETIC model %s (%s).\n"+
		"  Its timings are real llama.cpp work; its answer is a scripted text. For a real model pass --model FILE.gguf.\n",
		h.server, strings.TrimSuffix(filepath.Base(path), ".gguf"), path)
	return path, nil
}
