package runtime

import (
	"io"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// printTo writes its arguments like Lua's print: tostring of each,
// tab-separated, one newline.
func printTo(L *lua.LState, w io.Writer) int {
	var b strings.Builder
	for i := 1; i <= L.GetTop(); i++ {
		if i > 1 {
			b.WriteByte('\t')
		}
		b.WriteString(L.ToStringMeta(L.Get(i)).String())
	}
	b.WriteByte('\n')
	io.WriteString(w, b.String())
	return 0
}

// osExit records the code and cancels the run's context: even a pcall
// around os.exit cannot keep the script going, since the next instruction
// sees the cancelled context.
func (vm *VM) osExit(L *lua.LState) int {
	code := 0
	switch v := L.Get(1).(type) {
	case *lua.LNilType:
	case lua.LBool:
		if !v {
			code = 1
		}
	case lua.LNumber:
		code = int(v)
	default:
		L.ArgError(1, "number or boolean expected, got "+v.Type().String())
	}
	vm.exit = &ExitError{Code: code}
	if vm.cancelRun != nil {
		vm.cancelRun()
	}
	L.RaiseError("os.exit(%d)", code)
	return 0
}

// dofile runs a file named relative to the running script and returns
// what the chunk returns. While it runs, its own folder is the base for
// further relative names.
func (vm *VM) dofile(L *lua.LState) int {
	name := L.CheckString(1)
	data, chunk, into, err := vm.src.read(name)
	if err != nil {
		L.RaiseError("dofile: %v", err)
	}
	fn, err := vm.load(data, chunk)
	if err != nil {
		L.RaiseError("dofile: %v", err)
	}
	saved := vm.src
	vm.src = into
	defer func() { vm.src = saved }()
	top := L.GetTop()
	L.Push(fn)
	L.Call(0, lua.MultRet)
	return L.GetTop() - top
}

// loadfile compiles a file named relative to the running script; like
// standard Lua it returns nil and a message instead of raising.
func (vm *VM) loadfile(L *lua.LState) int {
	name := L.CheckString(1)
	data, chunk, _, err := vm.src.read(name)
	if err == nil {
		var fn *lua.LFunction
		if fn, err = vm.load(data, chunk); err == nil {
			L.Push(fn)
			return 1
		}
	}
	L.Push(lua.LNil)
	L.Push(lua.LString(err.Error()))
	return 2
}
