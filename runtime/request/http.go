package request

import (
	"fmt"
	"net/http"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/stream"
)

// URL resolves a path against SERVER (endpoint.Join); absolute
// URLs pass through.
func (rq *Binder) URL(p string) string { return rq.h.Endpoint.URL(p) }

// fetch GETs a server path; network failures raise a Lua error naming the
// URL.
func (rq *Binder) fetch(L *lua.LState, binding, p string) (url string, status int, body []byte) {
	url = rq.URL(p)
	status, body, err := stream.Get(rq.h.Ctx(L), url, rq.CallOptions(url))
	if err != nil {
		msg := err.Error()
		if !strings.Contains(msg, url) {
			msg = "GET " + url + ": " + msg
		}
		rq.h.Fail(L, "%s: %s%s", binding, msg, rq.getHint(err))
	}
	return url, status, body
}

// Get is get(path) -> status, body_text. Any status is returned, not
// raised; path is relative to SERVER unless it is a full URL.
func (rq *Binder) Get(L *lua.LState) int {
	_, status, body := rq.fetch(L, "get", L.CheckString(1))
	L.Push(lua.LNumber(status))
	L.Push(lua.LString(body))
	return 2
}

// Health is health() -> decoded, body_text, status. A 503 (model still
// loading) is returned like a 200 so scripts can poll.
func (rq *Binder) Health(L *lua.LState) int {
	url, status, body := rq.fetch(L, "health", "/health")
	if status != http.StatusOK && status != http.StatusServiceUnavailable {
		rq.h.Fail(L, "health: %s", rq.StatusError(url, status, body, ""))
	}
	return rq.pushDecoded(L, "health", url, status, body)
}

// Props is props() -> decoded, body_text, status.
func (rq *Binder) Props(L *lua.LState) int {
	url, status, body := rq.fetch(L, "props", "/props")
	if status != http.StatusOK {
		rq.h.Fail(L, "props: %s", rq.StatusError(url, status, body, ""))
	}
	return rq.pushDecoded(L, "props", url, status, body)
}

// Slots is slots() -> decoded, body_text, status.
func (rq *Binder) Slots(L *lua.LState) int {
	url, status, body := rq.fetch(L, "slots", "/slots")
	switch status {
	case http.StatusOK:
	case http.StatusNotImplemented:
		rq.h.Fail(L, "slots: %s", rq.StatusError(url, status, body, "the slots endpoint is disabled; start llama-server without --no-slots"))
	default:
		rq.h.Fail(L, "slots: %s", rq.StatusError(url, status, body, ""))
	}
	return rq.pushDecoded(L, "slots", url, status, body)
}

func (rq *Binder) pushDecoded(L *lua.LState, binding, url string, status int, body []byte) int {
	v, err := rq.h.JSON.Decode(L, body)
	if err != nil {
		rq.h.Fail(L, "%s: GET %s answered %d with a body that is not JSON (%v): %s", binding, url, status, err, excerpt(body))
	}
	L.Push(v)
	L.Push(lua.LString(body))
	L.Push(lua.LNumber(status))
	return 3
}

func (rq *Binder) StatusError(url string, status int, body []byte, advice string) string {
	if msg, ok := rq.notLLMAnswer(url, status); ok {
		return "GET " + msg
	}
	msg := fmt.Sprintf("GET %s answered %d: %s", url, status, excerpt(body))
	if advice != "" {
		msg += " (" + advice + ")"
	}
	return msg
}

// excerpt keeps error messages readable when a server sends a page.
func excerpt(body []byte) string {
	const limit = 300
	s := strings.TrimSpace(string(body))
	if len(s) > limit {
		s = s[:limit] + "..."
	}
	return s
}
