package stt

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"ttftlab/internal/endpoint"
	"ttftlab/internal/wsstamp"
)

// The WebSocket and its receive stamps are internal/wsstamp's: each
// message read comes with the kernel receive stamp of the socket read
// that completed it.

// wsURL is the WebSocket URL of a streaming protocol on base
// (wsstamp.URL), its faults worded for the speech-to-text server.
func wsURL(base, path, query string) (string, error) {
	u, err := wsstamp.URL(base, path, query)
	switch {
	case err == nil:
		return u, nil
	case errors.Is(err, wsstamp.ErrPassword):
		// As an upload's base (endpoint.ParseBase): a password in the URL
		// would be sent, and shown, where no scrubber knows it.
		return "", fmt.Errorf("bad speech-to-text URL %q: want the server's URL without a password; give the key with --stt-api-key", endpoint.ShownURL(base))
	case errors.Is(err, wsstamp.ErrScheme):
		return "", fmt.Errorf("bad speech-to-text URL %q: want ws://, wss://, http:// or https://", endpoint.ShownURL(base))
	default:
		return "", fmt.Errorf("bad speech-to-text URL %q", endpoint.ShownURL(base))
	}
}

// wsReadLimit bounds one server message: a transcript event is a few
// kilobytes.
const wsReadLimit = 1 << 22

// wsDial opens the WebSocket at rawURL with the endpoint's headers and
// TLS (wsstamp.Dial) within timeout (a server that takes the connection
// and never answers the upgrade is stt_timeout). A refused upgrade is an
// *Error by its status.
func wsDial(ctx context.Context, ep *endpoint.Endpoint, rawURL string, timeout time.Duration) (*wsstamp.Conn, error) {
	ws, err := wsstamp.Dial(ctx, ep, rawURL, timeout)
	shown := endpoint.ShownURL(rawURL)
	if err != nil {
		var refused *wsstamp.RefusedError
		var late *wsstamp.TimeoutError
		switch {
		case errors.As(err, &refused):
			// The answer's body is not shown: a refusal may quote the key.
			e := &Error{Kind: KindConnect, Status: refused.Status, Err: err,
				Msg: fmt.Sprintf("speech-to-text server %s refused the WebSocket upgrade: HTTP %s", shown, refused.StatusLine)}
			switch refused.Status {
			case http.StatusUnauthorized, http.StatusForbidden:
				e.Kind = KindAuth
			case http.StatusTooManyRequests:
				e.Kind = KindRateLimited
			}
			return nil, e
		case ctx.Err() != nil:
			return nil, wsCtxError(ctx.Err(), nil)
		case errors.As(err, &late):
			what := "nothing accepted the connection"
			if late.Connected {
				what = "it accepted the connection but did not answer the WebSocket upgrade"
			}
			return nil, &Error{Kind: KindTimeout, Err: err,
				Msg: fmt.Sprintf("speech-to-text server %s: %s within %v (a hung or overloaded server, or no WebSocket server there)", shown, what, timeout)}
		}
		return nil, &Error{Kind: KindConnect, Err: err,
			Msg: fmt.Sprintf("speech-to-text server %s: cannot open a WebSocket: %v", shown, err)}
	}
	ws.SetReadLimit(wsReadLimit)
	return ws, nil
}

// wsCtxError is the failure of a turn cut by its context: stt_timeout when
// its deadline passed, stt_dropped when it was canceled.
func wsCtxError(err error, partial *Result) *Error {
	if errors.Is(err, context.DeadlineExceeded) {
		return &Error{Kind: KindTimeout, Msg: "speech-to-text: the turn's deadline passed", Err: err, Partial: partial}
	}
	return &Error{Kind: KindDropped, Msg: "speech-to-text: the turn was canceled", Err: err, Partial: partial}
}
