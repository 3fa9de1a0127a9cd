// Package luatest holds what the tests of runtime and its packages share:
// a Lua expression's value, text checks, a closed local port and the
// default speech engine on a test server. Only tests import it.
package luatest

import (
	"net"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/tts"
)

// Eval runs `return expr` on L and gives the value.
func Eval(t testing.TB, L *lua.LState, expr string) lua.LValue {
	t.Helper()
	if err := L.DoString("return " + expr); err != nil {
		t.Fatalf("evaluating %s: %v", expr, err)
	}
	v := L.Get(-1)
	L.Pop(1)
	return v
}

// MustContain fails the test unless got holds every one of wants.
func MustContain(t testing.TB, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Fatalf("%q does not contain %q", got, w)
		}
	}
}

// MustNotContain fails the test when got holds unwanted.
func MustNotContain(t testing.TB, got string, unwanted string) {
	t.Helper()
	if strings.Contains(got, unwanted) {
		t.Fatalf("%q contains %q", got, unwanted)
	}
}

// ClosedURL is a base URL on loopback that nothing listens on.
func ClosedURL(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr
}

// EspeakServer is the default speech engine on a test server: Debian's
// espeak-ng (.ci/run installs it; TTFTLAB_REQUIRE_TTS makes its absence a
// failure, not a skip).
func EspeakServer(t testing.TB) string {
	t.Helper()
	bin, err := tts.Find()
	if err != nil {
		if os.Getenv("TTFTLAB_REQUIRE_TTS") != "" {
			t.Fatalf("TTFTLAB_REQUIRE_TTS is set: %v", err)
		}
		t.Skip(err)
	}
	srv := httptest.NewServer(&tts.Server{Bin: bin})
	t.Cleanup(srv.Close)
	return srv.URL
}
