package runtime

import (
	"io"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/runtime/luaerror"
)

// installStdio points io.write, io.stdout and io.stderr at Config.Stdout
// and Config.Stderr. gopher-lua's own versions write to the process's
// file descriptors, which a host that captures output (tests, a REPL)
// would miss.
func (vm *VM) installStdio() {
	vm.setFunc("io.write", func(L *lua.LState) int {
		writeArgs(L, vm.cfg.Stdout, 1)
		return 0
	})
	ioLib, ok := vm.L.GetGlobal("io").(*lua.LTable)
	if !ok {
		return
	}
	vm.L.SetField(ioLib, "stdout", vm.writerFile("stdout", vm.cfg.Stdout))
	vm.L.SetField(ioLib, "stderr", vm.writerFile("stderr", vm.cfg.Stderr))
}

// writerFile makes a write-only file object: f:write(...) returns f so calls
// chain as in standard Lua; flush and setvbuf do nothing.
func (vm *VM) writerFile(name string, w io.Writer) *lua.LUserData {
	L := vm.L
	ud := L.NewUserData()
	methods := L.NewTable()
	L.SetField(methods, "write", L.NewFunction(luaerror.Guard("io."+name+":write", func(L *lua.LState) int {
		writeArgs(L, w, 2)
		L.Push(L.Get(1))
		return 1
	})))
	noop := L.NewFunction(func(L *lua.LState) int { return 0 })
	L.SetField(methods, "flush", noop)
	L.SetField(methods, "setvbuf", noop)
	meta := L.NewTable()
	L.SetField(meta, "__index", methods)
	L.SetField(meta, "__tostring", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LString("file (" + name + ")"))
		return 1
	}))
	ud.Metatable = meta
	return ud
}

// writeArgs writes arguments from index first on: strings and numbers
// only, as in standard Lua.
func writeArgs(L *lua.LState, w io.Writer, first int) {
	var b strings.Builder
	for i := first; i <= L.GetTop(); i++ {
		switch v := L.Get(i).(type) {
		case lua.LString, lua.LNumber:
			b.WriteString(v.String())
		default:
			L.ArgError(i, "string expected, got "+v.Type().String())
		}
	}
	io.WriteString(w, b.String())
}
