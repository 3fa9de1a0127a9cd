package luaerror

import lua "github.com/yuin/gopher-lua"

// Guard wraps a binding so that a Go panic inside it (a bug) becomes a Lua
// error naming the binding, catchable by pcall, instead of a crash. Lua
// errors raised on purpose pass through untouched.
func Guard(name string, f lua.LGFunction) lua.LGFunction {
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
