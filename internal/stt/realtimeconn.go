package stt

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"ttftlab/internal/endpoint"
	"ttftlab/internal/wire"
)

// The WebSocket library reads a message through a buffered reader of its
// own, so the moment a message's bytes came off the socket is taken below
// it: the socket is a wire.NetpollConn, whose every read is one recvmsg
// stamped with the kernel's receive time (else the clock right after it
// returned), and stampConn, above TLS when there is TLS, follows the
// server's frames in the bytes it passes up (a server's frames are
// unmasked, their lengths in their headers), so that the read that
// brought the last byte of each data message is known. The k-th message
// the library hands up is the k-th data message completed on the wire,
// so its stamp is the k-th stamp queued here.

// stampConn is a client's connection that queues the stamp of each data
// message completed by the bytes read.
type stampConn struct {
	net.Conn                   // the socket, or TLS over it
	sock     *wire.NetpollConn // the socket
	clk      wire.Clock
	mu       sync.Mutex
	stamps   []time.Time // completed data messages' stamps, oldest first
	scan     frameScan
}

// Read reads the connection; the bytes it returns came in the socket's
// last read (TLS: a record's last bytes came in it, or in an earlier
// one: the stamp is at worst late), whose stamp they take.
func (c *stampConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		at := c.clk.Base.Add(c.sock.Last().At)
		c.mu.Lock()
		c.scan.feed(p[:n], func() { c.stamps = append(c.stamps, at) })
		c.mu.Unlock()
	}
	return n, err
}

// next is the stamp of the oldest data message not yet taken: the
// message the library just handed up.
func (c *stampConn) next() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.stamps) == 0 {
		// A message the frames did not show (cannot happen with
		// uncompressed frames): the latest possible stamp.
		return time.Now()
	}
	at := c.stamps[0]
	c.stamps = c.stamps[1:]
	return at
}

// frameScan follows a server's side of a WebSocket connection: the HTTP
// response head, then frames (RFC 6455 section 5.2).
type frameScan struct {
	body    bool     // past the response head
	crlf    int      // bytes of "\r\n\r\n" matched at the head's end
	hdr     [14]byte // the frame header being read
	hn      int      // its bytes so far
	need    int      // its length, once its second byte is known (2 before)
	left    uint64   // payload bytes of the current frame still to come
	payload bool     // inside a frame's payload
}

// feed follows b; done is called for each data message that b completes.
func (s *frameScan) feed(b []byte, done func()) {
	for len(b) > 0 {
		switch {
		case !s.body:
			c := b[0]
			b = b[1:]
			switch {
			case c == "\r\n\r\n"[s.crlf]:
				s.crlf++
			case c == '\r':
				s.crlf = 1
			default:
				s.crlf = 0
			}
			if s.crlf == 4 {
				s.body, s.need = true, 2
			}
		case s.payload:
			k := uint64(len(b))
			if k > s.left {
				k = s.left
			}
			b = b[k:]
			s.left -= k
			if s.left == 0 {
				s.payload = false
				s.frameEnd(done)
			}
		default:
			s.hdr[s.hn] = b[0]
			s.hn++
			b = b[1:]
			if s.hn == 2 {
				s.need = 2
				switch s.hdr[1] & 0x7f {
				case 126:
					s.need += 2
				case 127:
					s.need += 8
				}
				if s.hdr[1]&0x80 != 0 {
					s.need += 4 // a mask key (servers send none)
				}
			}
			if s.hn < s.need {
				continue
			}
			switch l := s.hdr[1] & 0x7f; l {
			case 126:
				s.left = uint64(s.hdr[2])<<8 | uint64(s.hdr[3])
			case 127:
				s.left = 0
				for _, v := range s.hdr[2:10] {
					s.left = s.left<<8 | uint64(v)
				}
			default:
				s.left = uint64(l)
			}
			s.hn, s.need = 0, 2
			if s.left > 0 {
				s.payload = true
			} else {
				s.frameEnd(done)
			}
		}
	}
}

// frameEnd is the end of the frame whose header is in s.hdr: a data
// frame (continuation, text, binary) with FIN ends a message; control
// frames (close, ping, pong) are not messages.
func (s *frameScan) frameEnd(done func()) {
	fin, op := s.hdr[0]&0x80 != 0, s.hdr[0]&0x0f
	if fin && op <= 2 {
		done()
	}
}

// wsURL is the WebSocket URL of a streaming protocol on base: http(s)
// mapped to ws(s); a base without a path of its own (none, or /v1) gets
// path; a path given is kept; query is added.
func wsURL(base, path, query string) (string, error) {
	u, err := url.Parse(base)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("bad speech-to-text URL %q", endpoint.ShownURL(base))
	}
	if _, ok := u.User.Password(); ok {
		// As an upload's base (endpoint.ParseBase): a password in the URL
		// would be sent, and shown, where no scrubber knows it.
		return "", fmt.Errorf("bad speech-to-text URL %q: want the server's URL without a password; give the key with --stt-api-key", endpoint.ShownURL(base))
	}
	switch u.Scheme {
	case "http":
		u.Scheme = "ws"
	case "https":
		u.Scheme = "wss"
	case "ws", "wss":
	default:
		return "", fmt.Errorf("bad speech-to-text URL %q: want ws://, wss://, http:// or https://", endpoint.ShownURL(base))
	}
	if p := strings.TrimRight(u.Path, "/"); p == "" || p == "/v1" {
		u.Path = path
	}
	if query != "" && u.RawQuery == "" {
		u.RawQuery = query
	}
	return u.String(), nil
}

