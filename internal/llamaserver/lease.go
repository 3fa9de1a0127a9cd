package llamaserver

import (
	"context"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"time"

	"ttftlab/internal/endpoint"
	"ttftlab/internal/servers"
	"ttftlab/internal/stream"
)

// Want says what a command needs at a URL: a server that answers, and how
// to start one when nothing does.
type Want struct {
	// Endpoint is where the server must answer and how to ask it (key,
	// headers, TLS).
	Endpoint *endpoint.Endpoint
	// Options start a server when nothing answers at URL (Host and Port
	// come from URL). With no Options.Model, Fallback picks one.
	Options Options
	// Fallback returns the model to serve when nothing answers and
	// Options.Model is empty; nil means start nothing then.
	Fallback func(ctx context.Context) (model string, err error)
	// Required makes "nothing answers and nothing to start" an error.
	Required bool
	// Progress receives what happens while a server starts.
	Progress io.Writer
	// Install installs llama-server (FindOrInstall) when a server must
	// be started and none is found.
	Install bool
}

// Lease is the server a command runs against.
type Lease struct {
	// URL is the server's base URL.
	URL string
	// Endpoint is how to reach it: want.Endpoint for a server that
	// answered, the same without a key for one Ensure started.
	Endpoint *endpoint.Endpoint
	// Answered is true when a server already answered at URL.
	Answered bool
	// Tracked is the server Ensure started, nil when it started none.
	Tracked *Tracked
	// Log is the log file of the server at URL when ttftlab started it
	// (now, or earlier with `server up`); "" when unknown.
	Log string
	// Health is what the probe found at URL; zero for a server Ensure
	// started (the probe saw none there).
	Health servers.HealthReport
	// Route is the proxy the environment names for URL, read once
	// (RouteOf): the lease's requests take it, and a refusal through it
	// names it (Route.Note).
	Route stream.Route

	asked     servers.Getter
	askedOnce sync.Once
}

// Getter GETs paths of the lease's server (its endpoint's join, headers
// and TLS), each path once: the probe's answers (Health.Asked) and every
// answer since are given again (servers.Remembering), so the checks made
// right after the server was found ready do not ask it twice.
func (l *Lease) Getter() servers.Getter {
	l.askedOnce.Do(func() { l.asked = servers.Remembering(getter(l.Endpoint, l.Route), l.Health.Asked) })
	return l.asked
}

// NoServerError says nothing healthy answers at a URL and nothing was
// there to start.
type NoServerError struct {
	URL    string
	Health string // what /health said, e.g. "not answering"
}

func (e *NoServerError) Error() string {
	return fmt.Sprintf("no LLM server answers at %s/health (%s)", e.URL, e.Health)
}

// NotLLMError says something answered at a URL, but not as a ready LLM
// server: another program on the port, or llama-server still loading.
type NotLLMError struct {
	URL    string
	Health servers.HealthReport
	// Route is the proxy the probe went through (Lease.Route).
	Route stream.Route
}

func (e *NotLLMError) Error() string {
	if e.Health.Loading {
		return fmt.Sprintf("the server at %s is still loading its model (GET /health answers 503)", e.URL)
	}
	if e.Health.Stalled || (e.Health.Status == 0 && e.Health.TLS == nil) {
		// No HTTP answer at all: the summary says what the connection did.
		return fmt.Sprintf("something accepts connections at %s but %s: something is there, but it does not answer as an LLM server (another program, or a hung or overloaded server)", e.URL, e.Health.Summary)
	}
	if e.Health.Busy {
		return fmt.Sprintf("the server at %s is not ready: GET /health answers %s", e.URL, e.Health.Summary)
	}
	return fmt.Sprintf("something answers at %s, but not as an LLM server: GET /health gave %s", e.URL, e.Health.Summary)
}

// NotLLM is the *NotLLMError of a lease on a URL where something answered
// but not as an LLM server (another program on the port; not one still
// loading or busy, nor a TLS failure), the recognition Ensure makes when
// it must start a server; nil for any other lease.
func (l *Lease) NotLLM() error {
	h := l.Health
	if l.Answered || l.Tracked != nil || !h.Answered || h.OK || h.Loading || h.Busy || h.TLS != nil {
		return nil
	}
	return &NotLLMError{URL: l.URL, Health: h}
}

