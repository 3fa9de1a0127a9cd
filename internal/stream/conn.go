package stream

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"ttftlab/internal/wire"
)

const (
	dialTimeout = wire.DialTimeout
	// ioBufferSize sizes the transport's socket buffers: one read can take a
	// whole burst of events, one write a large prompt.
	ioBufferSize = 64 << 10
)

// clock reads the monotonic clock as time since one request began.
type clock struct{ base time.Time }

func newClock() clock { return clock{base: time.Now()} }

func (c clock) now() time.Duration { return time.Since(c.base) }

// closeReason says why the connection was closed; the first close wins.
type closeReason int

const (
	notClosed      closeReason = iota
	closedEnd                  // the stream is over ([DONE], EOF, an error found while parsing)
	closedCut                  // CutAfter elapsed
	closedByChunk              // OnChunk returned false
	closedCanceled             // the caller's context was cancelled
	closedIdle                 // IdleTimeout elapsed with nothing read
	closedTimeout              // Timeout elapsed
)

// errClosedEarly is what the dialer returns when the request was closed
// before a connection existed.
var errClosedEarly = errors.New("request closed before the connection was made")

// wireConn is the one connection of a request: net/http's (timedConn) or
// the raw-socket client's.
type wireConn interface {
	Close() error
	// t0 returns when the request's first byte was written, if it was.
	t0() (time.Duration, bool)
}

// closer owns the one connection of a request and closes it for whoever
// asks first: timers, the caller's context, the callback or the end of the
// stream. Closing the TCP connection itself (not only the response body)
// is what tells the server to stop generating.
type closer struct {
	clk     clock
	cancel  context.CancelFunc // cancels dialing and the HTTP request, for closes before a connection exists
	afterT0 func()             // runs right after the first request write returns
	// sent is when the last request write so far returned (since
	// clk.base; 0 before the first).
	sent atomic.Int64

	mu     sync.Mutex
	conn   wireConn
	reason closeReason
	at     time.Duration
}

// close closes the connection and records why and when; it reports false
// when an earlier close already happened.
func (c *closer) close(r closeReason) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.reason != notClosed {
		return false
	}
	c.reason, c.at = r, c.clk.now()
	if c.conn != nil {
		c.conn.Close()
	}
	c.cancel()
	return true
}

// state returns why and when the connection was closed (notClosed if not).
func (c *closer) state() (closeReason, time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reason, c.at
}

// dial connects with TCP_NODELAY and keeps the connection for closing and
// timing.
func (c *closer) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	conn, err := dialNoDelay(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	tc := &timedConn{Conn: conn, clk: c.clk, afterT0: c.afterT0, sent: &c.sent}
	if !c.attach(tc) {
		conn.Close()
		return nil, errClosedEarly
	}
	return tc, nil
}

// attach makes conn the request's connection; false when the request was
// closed already (the caller then closes conn itself).
func (c *closer) attach(conn wireConn) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.reason != notClosed {
		return false
	}
	c.conn = conn
	return true
}

// t0 returns when the request's first byte was written, if it was.
func (c *closer) t0() (time.Duration, bool) {
	c.mu.Lock()
	conn := c.conn
	c.mu.Unlock()
	if conn == nil {
		return 0, false
	}
	return conn.t0()
}

// armT0 makes the connection's next write take t0. It is called once the
// connection is ready (after any TLS handshake), so handshake writes do not
// count as the request.
func (c *closer) armT0() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if tc, ok := c.conn.(*timedConn); ok {
		tc.armed.Store(true)
	}
}

// dialNoDelay dials with TCP_NODELAY set (see wire.DialNoDelay).
var dialNoDelay = wire.DialNoDelay

// timedConn reads the clock right before the first request write.
type timedConn struct {
	net.Conn
	clk     clock
	afterT0 func()        // runs once the first request write has returned
	sent    *atomic.Int64 // when the last request write returned
	armed   atomic.Bool
	wrote   atomic.Bool
	start   atomic.Int64 // t0 as nanoseconds since clk.base
}

func (c *timedConn) Write(p []byte) (int, error) {
	first := c.armed.Load() && !c.wrote.Load()
	if first {
		c.start.Store(int64(c.clk.now()))
		c.wrote.Store(true)
	}
	n, err := c.Conn.Write(p)
	if c.wrote.Load() {
		c.sent.Store(int64(c.clk.now()))
	}
	if first && c.afterT0 != nil {
		c.afterT0()
	}
	return n, err
}

func (c *timedConn) t0() (time.Duration, bool) {
	if !c.wrote.Load() {
		return 0, false
	}
	return time.Duration(c.start.Load()), true
}

// newTransport builds a transport for exactly one request: no keep-alive (a
// fresh connection each time), the proxy opt.proxy chooses (by default the
// environment's), no transparent gzip (raw bytes stay raw), HTTP/1.1 only
// (so closing the connection cuts this one request), and a TLS handshake
// that notices a plain-HTTP server (tlsDial; through a proxy's tunnel
// net/http does the handshake with TLSClientConfig).
func newTransport(dial func(context.Context, string, string) (net.Conn, error), opt options) *http.Transport {
	tlsConf := opt.tls
	return &http.Transport{
		Proxy: func(req *http.Request) (*url.URL, error) { return proxyFor(opt.proxy, req.URL) },
		// A refused tunnel is the proxy's answer, as the raw-socket
		// client reports it (net/http would say only the status text).
		OnProxyConnectResponse: func(_ context.Context, proxy *url.URL, connect *http.Request, resp *http.Response) error {
			return wire.ConnectAnswer(resp, proxy, connect.URL.Host)
		},
		TLSClientConfig:     tlsConf,
		DialContext:         dial,
		DisableKeepAlives:   true,
		DisableCompression:  true,
		ForceAttemptHTTP2:   false,
		DialTLSContext:      tlsDial(dial, tlsConf),
		TLSHandshakeTimeout: dialTimeout,
		ReadBufferSize:      ioBufferSize,
		WriteBufferSize:     ioBufferSize,
	}
}

// newClient wraps a transport in a client that does not follow redirects:
// a redirect would open a second connection, so it is reported instead.
func newClient(tr *http.Transport) *http.Client {
	return &http.Client{
		Transport: tr,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}
