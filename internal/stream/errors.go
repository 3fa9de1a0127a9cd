package stream

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"syscall"
	"unicode/utf8"

	"ttftlab/internal/endpoint"
)

// Kind says what went wrong, so callers can react without parsing messages.
type Kind string

// Kinds of failure.
const (
	KindRequest Kind = "request" // the request could not be built (bad URL, body)
	KindConnect Kind = "connect" // no connection or no response headers
	KindHTTP    Kind = "http"    // the server answered with a non-2xx status
	// KindRateLimited is a 429: the server (a hosted API's quota) refused
	// the request for its rate. Its own kind, so a load counts it apart
	// from errors; nothing in ttftlab retries it.
	KindRateLimited Kind = "rate_limited"
	KindNotStream   Kind = "not_stream"   // 2xx but not text/event-stream
	KindBadData     Kind = "bad_data"     // a data event that is not a chat-completion chunk
	KindServer      Kind = "server_error" // the server sent an error event mid-stream
	KindTruncated   Kind = "truncated"    // the body ended without its end marker (data: [DONE]; response.completed)
	KindDropped     Kind = "dropped"      // the connection failed mid-stream
	KindIdle        Kind = "idle_timeout" // nothing arrived for IdleTimeout
	KindTimeout     Kind = "timeout"      // the whole request took longer than Timeout
	KindCanceled    Kind = "canceled"     // the caller's context was cancelled
	KindCallback    Kind = "callback"     // OnChunk returned an error
	KindRawOut      Kind = "raw_out"      // writing RawOut failed
	KindEncoded     Kind = "encoded"      // the body came compressed (Content-Encoding) although none was asked for
)

// Error is what Do and Get return. Its message names the URL and, where
// there is one, what to try.
type Error struct {
	Kind Kind
	// URL is the full request URL.
	URL string
	// Status is the HTTP status code, 0 when none arrived.
	Status int
	// Type and Message are the server's own error type and message, when
	// it sent an error object.
	Type    string
	Message string
	// Err is the underlying cause, if any.
	Err error

	text string
}

func (e *Error) Error() string { return e.text }

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// Unanswered says the request was taken (its connection made, by the
// server or a proxy in front of it) but no whole answer came in time
// (KindTimeout): something there holds requests, unlike a server that
// could not be reached (KindConnect). servers.Stalled reads it through
// this method.
func (e *Error) Unanswered() bool { return e.Kind == KindTimeout }

// newError builds an Error whose message is "METHOD URL: what".
func newError(kind Kind, method, url string, cause error, format string, args ...any) *Error {
	return &Error{Kind: kind, URL: url, Err: cause,
		text: method + " " + url + ": " + fmt.Sprintf(format, args...)}
}

// scrubError is err with the secrets a request sent taken out of the
// server's words it quotes (its text, Type and Message); err itself when
// there are none.
func scrubError(err error, s *endpoint.Scrubber) error {
	e, ok := err.(*Error)
	if !ok || e == nil || s == nil {
		return err
	}
	c := *e
	c.text, c.Type, c.Message = s.String(e.text), s.String(e.Type), s.String(e.Message)
	return &c
}

// callbackError keeps the callback's message unchanged, so positions such
// as "lab.lua:12:" stay first in the text a user reads.
func callbackError(url string, err error) *Error {
	return &Error{Kind: KindCallback, URL: url, Err: err, text: err.Error()}
}

// connectError explains a failure that happened before response headers
// arrived: nothing listening, unknown host, TLS trouble, a reset.
func connectError(method, url string, err error) *Error {
	var dnsErr *net.DNSError
	var certErr *tls.CertificateVerificationError
	var unknownAuth x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var op *net.OpError
	switch {
	case errors.As(err, &op) && op.Op == "proxyconnect":
		return newError(KindConnect, method, url, err, "cannot reach the proxy (%v)", op.Err)
	case errors.As(err, &dnsErr):
		return newError(KindConnect, method, url, err, "cannot resolve host %q (%v)", dnsErr.Name, dnsErr.Err)
	case errors.Is(err, syscall.ECONNREFUSED):
		return newError(KindConnect, method, url, err, "nothing is listening there (connection refused)")
	case errors.Is(err, ErrPlainHTTP):
		return newError(KindConnect, method, url, err, "the server answered plain HTTP; use http://")
	case errors.As(err, &certErr), errors.As(err, &unknownAuth), errors.As(err, &hostErr):
		return newError(KindConnect, method, url, err, "TLS certificate not accepted: %v", err)
	case isDial(err):
		return newError(KindConnect, method, url, err, "cannot connect: %v", unwrapURLError(err))
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.ECONNRESET):
		return newError(KindConnect, method, url, err, "the connection was closed before response headers arrived (%v)", unwrapURLError(err))
	}
	return newError(KindConnect, method, url, err, "no response: %v", unwrapURLError(err))
}

// isDial reports whether err came from dialing.
func isDial(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// unwrapURLError drops net/http's `Post "URL":` prefix, since our own
// messages already name the URL.
func unwrapURLError(err error) error {
	var u *url.Error
	if errors.As(err, &u) {
		return u.Err
	}
	return err
}

// quote shows the start of b, at most max bytes, cut on a rune boundary,
// with the secrets s knows redacted first: a secret the shortening cut
// would leave its start, which no search for it whole finds after.
func quote(s *endpoint.Scrubber, b []byte, max int) string {
	b = s.Bytes(b)
	if len(b) <= max {
		return fmt.Sprintf("%q", b)
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return fmt.Sprintf("%q... (%d bytes)", b[:cut], len(b))
}
