package runtime

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"ttftlab/runtime/luatest"

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

// eval is the value of expr on the VM's Lua state.
func eval(t *testing.T, vm *VM, expr string) lua.LValue {
	t.Helper()
	return luatest.Eval(t, vm.L, expr)
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
