package runtime

import lua "github.com/yuin/gopher-lua"

// luaError is error(message, [level]) with Lua 5.1's levels. gopher-lua's
// own names the frame one deeper than Lua does for every level above 1
// (its level 2 is the function that called error, not that function's
// caller), so modules and scripts would each need a work-around. Here
// level 1 (the default) is the line that called error, level 2 the line
// that called the function that called error, and so on; level 0 adds no
// position.
func luaError(_ *VM, L *lua.LState) int {
	obj := L.CheckAny(1)
	level := L.OptInt(2, 1)
	if level > 0 {
		// L.Error(obj, n) names the frame n-1 above the innermost one, a
		// Go function (this one) that it skips: n = level+1 names the
		// frame `level` above this call, counting from the caller.
		level++
	}
	L.Error(obj, level)
	return 0
}
