package stream

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"ttftlab/internal/audio"
	"ttftlab/internal/endpoint"
	"ttftlab/internal/sse"
	"ttftlab/internal/wire"
)

const (
	// DefaultPath is appended to Request.URL when Request.Path is empty.
	DefaultPath = "/v1/chat/completions"
	// DefaultIdleTimeout applies when Request.IdleTimeout is 0.
	DefaultIdleTimeout = 30 * time.Second

	errorBodyLimit = 64 << 10 // enough for any error JSON
	peekLimit      = 4 << 10  // what a non-streaming body shows of itself
)

// options are settings tests need and callers do not.
type options struct {
	tls *tls.Config
	// header is a Get's or Post's extra headers (a stream's are
	// Request.Header).
	header map[string]string
	// proxy is Request.Proxy, for Get and Post too.
	proxy func(*url.URL) (*url.URL, error)
	// route is the proxy chosen once for the request (GetOptions.Route,
	// or routeOf as the request starts).
	route *Route
}

// Do sends req on a fresh connection and reads the streamed answer.
//
// t0 is read right before the request's first byte goes to the socket
// (after any TLS handshake, so with TLS it is read after the first record
// is encrypted). Every time in the Result counts from t0. Body bytes that
// arrived in the same socket read as the headers carry that read's stamp
// (net/http: the stamp of the reader's first read, microseconds after
// HeadersMs).
//
// A cut (CutAfter, OnChunk returning false) is not an error: Do returns the
// partial Result and nil. Every other failure returns the Result so far and
// an *Error; cancelling ctx returns an *Error of KindCanceled that wraps
// ctx.Err().
func Do(ctx context.Context, req Request) (*Result, error) {
	return do(ctx, req, options{})
}

// do is Do, the server's words scrubbed of the secrets the request sent
// (endpoint.ScrubberFor of its headers): the raw copy as it is written
// (the stamps are taken before), each chunk's text, a secret spanning
// chunks once the stream has ended, and the error.
func do(ctx context.Context, req Request, opt options) (*Result, error) {
	scrub := endpoint.ScrubberFor(req.Header)
	var raw *endpoint.ScrubWriter
	if scrub != nil && req.RawOut != nil {
		raw = scrub.Writer(req.RawOut).(*endpoint.ScrubWriter)
		req.RawOut = raw
	}
	res, err := run1(ctx, req, opt, scrub)
	if scrub != nil && res != nil {
		scrubPieces(scrub, res.Chunks)
		scrubPieces(scrub, res.Info.Reasoning)
	}
	if raw != nil {
		if ferr := raw.Flush(); ferr != nil && err == nil {
			err = newError(KindRawOut, "POST", req.URL, ferr, "writing the raw output failed at the end: %v", ferr)
		}
	}
	return res, scrubError(err, scrub)
}

// scrubPieces takes out of chunks a secret that spans several of them,
// which scrubbing each chunk's text alone cannot see (a server that
// echoes the key a few characters per chunk); the stamps stay.
func scrubPieces(scrub *endpoint.Scrubber, chunks []Chunk) {
	texts := make([]string, len(chunks))
	for i, c := range chunks {
		texts[i] = c.Text
	}
	for i, t := range scrub.Pieces(texts) {
		chunks[i].Text = t
	}
}

func run1(ctx context.Context, req Request, opt options, scrub *endpoint.Scrubber) (*Result, error) {
	if opt.tls == nil {
		opt.tls = req.TLS
	}
	if opt.proxy == nil {
		opt.proxy = req.Proxy
	}
	r := &run{req: req, ctx: ctx, res: &Result{Info: Info{API: req.API}}, scrub: scrub}
	path := req.Path
	if path == "" {
		path = req.API.Path()
	}
	target, err := requestURL(req.URL, path)
	if err != nil {
		return r.res, err
	}
	r.url = target
	if len(req.Body) == 0 {
		return r.res, newError(KindRequest, "POST", target, nil, "the request body is empty")
	}
	switch req.API {
	case APISpeech:
		if err := r.speech(); err != nil {
			return r.res, err
		}
	case APITranscription:
		r.transcription()
	}
	rt := routeOf(opt, target)
	err = viaProxy(r.execute(req.Body, rt.taken(opt)), "POST", target, rt)
	r.res.Info.StampSource = sourceOf(r.sources)
	if r.cl != nil && r.cl.sent.Load() > 0 && r.t0 > 0 {
		sent := time.Duration(r.cl.sent.Load())
		r.res.Info.SentMs = ms(sent - r.t0)
	}
	if r.meter != nil {
		a := r.meter.Result()
		r.res.Audio = &a
	}
	return r.res, err
}

