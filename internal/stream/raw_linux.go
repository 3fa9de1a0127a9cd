package stream

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"

	"ttftlab/internal/wire"
)

// rawConn is a raw-socket connection as the closer holds it.
type rawConn struct{ *wire.Conn }

func (c rawConn) t0() (time.Duration, bool) { return c.T0() }

// executeRaw sends the request with ttftlab's own HTTP/1.1 client: its
// socket is read by the poller thread (WireEpoll) or a thread of its own
// (WireThread), never by Go's netpoller, and every read carries its
// stamp to this goroutine through a handoff.
func (r *run) executeRaw(reqCtx context.Context, u *url.URL, body []byte, w Wire, opt options) error {
	proxy, err := proxyFor(opt.proxy, u)
	if err != nil {
		return newError(KindRequest, "POST", r.url, err, "cannot choose a proxy: %v", err)
	}
	if proxy != nil && proxy.Scheme != "http" {
		return r.executeHTTP(reqCtx, body, opt) // net/http speaks https and socks5 proxies
	}
	var head []byte
	if proxy != nil && u.Scheme == "http" {
		head, err = wire.ProxiedRequestHead(u, proxy, r.req.Header, len(body))
	} else {
		head, err = wire.RequestHead(u, r.req.Header, len(body))
	}
	if err != nil {
		return newError(KindRequest, "POST", r.url, err, "cannot build the request: %v", err)
	}
	addr, dialAddr := hostPort(u), hostPort(u)
	if proxy != nil {
		dialAddr = hostPort(proxy)
	}
	c, err := wire.Dial(reqCtx, dialAddr, wire.Options{Clock: r.clk.forWire(), KernelStamps: !r.req.NoKernelStamps, Last: &r.lastRead})
	if err != nil {
		if proxy != nil {
			err = &net.OpError{Op: "proxyconnect", Net: "tcp", Err: err}
		}
		return r.failedBeforeHeaders(err)
	}
	r.h = c.Handoff()
	if !r.cl.attach(rawConn{c}) {
		c.Close()
		c.Release()
		return r.failedBeforeHeaders(errClosedEarly)
	}
	mode := wire.ModeEpoll
	if w == WireThread {
		mode = wire.ModeThread
	}
	if err := c.Start(mode, r.handOff()); err != nil {
		c.Close()
		c.Release()
		return r.failedBeforeHeaders(err)
	}
	defer func() {
		r.cl.close(closedEnd)
		c.Release()
		r.recycle()
	}()
	write := c.WriteAll
	if u.Scheme == "https" {
		if proxy != nil {
			if err := c.Connect(addr, proxy); err != nil {
				return r.failedBeforeHeaders(err)
			}
		}
		tc := wire.Client(c, tlsConfig(opt.tls, addr))
		handshake := tc.Handshake
		if proxy == nil {
			// The plain-HTTP probe dials the server itself: not through a proxy.
			handshake = func(ctx context.Context) error {
				return probedHandshake(ctx, addr, func() { c.Close() }, tc.Handshake)
			}
		}
		if err := boundedHandshake(reqCtx, handshake); err != nil {
			return r.failedBeforeHeaders(err)
		}
		r.h, write = tc, tc.WriteAll
	}
	// A failed write still lets a response that came first be read (a
	// server may refuse a request before reading all of it), as net/http
	// does; without one, the write error is what went wrong.
	werr := write(head, body, r.cl.afterT0)
	if werr == nil {
		r.cl.sent.Store(int64(r.clk.now()))
	}
	resp, err := r.readHead()
	if err != nil {
		if werr != nil && !errors.Is(werr, wire.ErrWriteClosed) {
			err = werr
		}
		return r.failedBeforeHeaders(err)
	}
	return r.respond(resp)
}

// respond checks the response head and streams its body.
func (r *run) respond(resp *http.Response) error {
	r.setT0()
	r.res.Info.Status = resp.StatusCode
	r.res.Info.HeadersMs = ms(r.startSt.at - r.t0)
	r.frame = wire.NewFraming(resp)
	resp.Body = &bodyReader{r: r}
	if err := r.checkResponse(resp); err != nil {
		return err
	}
	return r.stream()
}

// handOff is the request's hand-off bound (see Request.HandOff).
func (r *run) handOff() time.Duration {
	switch {
	case r.req.HandOff != 0:
		return r.req.HandOff
	case r.req.OnChunk != nil:
		return DefaultHandOff
	}
	return DefaultHandOffNoCallback
}

// readHead reads until the response head is complete, skipping interim
// 1xx answers as net/http does. The bytes after the head are the body's
// start; they keep the stamp of the read that brought them.
func (r *run) readHead() (*http.Response, error) {
	var hr wire.HeadReader
	for {
		m := r.nextMsg()
		for data := m.data; len(data) > 0; {
			head, rest, done, err := hr.Feed(data)
			if err != nil || !done {
				if err != nil {
					return nil, err
				}
				break
			}
			resp, err := wire.ParseHead(head)
			if err != nil {
				return nil, err
			}
			if !wire.Interim(resp) {
				r.start, r.startSt, r.hasStart = rest, m.st, true
				r.headDone.Store(true)
				return resp, nil
			}
			hr, data = wire.HeadReader{}, rest
		}
		if m.err != nil {
			if errors.Is(m.err, io.EOF) && hr.Partial() {
				return nil, io.ErrUnexpectedEOF
			}
			return nil, m.err
		}
	}
}

// hostPort is the address to dial for u (port 80, or 443 for https, when
// it names none).
func hostPort(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	if u.Scheme == "https" {
		return net.JoinHostPort(u.Hostname(), "443")
	}
	return net.JoinHostPort(u.Hostname(), "80")
}

// bodyReader reads the body for the messages of non-stream answers.
type bodyReader struct {
	r   *run
	cur []byte
	err error
}

func (b *bodyReader) Read(p []byte) (int, error) {
	for len(b.cur) == 0 && b.err == nil {
		pieces, _, err := b.r.nextRead()
		for _, pc := range pieces {
			b.cur = append(b.cur, pc...)
		}
		b.err = err
	}
	n := copy(p, b.cur)
	b.cur = b.cur[n:]
	if n > 0 {
		return n, nil
	}
	return 0, b.err
}

// Close does nothing: the connection belongs to the closer.
func (b *bodyReader) Close() error { return nil }
