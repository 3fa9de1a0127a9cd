package llamaserver

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"syscall"

	"ttftlab/internal/endpoint"
	"ttftlab/internal/servers"
	"ttftlab/internal/stream"
)

// Health asks the endpoint's /health once through stream.Get (and its
// timeout policy), with the endpoint's headers and TLS; ok is true for
// 200 {"status":"ok"}. status describes what was seen: "ok", "loading
// model", "not answering", "HTTP 404 ...".
func Health(ctx context.Context, ep *endpoint.Endpoint) (status string, ok bool) {
	r := CheckHealth(ctx, ep)
	return r.Summary, r.OK
}

// get is one GET of a path of the endpoint, with its headers and TLS,
// through the proxy chosen once for it (rt, RouteOf).
func get(ctx context.Context, ep *endpoint.Endpoint, rt stream.Route, path string) (int, []byte, http.Header, error) {
	return stream.GetHeader(ctx, ep.URL(path), stream.GetOptions{Header: ep.Headers(), TLS: ep.TLS, Route: &rt})
}

// RouteOf is the proxy the environment names for the endpoint's server,
// read once (stream.RouteFor): the probes and a lease's requests take it,
// and what names the proxy when it refuses or holds a request.
func RouteOf(ep *endpoint.Endpoint) stream.Route { return stream.RouteFor(ep.Base) }

// CheckHealth asks the endpoint's /health once through stream.Get; when
// that is not llama-server's ready answer, servers.Others asks as other
// kinds answer. /health is one servers.Round (a server that takes the
// request and gives no whole answer within servers.ProbeTimeout is
// Stalled), the other kinds' paths another. OK is a 200
// {"status":"ok"} (or another kind's ready answer); Loading is llama-server's 503 while it loads its model (a body
// that says so, "Loading model", older builds "loading model", or none);
// Busy any other 503; Summary "ok", "loading model", "not answering" or
// "HTTP 404 (text/html): <start of the body>".
func CheckHealth(ctx context.Context, ep *endpoint.Endpoint) servers.HealthReport {
	return checkHealth(ctx, ep, RouteOf(ep))
}

// checkHealth is CheckHealth through the route rt.
func checkHealth(ctx context.Context, ep *endpoint.Endpoint, rt stream.Route) servers.HealthReport {
	round, cancel := servers.Round(ctx)
	defer cancel()
	var header http.Header
	code, body, err := servers.Ask(round, func(ctx context.Context, path string) (int, []byte, error) {
		code, body, h, err := get(ctx, ep, rt, path)
		header = h
		return code, body, err
	}, "/health")
	if err != nil {
		var proxy *stream.ProxyError
		if errors.As(err, &proxy) {
			return servers.HealthReport{Path: "/health", Proxy: err, Summary: err.Error()}
		}
		if servers.Stalled(round, err) {
			// The connection was taken: something is there and does
			// not answer, a proxy when one took it.
			if pe := rt.Stall(ep.URL("/health"), servers.ProbeTimeout); pe != nil {
				return servers.HealthReport{Path: "/health", Proxy: pe, Summary: pe.Error()}
			}
			return servers.StalledReport("/health", code)
		}
		if tlsFailure(err) {
			return servers.HealthReport{Answered: true, Path: "/health", TLS: err, Summary: "TLS failed: " + err.Error()}
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) {
			// The connection was taken and closed without an answer:
			// something holds the port, so none can be started there.
			return servers.HealthReport{Answered: true, Path: "/health", Summary: "closed the connection without answering GET /health"}
		}
		return servers.HealthReport{Path: "/health", Summary: "not answering"}
	}
	r := servers.HealthReport{Answered: true, Path: "/health", Status: code, ContentType: header.Get("Content-Type")}
	// The answer is read by the rules every kind's probe uses
	// (servers.HealthyBody, servers.LoadingBody).
	switch {
	case code == http.StatusOK && servers.HealthyBody(body):
		r.OK, r.Summary = true, "ok"
	case code == http.StatusServiceUnavailable && servers.LoadingBody(body):
		r.Loading, r.Summary = true, "loading model"
	case code == http.StatusServiceUnavailable:
		r.Busy, r.Summary = true, fmt.Sprintf("busy/overloaded (HTTP 503: %q)", bytes.TrimSpace(firstBytes(body, 120)))
	default:
		o := servers.Others(ctx, getter(ep, rt), r)
		r.Asked = o.Asked
		if o.OK {
			// Another kind of server (Ollama's /api/version, a hosted
			// API's /v1/models): ready too.
			r.OK, r.Path, r.Status, r.Summary = true, o.Path, o.Status, "ok"
			return r
		}
		ct := r.ContentType
		if ct == "" {
			ct = "no Content-Type"
		}
		r.Summary = fmt.Sprintf("HTTP %d (%s): %q", code, ct, bytes.TrimSpace(firstBytes(body, 120)))
	}
	return r
}

