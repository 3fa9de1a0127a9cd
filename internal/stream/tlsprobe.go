package stream

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"net"
	"sync/atomic"
	"time"
)

// ErrPlainHTTP says an https:// URL points at a server that speaks plain
// HTTP; the *Error of such a request wraps it.
var ErrPlainHTTP = errors.New("the server answered plain HTTP")

// plainProbeAfter is how long a TLS handshake may go unanswered before
// the address is asked in plain HTTP whether it is a plain server.
// llama-server without TLS never answers a ClientHello: it waits for a
// request line that never comes, and the handshake would only end at its
// timeout.
const plainProbeAfter = 500 * time.Millisecond

type dialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

// tlsDial does the TLS handshake itself (HTTP/1.1 only), so a server that
// answers the ClientHello with plain HTTP, or that answers a plain HEAD
// while the handshake hangs, fails at once with ErrPlainHTTP instead of
// after the handshake timeout.
func tlsDial(dial dialFunc, conf *tls.Config) dialFunc {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		raw, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		cfg := tlsConfig(conf, addr)
		tc := tls.Client(raw, cfg)
		if err := probedHandshake(ctx, addr, func() { raw.Close() }, tc.HandshakeContext); err != nil {
			raw.Close()
			return nil, err
		}
		return tc, nil
	}
}

// tlsConfig is conf (nil: Go's defaults) naming the server of addr.
func tlsConfig(conf *tls.Config, addr string) *tls.Config {
	cfg := &tls.Config{}
	if conf != nil {
		cfg = conf.Clone()
	}
	if cfg.ServerName == "" {
		cfg.ServerName, _, _ = net.SplitHostPort(addr)
	}
	return cfg
}

// probedHandshake runs a TLS handshake to addr, bounded by dialTimeout,
// with the plain-HTTP probe beside it: a server that answers the
// ClientHello with HTTP, or a plain HEAD while the handshake hangs, fails
// it with ErrPlainHTTP. closeRaw closes the connection under the handshake.
func probedHandshake(ctx context.Context, addr string, closeRaw func(), handshake func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, dialTimeout)
	defer cancel()
	var plain atomic.Bool
	probed := make(chan struct{})
	probe := time.AfterFunc(plainProbeAfter, func() {
		defer close(probed)
		if answersPlainHTTP(ctx, "tcp", addr) {
			plain.Store(true)
			closeRaw() // ends the handshake
		}
	})
	err := handshake(ctx)
	if !probe.Stop() {
		<-probed
	}
	if plain.Load() || looksLikePlainHTTP(err) {
		return ErrPlainHTTP
	}
	return err
}

// boundedHandshake runs a handshake within dialTimeout; a handshake that
// got an HTTP answer to its ClientHello fails with ErrPlainHTTP.
func boundedHandshake(ctx context.Context, handshake func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, dialTimeout)
	defer cancel()
	err := handshake(ctx)
	if looksLikePlainHTTP(err) {
		return ErrPlainHTTP
	}
	return err
}

// looksLikePlainHTTP reports a handshake that got an HTTP answer to its
// ClientHello.
func looksLikePlainHTTP(err error) bool {
	var rh tls.RecordHeaderError
	return errors.As(err, &rh) && bytes.HasPrefix(rh.RecordHeader[:], []byte("HTTP/"))
}

// answersPlainHTTP sends a plain HEAD / to addr on a connection of its own
// and reports whether the answer starts like HTTP.
func answersPlainHTTP(ctx context.Context, network, addr string) bool {
	conn, err := dialNoDelay(ctx, network, addr)
	if err != nil {
		return false
	}
	defer conn.Close()
	if d, ok := ctx.Deadline(); ok {
		conn.SetDeadline(d)
	}
	if _, err := conn.Write([]byte("HEAD / HTTP/1.0\r\nHost: " + addr + "\r\n\r\n")); err != nil {
		return false
	}
	var b [5]byte
	n := 0
	for n < len(b) {
		k, err := conn.Read(b[n:])
		n += k
		if err != nil {
			break
		}
	}
	return string(b[:n]) == "HTTP/"
}
