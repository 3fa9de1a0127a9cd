package runtime

import (
	"strings"
	"testing"

	"ttftlab/runtime/luatest"
)

// TestListenNeedsAServer: without --stt, listen() and stream{stt} say how
// to name a speech-to-text server.
func TestListenNeedsAServer(t *testing.T) {
	vm, _ := testVM(t, Config{Server: luatest.ClosedURL(t)})
	for _, code := range []string{`listen("hello")`, `stream("hello", {stt = true})`} {
		err := vm.RunString(code, "x.lua")
		if err == nil || !strings.Contains(err.Error(), "no speech-to-text server: run with --stt URL") {
			t.Errorf("%s: %v", code, err)
		}
	}
}