// getter GETs paths of the endpoint (its join, headers and TLS, the
// route rt), for the servers probes.
func getter(ep *endpoint.Endpoint, rt stream.Route) servers.Getter {
	return func(ctx context.Context, path string) (int, []byte, error) {
		code, body, _, err := get(ctx, ep, rt, path)
		return code, body, err
	}
}

func firstBytes(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}

// Probe is what /health, /props and /slots tell about a server.
type Probe struct {
	Healthy    bool
	Health     string // as Health reports it
	Model      string // model_path from /props
	NCtx       int    // per-slot context
	Slots      int
	Processing int // slots with is_processing true
	// PropsStatus and PropsBody are the answer of GET /props when it was
	// not 200 (llama-server started with --api-key answers 401 to a
	// request without the key): Model, NCtx and Slots are then unknown,
	// not zero. PropsStatus is 0 when /props answered 200 or not at all.
	PropsStatus int
	PropsBody   []byte
}

// Ask queries a server's health, model, context and slots. Fields it could
// not read stay zero.
func Ask(ctx context.Context, ep *endpoint.Endpoint) Probe {
	var p Probe
	rt := RouteOf(ep)
	h := checkHealth(ctx, ep, rt)
	p.Health, p.Healthy = h.Summary, h.OK
	if !p.Healthy {
		return p
	}
	var props struct {
		ModelPath  string `json:"model_path"`
		TotalSlots int    `json:"total_slots"`
		Gen        struct {
			NCtx int `json:"n_ctx"`
		} `json:"default_generation_settings"`
	}
	code, body, _, err := get(ctx, ep, rt, "/props")
	switch {
	case err == nil && code != http.StatusOK:
		p.PropsStatus, p.PropsBody = code, body
	case err == nil && json.Unmarshal(body, &props) == nil:
		p.Model, p.Slots, p.NCtx = props.ModelPath, props.TotalSlots, props.Gen.NCtx
	}
	var slots []struct {
		IsProcessing bool `json:"is_processing"`
	}
	if getJSON(ctx, ep, rt, "/slots", &slots) == nil {
		for _, s := range slots {
			if s.IsProcessing {
				p.Processing++
			}
		}
	}
	return p
}

func getJSON(ctx context.Context, ep *endpoint.Endpoint, rt stream.Route, path string, v any) error {
	code, body, _, err := get(ctx, ep, rt, path)
	if err != nil {
		return err
	}
	if code != http.StatusOK {
		return fmt.Errorf("GET %s: HTTP %d", ep.URL(path), code)
	}
	return json.Unmarshal(body, v)
}

// tlsFailure reports a request that reached a server but failed in the
// TLS handshake: an untrusted certificate, or plain HTTP at an https URL.
func tlsFailure(err error) bool {
	var certErr *tls.CertificateVerificationError
	var unknownAuth x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var invalid x509.CertificateInvalidError
	var alert tls.AlertError
	return errors.As(err, &certErr) || errors.As(err, &unknownAuth) || errors.As(err, &hostErr) ||
		errors.As(err, &invalid) || errors.As(err, &alert) || errors.Is(err, stream.ErrPlainHTTP)
}
