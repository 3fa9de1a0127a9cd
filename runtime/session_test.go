package runtime

import (
	"strings"
	"testing"

	"ttftlab/internal/endpoint"
	"ttftlab/runtime/luatest"
)

// TestSessionNeedsAServer: without --realtime and without a url,
// session() and realtime_info() say how to name a Realtime server.
func TestSessionNeedsAServer(t *testing.T) {
	vm, _ := testVM(t, Config{Server: luatest.ClosedURL(t)})
	for _, code := range []string{`session(nil, {turns = {{say = "hi"}}})`, `local i, why = realtime_info() assert(i == nil) error(why)`} {
		err := vm.RunString(code, "x.lua")
		if err == nil || !strings.Contains(err.Error(), "no Realtime server: run with --realtime URL") {
			t.Errorf("%s: %v", code, err)
		}
	}
}

// TestSessionChecksOptions: a wrong option, a mistyped one (with the name
// it was likely meant to be), a turn without say or with a mistyped field,
// and a url of another scheme are refused before anything is sent.
func TestSessionChecksOptions(t *testing.T) {
	vm, _ := testVM(t, Config{Server: luatest.ClosedURL(t), Realtime: &Realtime{Endpoint: &endpoint.Endpoint{Base: "ws://127.0.0.1:9"}}})
	for _, c := range []struct{ code, want string }{
		{`session(nil, {turns = {{say = "hi"}}, timout_ms = 5})`, `unknown option "timout_ms"; did you mean "timeout_ms"?`},
		{`session(nil, {turns = {{say = "hi"}}, instruction = "x"})`, `; did you mean "instructions"?`},
		{`session(nil, {turns = {{say = "hi", barge_after_m = 300}}})`, `opts.turns[1]: unknown field "barge_after_m"; did you mean "barge_after_ms"?`},
		{`session(nil, {turns = {{barge_after_ms = 300}}})`, `opts.turns[1] has no say`},
		{`session(nil, {turns = {}})`, `opts.turns is empty`},
		{`session(nil, {voice = "alloy"})`, `opts.turns is missing`},
		{`session(nil, {turns = {{say = "hi", barge_after_ms = -1}}})`, `barge_after_ms must be a number of ms, 0 or more`},
		{`session(nil, {turns = {{say = "hi"}}, frame_ms = 2.5})`, `opts.frame_ms must be a whole number of ms`},
		{`session(nil, {turns = {{say = "hi"}}, events = 1})`, `opts.events must be true or false`},
		{`session(nil, {turns = {{say = "hi"}}, errors = "keep"})`, `opts.errors must be "raise" (default) or "return"`},
		{`session("ftp://127.0.0.1:9", {turns = {{say = "hi"}}})`, `want ws://HOST:PORT`},
		{`session(nil, "hi")`, `opts must be a table`},
	} {
		err := vm.RunString(c.code, "x.lua")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.code, err, c.want)
		}
	}
}

// TestSessionInfoHidesTheKey: realtime_info() shows the URL without its
// password and says only where the key came from.
func TestSessionInfoHidesTheKey(t *testing.T) {
	ep := &endpoint.Endpoint{Base: "ws://user:pw@127.0.0.1:9", Key: "sk-secret", KeySource: "--realtime-api-key"}
	vm, _ := testVM(t, Config{Server: luatest.ClosedURL(t), Realtime: &Realtime{Endpoint: ep}})
	got := eval(t, vm, `require("json").encode(realtime_info())`).String()
	if strings.Contains(got, "sk-secret") || strings.Contains(got, "pw@") || !strings.Contains(got, `"api_key":"set from --realtime-api-key"`) {
		t.Errorf("realtime_info() = %s", got)
	}
}
