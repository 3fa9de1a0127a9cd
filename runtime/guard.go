package runtime

import (
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// guard wraps a binding so that a Go panic inside it (a bug) becomes a Lua
// error naming the binding, catchable by pcall, instead of a crash. Lua
// errors raised on purpose pass through untouched.
func guard(name string, f lua.LGFunction) lua.LGFunction {
	return func(L *lua.LState) int {
		defer func() {
			r := recover()
			if r == nil {
				return
			}
			if ae, ok := r.(*lua.ApiError); ok {
				blameCaller(L, ae)
				panic(r)
			}
			L.RaiseError("%s: internal error: %v", name, r)
		}()
		return f(L)
	}
}

// setFunc installs a guarded binding as a global, or in a library table
// when name is "lib.name" (os.exit).
func (vm *VM) setFunc(name string, f lua.LGFunction) {
	fn := vm.L.NewFunction(guard(name, f))
	lib, field, ok := strings.Cut(name, ".")
	if !ok {
		vm.L.SetGlobal(name, fn)
		return
	}
	if tbl, ok := vm.L.GetGlobal(lib).(*lua.LTable); ok {
		vm.L.SetField(tbl, field, fn)
	}
}
