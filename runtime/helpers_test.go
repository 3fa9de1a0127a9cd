package runtime

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// testVM is a VM writing into a temporary OUT, its print output captured.
func testVM(t *testing.T, cfg Config) (*VM, *bytes.Buffer) {
	t.Helper()
	var out bytes.Buffer
	if cfg.Out == "" {
		cfg.Out = filepath.Join(t.TempDir(), "out")
	}
	cfg.Stdout = &out
	if cfg.Stderr == nil {
		cfg.Stderr = &out
	}
	vm, err := New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(vm.Close)
	return vm, &out
}

// eval runs `return expr` and gives the value.
func eval(t *testing.T, vm *VM, expr string) lua.LValue {
	t.Helper()
	if err := vm.L.DoString("return " + expr); err != nil {
		t.Fatalf("evaluating %s: %v", expr, err)
	}
	v := vm.L.Get(-1)
	vm.L.Pop(1)
	return v
}

// writeFiles creates files (slash-separated names) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func mustContain(t *testing.T, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Fatalf("%q does not contain %q", got, w)
		}
	}
}

func mustNotContain(t *testing.T, got string, unwanted string) {
	t.Helper()
	if strings.Contains(got, unwanted) {
		t.Fatalf("%q contains %q", got, unwanted)
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
