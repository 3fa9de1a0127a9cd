package runtime

import (
	"errors"
	"net/http"

	"ttftlab/internal/stream"
)

// The packages below the host report failures in their own terms (a URL,
// a status, a folder). The host knows how the user reached them — a
// command-line flag, a global, a Lua option — and adds what to try in
// those terms.

// streamHint is what to try after a failed request to the server that
// the user named as serverFrom ("--server", "opts.server", ...).
func streamHint(err error, serverFrom string) string {
	var se *stream.Error
	if !errors.As(err, &se) {
		return ""
	}
	if errors.Is(err, stream.ErrPlainHTTP) {
		return "; check " + serverFrom
	}
	switch se.Kind {
	case stream.KindConnect:
		return "; check " + serverFrom + ", or start llama-server there"
	case stream.KindRequest:
		return "; check " + serverFrom
	case stream.KindIdle:
		return "; if the server is just slow, raise opts.idle_timeout_ms"
	case stream.KindTimeout:
		return "; raise opts.timeout_ms (default: the command's --request-timeout) if the answer may take that long"
	case stream.KindRateLimited:
		return "; the server limits the request rate (429): lower the load, or raise the quota; ttftlab does not retry"
	case stream.KindHTTP:
		switch {
		case se.Status == http.StatusNotFound:
			return "; check that " + serverFrom + " is the server's base URL (http://HOST:PORT, or a hosted API's https://HOST/v1)"
		case se.Status >= 300 && se.Status < 400:
			return "; use that address as " + serverFrom
		}
	}
	return ""
}

// getHint is what to try after a failed GET to SERVER.
func (vm *VM) getHint(err error) string {
	var se *stream.Error
	if errors.As(err, &se) && se.Kind == stream.KindTimeout {
		return ""
	}
	return streamHint(err, vm.source("SERVER"))
}
