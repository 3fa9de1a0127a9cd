package request

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"syscall"

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
		if errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) {
			// The limit is this machine's: the server was never reached.
			return "; this process may open no more files (ulimit -n): raise that limit, or run fewer requests at once"
		}
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
func (rq *Binder) getHint(err error) string {
	var se *stream.Error
	if errors.As(err, &se) && se.Kind == stream.KindTimeout {
		return ""
	}
	return streamHint(err, rq.h.ServerFrom)
}

// Hint is err, a failed request to the server the user named as
// serverFrom, with what to try (streamHint); when the request went to
// SERVER and got an answer, and the command found that what answers
// there is not an LLM server (Host.NotLLM), it says that instead of
// showing the other program's page.
func (rq *Binder) Hint(err error, serverFrom string) error {
	var se *stream.Error
	if errors.As(err, &se) && serverFrom == rq.h.ServerFrom {
		switch se.Kind {
		case stream.KindHTTP, stream.KindNotStream, stream.KindBadData:
			if msg, ok := rq.notLLMAnswer(se.URL, se.Status); ok {
				return notLLMAnswer{err: err, msg: msg}
			}
		}
	}
	if h := rq.h.Endpoint.TLSHint(err); h != "" {
		return hinted{err, "; " + h}
	}
	return hinted{err, streamHint(err, serverFrom)}
}

// notLLMAnswer is what to say of an answer with status from url when
// url is on SERVER and the command found no LLM server there; ok is
// false otherwise.
func (rq *Binder) notLLMAnswer(url string, status int) (msg string, ok bool) {
	base := rq.h.Endpoint.Base
	if rq.h.NotLLM == nil || (url != base && !strings.HasPrefix(url, base+"/")) {
		return "", false
	}
	return fmt.Sprintf("%s answered HTTP %d: %v; point %s at the LLM server", url, status, rq.h.NotLLM, rq.h.ServerFrom), true
}

// notLLMAnswer is a failed request's error told as notLLMAnswer says;
// the request's own error stays underneath (its kind, for scripts).
type notLLMAnswer struct {
	err error
	msg string
}

func (n notLLMAnswer) Error() string { return n.msg }
func (n notLLMAnswer) Unwrap() error { return n.err }
