package stream

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"sync/atomic"
	"time"

	"ttftlab/internal/endpoint"
)

const (
	// GetTimeout bounds every Get and Post: a call to the server's API
	// waits at most this long for its whole answer, or less when ctx ends
	// sooner. One limit for all callers, so a script's health() and
	// server_info() or `server status` never disagree about a slow server.
	GetTimeout = 5 * time.Second
	// getBodyLimit is far above any /props or /slots answer.
	getBodyLimit = 16 << 20
)

// GetOptions are what a Get or Post sends besides its URL: the
// endpoint's headers (an API key's Authorization among them; their
// secret values are scrubbed from the answer's body and the error, as a
// stream's are) and its TLS configuration (nil: Go's defaults).
type GetOptions struct {
	Header map[string]string
	TLS    *tls.Config
	// Proxy is as Request.Proxy (nil: the environment's).
	Proxy func(*url.URL) (*url.URL, error)
	// Route, when set, is the proxy chosen once for the server
	// (RouteFor), taken instead of Proxy or the environment.
	Route *Route
}

// Get fetches url with a plain GET on a fresh connection, for llama-server's
// /health, /props and /slots. Every HTTP status is an answer (a 503 while
// the model loads is not an error); err is an *Error when no complete answer
// came. At most one GetOptions is used.
func Get(ctx context.Context, url string, o ...GetOptions) (status int, body []byte, err error) {
	status, body, _, err = send(ctx, http.MethodGet, url, nil, withCall(options{}, o))
	return status, body, err
}

// GetHeader is Get that also returns the response headers (nil when none
// came).
func GetHeader(ctx context.Context, url string, o ...GetOptions) (status int, body []byte, header http.Header, err error) {
	return send(ctx, http.MethodGet, url, nil, withCall(options{}, o))
}

// Post sends body as JSON to url with a POST on a fresh connection, for the
// server's small API calls (/tokenize, /apply-template, ...), under the
// same policy as Get: every status is an answer, GetTimeout bounds the
// whole exchange.
func Post(ctx context.Context, url string, body []byte, o ...GetOptions) (status int, answer []byte, err error) {
	status, answer, _, err = send(ctx, http.MethodPost, url, body, withCall(options{}, o))
	return status, answer, err
}

func get(ctx context.Context, url string, opt options) (int, []byte, http.Header, error) {
	return send(ctx, http.MethodGet, url, nil, opt)
}

// withCall adds a caller's GetOptions to the internal options.
func withCall(opt options, o []GetOptions) options {
	if len(o) > 0 {
		if o[0].TLS != nil {
			opt.tls = o[0].TLS
		}
		opt.header = o[0].Header
		if o[0].Proxy != nil {
			opt.proxy = o[0].Proxy
		}
		opt.route = o[0].Route
	}
	return opt
}

// send is one short request: a GET without a body, or a POST of JSON.
// The answer's body and the error are scrubbed of the secrets the
// request sent (endpoint.ScrubberFor of its headers).
func send(ctx context.Context, method, url string, payload []byte, opt options) (int, []byte, http.Header, error) {
	scrub := endpoint.ScrubberFor(opt.header)
	status, body, header, err := send1(ctx, method, url, payload, opt)
	return status, scrub.Bytes(body), header, scrubError(err, scrub)
}

func send1(ctx context.Context, method, url string, payload []byte, opt options) (int, []byte, http.Header, error) {
	if _, err := requestURL(url, "/"); err != nil {
		return 0, nil, nil, err
	}
	limit := GetTimeout.String()
	if d, ok := ctx.Deadline(); ok && time.Until(d) < GetTimeout {
		limit = "the caller's deadline"
	}
	ctx, cancel := context.WithTimeout(ctx, GetTimeout)
	defer cancel()
	rt := routeOf(opt, url)
	opt = rt.taken(opt)
	// Whether a connection was made tells a server that took the request
	// and never answered from one that could not be reached in time.
	var connected atomic.Bool
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{GotConn: func(httptrace.GotConnInfo) { connected.Store(true) }})
	var reqBody io.Reader
	if payload != nil {
		reqBody = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, reqBody)
	if err != nil {
		return 0, nil, nil, newError(KindRequest, method, url, err, "cannot build the request: %v", err)
	}
	req.Header.Set("User-Agent", "ttftlab")
	for k, v := range opt.header {
		req.Header.Set(k, v)
	}
	if payload != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := newClient(newTransport(dialNoDelay, opt)).Do(req)
	if err != nil && !connected.Load() && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return 0, nil, nil, newError(KindConnect, method, url, ctx.Err(), "could not connect within %s", limit)
	}
	if err != nil {
		return 0, nil, nil, viaProxy(requestError(ctx, method, url, limit, err), method, url, rt)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusProxyAuthRequired {
		// Never the server's answer: the proxy's, when one is in between.
		e := &Error{Kind: KindHTTP, URL: url, Status: resp.StatusCode}
		if err := viaProxy(e, method, url, rt); err != e {
			return 0, nil, resp.Header, err
		}
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, getBodyLimit+1))
	switch {
	case err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
		// A body that never ends (a stream where a short answer was
		// asked for) is cut at the deadline and named as such.
		return resp.StatusCode, body, resp.Header, newError(KindTimeout, method, url, ctx.Err(),
			"answered HTTP %d (%s) but the body did not end within %s (%d bytes so far)",
			resp.StatusCode, contentType(resp.Header), limit, len(body))
	case err != nil && ctx.Err() != nil:
		return resp.StatusCode, body, resp.Header, requestError(ctx, method, url, limit, err)
	case err != nil:
		return resp.StatusCode, body, resp.Header, newError(KindDropped, method, url, err,
			"the connection broke after %d bytes of the body: %v", len(body), unwrapURLError(err))
	case len(body) > getBodyLimit:
		return resp.StatusCode, body[:getBodyLimit], resp.Header, newError(KindBadData, method, url, nil,
			"the body is larger than %d bytes; is this the server's API?", getBodyLimit)
	}
	return resp.StatusCode, body, resp.Header, nil
}

// requestError tells a timeout or cancellation apart from a connection problem.
func requestError(ctx context.Context, method, url, limit string, err error) error {
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return newError(KindTimeout, method, url, ctx.Err(), "the connection was accepted, but no complete answer came within %s; is the server hung or busy?", limit)
	case ctx.Err() != nil:
		return newError(KindCanceled, method, url, ctx.Err(), "canceled: %v", ctx.Err())
	}
	return connectError(method, url, err)
}

// contentType is the answer's Content-Type as a message shows it.
func contentType(h http.Header) string {
	if ct := h.Get("Content-Type"); ct != "" {
		return ct
	}
	return "no Content-Type"
}
