package runtime

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/stream"
)

// serverURL resolves a path against SERVER (endpoint.Join); absolute
// URLs pass through.
func (vm *VM) serverURL(p string) string { return vm.endpoint().URL(p) }

// callCtx is the context a blocking binding must honour.
func (vm *VM) callCtx(L *lua.LState) context.Context {
	if ctx := L.Context(); ctx != nil {
		return ctx
	}
	return vm.ctx
}

// fetch GETs a server path; network failures raise a Lua error naming the
// URL.
func (vm *VM) fetch(L *lua.LState, binding, p string) (url string, status int, body []byte) {
	url = vm.serverURL(p)
	status, body, err := stream.Get(vm.callCtx(L), url, vm.callOptions(url))
	if err != nil {
		msg := err.Error()
		if !strings.Contains(msg, url) {
			msg = "GET " + url + ": " + msg
		}
		vm.hostError(L, "%s: %s%s", binding, msg, vm.getHint(err))
	}
	return url, status, body
}

// get is get(path) -> status, body_text. Any status is returned, not
// raised; path is relative to SERVER unless it is a full URL.
func (vm *VM) get(L *lua.LState) int {
	_, status, body := vm.fetch(L, "get", L.CheckString(1))
	L.Push(lua.LNumber(status))
	L.Push(lua.LString(body))
	return 2
}

// health is health() -> decoded, body_text, status. A 503 (model still
// loading) is returned like a 200 so scripts can poll.
func (vm *VM) health(L *lua.LState) int {
	url, status, body := vm.fetch(L, "health", "/health")
	if status != http.StatusOK && status != http.StatusServiceUnavailable {
		vm.hostError(L, "health: %s", vm.statusError(url, status, body, ""))
	}
	return vm.pushDecoded(L, "health", url, status, body)
}

// props is props() -> decoded, body_text, status.
func (vm *VM) props(L *lua.LState) int {
	url, status, body := vm.fetch(L, "props", "/props")
	if status != http.StatusOK {
		vm.hostError(L, "props: %s", vm.statusError(url, status, body, ""))
	}
	return vm.pushDecoded(L, "props", url, status, body)
}

// slots is slots() -> decoded, body_text, status.
func (vm *VM) slots(L *lua.LState) int {
	url, status, body := vm.fetch(L, "slots", "/slots")
	switch status {
	case http.StatusOK:
	case http.StatusNotImplemented:
		vm.hostError(L, "slots: %s", vm.statusError(url, status, body, "the slots endpoint is disabled; start llama-server without --no-slots"))
	default:
		vm.hostError(L, "slots: %s", vm.statusError(url, status, body, ""))
	}
	return vm.pushDecoded(L, "slots", url, status, body)
}

func (vm *VM) pushDecoded(L *lua.LState, binding, url string, status int, body []byte) int {
	v, err := vm.json.Decode(L, body)
	if err != nil {
		vm.hostError(L, "%s: GET %s answered %d with a body that is not JSON (%v): %s", binding, url, status, err, excerpt(body))
	}
	L.Push(v)
	L.Push(lua.LString(body))
	L.Push(lua.LNumber(status))
	return 3
}

func (vm *VM) statusError(url string, status int, body []byte, advice string) string {
	if msg, ok := vm.notLLMAnswer(url, status); ok {
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
