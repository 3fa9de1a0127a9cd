package streammany_test

import (
	"bytes"
	"context"
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/tts"
	"ttftlab/runtime"
)

// testVM is a VM writing into a temporary OUT, its print output captured.
func testVM(t *testing.T, cfg runtime.Config) (*runtime.VM, *bytes.Buffer) {
	t.Helper()
	var out bytes.Buffer
	if cfg.Out == "" {
		cfg.Out = filepath.Join(t.TempDir(), "out")
	}
	cfg.Stdout = &out
	if cfg.Stderr == nil {
		cfg.Stderr = &out
	}
	vm, err := runtime.New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(vm.Close)
	return vm, &out
}

// eval runs `return expr` and gives the value.
func eval(t *testing.T, vm *runtime.VM, expr string) lua.LValue {
	t.Helper()
	L := vm.State()
	if err := L.DoString("return " + expr); err != nil {
		t.Fatalf("evaluating %s: %v", expr, err)
	}
	v := L.Get(-1)
	L.Pop(1)
	return v
}

func mustContain(t *testing.T, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Fatalf("%q does not contain %q", got, w)
		}
	}
}

// closedURL returns a base URL nothing listens on.
func closedURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr
}

// espeakServer is the default speech engine on a test server: Debian's
// espeak-ng (.ci/run installs it; TTFTLAB_REQUIRE_TTS fails without it).
func espeakServer(t *testing.T) string {
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
