package streammany_test

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"
	"ttftlab/runtime/luatest"

	lua "github.com/yuin/gopher-lua"

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

// eval is the value of expr on the VM's Lua state.
func eval(t *testing.T, vm *runtime.VM, expr string) lua.LValue {
	t.Helper()
	return luatest.Eval(t, vm.State(), expr)
}