// TLSError says a server answers at an https URL but its TLS handshake
// failed: an untrusted certificate, or plain HTTP.
type TLSError struct {
	URL string
	Err error
}

func (e *TLSError) Error() string {
	return fmt.Sprintf("a server answers at %s, but TLS failed: %v", e.URL, e.Err)
}

func (e *TLSError) Unwrap() error { return e.Err }

// NotLocalError says a server cannot be started for a URL that is not on
// this machine's loopback.
type NotLocalError struct {
	URL string
}

func (e *NotLocalError) Error() string {
	return fmt.Sprintf("%s is not on this machine's loopback; llama-server is started only on 127.0.0.1", e.URL)
}

// Ensure returns a lease on a server at want.URL: the one that answers
// there, or one it starts (recorded in reg) from want.Options.Model or
// want.Fallback. Without a model to serve the lease has no server, unless
// want.Required makes that a *NoServerError.
func Ensure(ctx context.Context, reg *Registry, want Want) (*Lease, error) {
	ep := want.Endpoint
	rt := RouteOf(ep)
	health := checkHealth(ctx, ep, rt)
	if health.OK {
		l := &Lease{URL: ep.Base, Endpoint: ep, Answered: true, Health: health, Route: rt}
		if st := reg.ForURL(ep.Base); st != nil && st.Alive() {
			l.Log = st.LogPath
		}
		return l, nil
	}
	wantsServer := want.Required || want.Options.Model != "" || want.Fallback != nil
	switch {
	case health.Proxy != nil:
		// The proxy's failure says nothing of the server behind it.
		return nil, health.Proxy
	case health.TLS != nil:
		// A TLS server is there: it answered a handshake ttftlab refused.
		return nil, &TLSError{URL: ep.Base, Err: health.TLS}
	case health.Stalled:
		// It would hold every request of the command as it held the
		// probe's, with or without a server to start.
		return nil, &NotLLMError{URL: ep.Base, Health: health, Route: rt}
	case health.Answered && wantsServer:
		// Starting one there would only find the port taken.
		return nil, &NotLLMError{URL: ep.Base, Health: health, Route: rt}
	case want.Options.Model == "" && want.Fallback == nil && want.Required:
		return nil, &NoServerError{URL: ep.Base, Health: health.Summary}
	case want.Options.Model == "" && want.Fallback == nil:
		return &Lease{URL: ep.Base, Endpoint: ep, Health: health, Route: rt}, nil
	case strings.HasPrefix(ep.Base, "https:"):
		// The server ttftlab starts speaks plain HTTP.
		return nil, &NoServerError{URL: ep.Base, Health: health.Summary + "; ttftlab starts llama-server only on http://"}
	}
	host, port, err := LocalAddr(ep.Base)
	if err != nil {
		return nil, err
	}
	o := want.Options
	if want.Install {
		if o.Binary, err = FindOrInstall(ctx, o.Binary, want.Progress); err != nil {
			return nil, err
		}
	}
	if o.Model == "" {
		if o.Model, err = want.Fallback(ctx); err != nil {
			return nil, err
		}
	}
	o.Host, o.Port = host, port
	t, err := reg.Start(ctx, o, want.Progress)
	if err != nil {
		return nil, err
	}
	// A server ttftlab starts has no key.
	return &Lease{URL: t.URL, Endpoint: ep.WithoutKey().WithBase(t.URL), Tracked: t, Log: t.LogPath, Route: stream.RouteFor(t.URL)}, nil
}

// Release stops the server the lease started, if any.
func (l *Lease) Release() error {
	if l == nil || l.Tracked == nil {
		return nil
	}
	return l.Tracked.Stop(10 * time.Second)
}

// Kill stops the started server quickly, for a process about to exit at
// once (a second Ctrl-C).
func (l *Lease) Kill() {
	if l != nil && l.Tracked != nil {
		l.Tracked.Stop(2 * time.Second)
	}
}

// LocalAddr splits a server URL into the loopback host and the port a
// server can be started on.
func LocalAddr(raw string) (host string, port int, err error) {
	host, port, err = endpoint.HostPort(raw)
	if err != nil {
		return "", 0, fmt.Errorf("%q is not a URL like http://127.0.0.1:8080: %w", raw, err)
	}
	if host == "localhost" {
		host = "127.0.0.1"
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return "", 0, &NotLocalError{URL: raw}
	}
	return host, port, nil
}