// sourceOf names a set of stamp sources (bit i: StampSource i).
func sourceOf(set uint8) StampSource {
	for s := SourceKernel; s < SourceMixed; s++ {
		if set == 1<<s {
			return s
		}
	}
	if set == 0 {
		return SourceNone
	}
	return SourceMixed
}

// requestURL joins the server's base URL and the path (endpoint.Join),
// rejecting what cannot be a server address.
func requestURL(base, path string) (string, error) {
	clean, err := endpoint.ParseBase(base)
	if err != nil {
		// ParseBase says why, the URL shown without its password.
		return "", &Error{Kind: KindRequest, URL: endpoint.ShownURL(base), Err: err, text: err.Error()}
	}
	if path == "" {
		path = DefaultPath
	}
	return endpoint.Join(clean, path), nil
}

// EncodeBody encodes a request body for Go callers, without HTML
// escaping, so prompt text keeps its bytes (and its token count).
func EncodeBody(body any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(body); err != nil {
		return nil, fmt.Errorf("cannot encode the request body as JSON: %w", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// run is the state of one Do call.
type run struct {
	req Request
	ctx context.Context
	url string
	res *Result
	// lineErr is an error line the event parser passed over (strayLine).
	lineErr *Error
	// scrub takes the request's secrets out of the chunks' text.
	scrub *endpoint.Scrubber

	clk      clock
	cl       *closer
	t0       time.Duration // since clk.base; 0 until known
	idle     *time.Timer
	idleD    time.Duration
	lastRead atomic.Int64               // the last read's time since clk.base, set by the reader
	headDone atomic.Bool                // the response head is whole: the idle limit counts from lastRead
	stops    []func() bool              // timers and context hooks to stop at the end
	cutTimer atomic.Pointer[time.Timer] // armed right after the first request write

	// The hand-off from the reader: the batch being worked through, and
	// for the raw-socket client the body's framing and the body bytes that
	// came in the read that completed the head.
	h        wire.Reads
	frame    *wire.Framing
	start    []byte
	startSt  stamp
	hasStart bool
	pieces   [][]byte
	rawBuf   []byte // one read's body pieces joined for RawOut

	parser sse.ParserOf[stamp]
	meter  *audio.Meter // an APISpeech answer's
	// whole gathers an APITranscription answer that is one JSON object;
	// wholeAt is the stamp of the read that brought its last bytes.
	whole   []byte
	inWhole bool
	wholeAt time.Duration
	// deltas joins a streamed transcription's deltas.
	deltas  strings.Builder
	chunks  int
	bytes   int64
	sources uint8 // bit set of the content chunks' stamp sources
}

func (r *run) execute(body []byte, opt options) error {
	if r.ctx.Err() != nil {
		return r.canceledErr()
	}
	u, _ := url.Parse(r.url) // checked by requestURL
	r.clk = newClock()
	// The request's own context only ever ends through the closer, so the
	// reason for every close is known.
	reqCtx, cancel := context.WithCancel(context.WithoutCancel(r.ctx))
	r.cl = &closer{clk: r.clk, cancel: cancel, afterT0: r.afterT0}
	defer r.cleanup()
	r.startTimers()
	if w := r.req.Wire.choose(u, opt); w != WireNetHTTP {
		return r.executeRaw(reqCtx, u, body, w, opt)
	}
	return r.executeHTTP(reqCtx, body, opt)
}

// executeHTTP sends the request with net/http (https, and every platform
// without the raw-socket client).
func (r *run) executeHTTP(reqCtx context.Context, body []byte, opt options) error {
	hreq, err := r.newHTTPRequest(reqCtx, body)
	if err != nil {
		return newError(KindRequest, "POST", r.url, err, "cannot build the request: %v", err)
	}
	resp, err := newClient(newTransport(r.cl.dial, opt)).Do(hreq)
	headersAt := r.clk.now()
	if err != nil {
		return r.failedBeforeHeaders(err)
	}
	defer resp.Body.Close()
	r.setT0()
	r.res.Info.Status = resp.StatusCode
	r.res.Info.HeadersMs = ms(headersAt - r.t0)
	r.lastRead.Store(int64(headersAt))
	r.headDone.Store(true)
	if err := r.checkResponse(resp); err != nil {
		return err
	}
	h := wire.NewHandoff()
	r.h = h
	rd := wire.StartReader(resp.Body, r.clk.forWire(), h, &r.lastRead)
	defer func() {
		r.cl.close(closedEnd)
		rd.Stop()
		r.recycle()
	}()
	return r.stream()
}

// setT0 records t0 once the connection has taken it.
func (r *run) setT0() {
	var ok bool
	if r.t0, ok = r.cl.t0(); ok {
		r.res.Info.T0 = r.clk.base.Add(r.t0)
	}
}
