// Package wsstamp is a client's WebSocket whose every received message
// carries the kernel receive stamp of the socket read that completed it:
// dialed on a wire.NetpollConn with an endpoint's headers and TLS, the
// server's frames followed in the bytes read (above TLS), and the ws(s)
// URL of a server's base; and the message that carries a frame of audio
// in every Realtime dialect (AppendAudio).
package wsstamp

import (
	"context"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"ttftlab/internal/endpoint"
	"ttftlab/internal/wire"
)

// Why a base is no WebSocket server's URL (URL's errors wrap one).
var (
	ErrURL      = errors.New("not a URL with a host")
	ErrPassword = errors.New("a password in the URL")
	ErrScheme   = errors.New("want ws://, wss://, http:// or https://")
)

// URL is the WebSocket URL of a protocol on base: http(s) mapped to
// ws(s); a base without a path of its own (none, or /v1) gets path; a
// path given is kept; query is added when the base has none. A base with
// a password is refused (ErrPassword): it would be sent, and shown, where
// no scrubber knows it.
func URL(base, path, query string) (string, error) {
	u, err := url.Parse(base)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("%q: %w", endpoint.ShownURL(base), ErrURL)
	}
	if _, ok := u.User.Password(); ok {
		return "", fmt.Errorf("%q: %w", endpoint.ShownURL(base), ErrPassword)
	}
	switch u.Scheme {
	case "http":
		u.Scheme = "ws"
	case "https":
		u.Scheme = "wss"
	case "ws", "wss":
	default:
		return "", fmt.Errorf("%q: %w", endpoint.ShownURL(base), ErrScheme)
	}
	if p := strings.TrimRight(u.Path, "/"); p == "" || p == "/v1" {
		u.Path = path
	}
	if query != "" && u.RawQuery == "" {
		u.RawQuery = query
	}
	return u.String(), nil
}

// RefusedError is an upgrade the server answered with another status
// than 101. Its body is not kept: a refusal may quote the key.
type RefusedError struct {
	Status     int
	StatusLine string // e.g. "401 Unauthorized"
	Err        error
}

func (e *RefusedError) Error() string {
	return "the server refused the WebSocket upgrade: HTTP " + e.StatusLine
}
func (e *RefusedError) Unwrap() error { return e.Err }

// TimeoutError is an upgrade not done within Dial's timeout; Connected
// says whether the server had accepted the TCP connection (a hung or
// overloaded server) or not (nothing accepted it).
type TimeoutError struct {
	Connected bool
	Timeout   time.Duration
	Err       error
}

func (e *TimeoutError) Error() string {
	if e.Connected {
		return fmt.Sprintf("the server accepted the connection but did not answer the WebSocket upgrade within %v", e.Timeout)
	}
	return fmt.Sprintf("nothing accepted the connection within %v", e.Timeout)
}
func (e *TimeoutError) Unwrap() error { return e.Err }

// Conn is an open WebSocket whose received messages are stamped. Read
// only through Conn.Read: the stamps are queued in the messages' order.
type Conn struct {
	ws *websocket.Conn
	sc *stampConn
}

// Dial opens the WebSocket at rawURL with the endpoint's headers and TLS,
// on a socket of its own (wire.NetpollConn, kernel receive stamps),
// within timeout. Its errors: *RefusedError (another status than 101),
// the error of ctx when ctx ended, *TimeoutError when timeout passed, or
// another (the connection or the handshake failed).
func Dial(ctx context.Context, ep *endpoint.Endpoint, rawURL string, timeout time.Duration) (*Conn, error) {
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
	if err != nil {
		if resp != nil && resp.StatusCode != http.StatusSwitchingProtocols {
			return nil, &RefusedError{Status: resp.StatusCode, StatusLine: resp.Status, Err: err}
		}
		if ctxErr := pctx.Err(); ctxErr != nil {
			return nil, ctxErr
		}
		if ctx.Err() != nil {
			return nil, &TimeoutError{Connected: connected.Load(), Timeout: timeout, Err: err}
		}
		return nil, err
	}
	sc := scp.Load()
	if sc == nil {
		ws.CloseNow()
		return nil, errors.New("the WebSocket is not on a socket of its own")
	}
	return &Conn{ws: ws, sc: sc}, nil
}

// Read reads the next data message and returns it with its stamp: the
// receive stamp of the socket read that brought its last byte.
func (c *Conn) Read(ctx context.Context) (websocket.MessageType, []byte, time.Time, error) {
	typ, data, err := c.ws.Read(ctx)
	if err != nil {
		return typ, data, time.Time{}, err
	}
	return typ, data, c.sc.next(), nil
}

// Write writes one message.
func (c *Conn) Write(ctx context.Context, typ websocket.MessageType, b []byte) error {
	return c.ws.Write(ctx, typ, b)
}

// SetReadLimit bounds one message read (the library's default: 32 KiB).
func (c *Conn) SetReadLimit(n int64) { c.ws.SetReadLimit(n) }

// Close closes the WebSocket with a close frame.
func (c *Conn) Close(code websocket.StatusCode, reason string) error {
	return c.ws.Close(code, reason)
}

// CloseNow closes the connection at once, without a close frame.
func (c *Conn) CloseNow() error { return c.ws.CloseNow() }

// AppendAudio is input_audio_buffer.append of one frame of PCM16, as
// every Realtime dialect takes the caller's audio: the JSON message with
// the frame in base64.
func AppendAudio(pcm []byte) []byte {
	const head, tail = `{"type":"input_audio_buffer.append","audio":"`, `"}`
	b := make([]byte, 0, len(head)+base64.StdEncoding.EncodedLen(len(pcm))+len(tail))
	b = append(b, head...)
	b = base64.StdEncoding.AppendEncode(b, pcm)
	return append(b, tail...)
}

// ErrorEvent is an error event's message and code as the Realtime
// dialects send them: OpenAI's {"error": {"message", "code", ...}}, whose
// code the message names in parentheses, or a bare string (vLLM's
// {"error": "..."}, code ""); the member as it came when neither reads.
func ErrorEvent(raw json.RawMessage) (msg, code string) {
	var obj struct{ Message, Code, Type string }
	if json.Unmarshal(raw, &msg) != nil {
		if json.Unmarshal(raw, &obj) == nil {
			msg, code = obj.Message, obj.Code
			if code != "" {
				msg += " (" + code + ")"
			}
		}
	}
	if msg == "" {
		msg = string(raw)
	}
	return msg, code
}

// HowClosed says how a read found the connection ended, to follow a
// message's words: " (close 1011: reason)" for a close frame (its reason
// when it gave one), " (EOF)" for a socket closed without one, else ": "
// and the error.
func HowClosed(err error) string {
	if st := websocket.CloseStatus(err); st != -1 {
		var ce websocket.CloseError
		if errors.As(err, &ce) && ce.Reason != "" {
			return fmt.Sprintf(" (close %d: %s)", int(st), ce.Reason)
		}
		return fmt.Sprintf(" (close %d)", int(st))
	}
	if errors.Is(err, io.EOF) {
		return " (EOF)"
	}
	return ": " + err.Error()
}