// wsReadLimit bounds one server message: a transcript event is a few
// kilobytes.
const wsReadLimit = 1 << 22

// wsDial opens the WebSocket at rawURL with the endpoint's headers and
// TLS, on a stampConn, within timeout (a server that takes the
// connection and never answers the upgrade is stt_timeout). A refused
// upgrade is an *Error by its status.
func wsDial(ctx context.Context, ep *endpoint.Endpoint, rawURL string, timeout time.Duration) (*websocket.Conn, *stampConn, error) {
	pctx := ctx
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	// The transport dials on a goroutine of its own, which may still run
	// when the upgrade's time has run out.
	var scp atomic.Pointer[stampConn]
	var connected atomic.Bool
	clk := wire.NewClock()
	dialTCP := func(ctx context.Context, network, addr string) (*wire.NetpollConn, error) {
		c, err := wire.DialNoDelay(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		connected.Store(true)
		tc, ok := c.(*net.TCPConn)
		if !ok {
			c.Close()
			return nil, fmt.Errorf("%s is not a TCP connection", addr)
		}
		nc, err := wire.NewNetpollConn(tc, clk, true)
		if err != nil {
			c.Close()
			return nil, err
		}
		return nc, nil
	}
	tr := &http.Transport{
		Proxy:             nil,
		DisableKeepAlives: true,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			nc, err := dialTCP(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			sc := &stampConn{Conn: nc, sock: nc, clk: clk}
			scp.Store(sc)
			return sc, nil
		},
		// TLS is done here so that the frames are followed in the
		// decrypted bytes.
		DialTLSContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			nc, err := dialTCP(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			conf := &tls.Config{}
			if ep.TLS != nil {
				conf = ep.TLS.Clone()
			}
			if conf.ServerName == "" {
				host, _, _ := net.SplitHostPort(addr)
				conf.ServerName = host
			}
			conf.NextProtos = []string{"http/1.1"}
			tc := tls.Client(nc, conf)
			if err := tc.HandshakeContext(ctx); err != nil {
				nc.Close()
				return nil, err
			}
			sc := &stampConn{Conn: tc, sock: nc, clk: clk}
			scp.Store(sc)
			return sc, nil
		},
	}
	h := http.Header{}
	for k, v := range ep.Headers() {
		h.Set(k, v)
	}
	ws, resp, err := websocket.Dial(ctx, rawURL, &websocket.DialOptions{
		HTTPClient:      &http.Client{Transport: tr},
		HTTPHeader:      h,
		CompressionMode: websocket.CompressionDisabled,
	})
	shown := endpoint.ShownURL(rawURL)
	if err != nil {
		if resp != nil && resp.StatusCode != http.StatusSwitchingProtocols {
			// The answer's body is not shown: a refusal may quote the key.
			e := &Error{Kind: KindConnect, Status: resp.StatusCode, Err: err,
				Msg: fmt.Sprintf("speech-to-text server %s refused the WebSocket upgrade: HTTP %s", shown, resp.Status)}
			switch resp.StatusCode {
			case http.StatusUnauthorized, http.StatusForbidden:
				e.Kind = KindAuth
			case http.StatusTooManyRequests:
				e.Kind = KindRateLimited
			}
			return nil, nil, e
		}
		if ctxErr := pctx.Err(); ctxErr != nil {
			return nil, nil, wsCtxError(ctxErr, nil)
		}
		if ctx.Err() != nil {
			what := "nothing accepted the connection"
			if connected.Load() {
				what = "it accepted the connection but did not answer the WebSocket upgrade"
			}
			return nil, nil, &Error{Kind: KindTimeout, Err: err,
				Msg: fmt.Sprintf("speech-to-text server %s: %s within %v (a hung or overloaded server, or no WebSocket server there)", shown, what, timeout)}
		}
		return nil, nil, &Error{Kind: KindConnect, Err: err,
			Msg: fmt.Sprintf("speech-to-text server %s: cannot open a WebSocket: %v", shown, err)}
	}
	sc := scp.Load()
	if sc == nil {
		ws.CloseNow()
		return nil, nil, &Error{Kind: KindConnect, Msg: fmt.Sprintf("speech-to-text server %s: the WebSocket is not on a socket of its own", shown)}
	}
	ws.SetReadLimit(wsReadLimit)
	return ws, sc, nil
}

// wsCtxError is the failure of a turn cut by its context: stt_timeout when
// its deadline passed, stt_dropped when it was canceled.
func wsCtxError(err error, partial *Result) *Error {
	if errors.Is(err, context.DeadlineExceeded) {
		return &Error{Kind: KindTimeout, Msg: "speech-to-text: the turn's deadline passed", Err: err, Partial: partial}
	}
	return &Error{Kind: KindDropped, Msg: "speech-to-text: the turn was canceled", Err: err, Partial: partial}
}
