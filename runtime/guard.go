package runtime

import lua "github.com/yuin/gopher-lua"

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
			if _, ok := r.(*lua.ApiError); ok {
				panic(r)
			}
			L.RaiseError("%s: internal error: %v", name, r)
		}()
		return f(L)
	}
}

// setGlobalFunc installs a guarded binding as a global.
func (vm *VM) setGlobalFunc(name string, f lua.LGFunction) {
	vm.L.SetGlobal(name, vm.L.NewFunction(guard(name, f)))
}

// setFieldFunc installs a guarded binding in a library table (os.exit).
func (vm *VM) setFieldFunc(lib, name string, f lua.LGFunction) {
	tbl, ok := vm.L.GetGlobal(lib).(*lua.LTable)
	if !ok {
		return
	}
	vm.L.SetField(tbl, name, vm.L.NewFunction(guard(lib+"."+name, f)))
}
