// Package luaerror raises and places errors as Lua 5.1 does, where
// gopher-lua differs: error(message, level) with Lua 5.1's levels, a
// position inside the embedded library moved on to the user's line, and
// bindings whose Go panics become Lua errors naming the binding.
package luaerror

import (
	"fmt"
	"regexp"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// Error is error(message, [level]) with Lua 5.1's levels. gopher-lua's
// own names the frame one deeper than Lua does for every level above 1
// (its level 2 is the function that called error, not that function's
// caller), so modules and scripts would each need a work-around. Here
// level 1 (the default) is the line that called error, level 2 the line
// that called the function that called error, and so on; level 0 adds no
// position. A position inside the embedded stdlib moves on to the first
// line outside it, so a module's error names the user's line. As in Lua
// 5.1, error() raises nil, and a number gets a position as a string does
// (becoming a string).
func Error(L *lua.LState) int {
	obj := L.Get(1)
	level := L.OptInt(2, 1)
	if n, ok := obj.(lua.LNumber); ok && level > 0 {
		obj = lua.LString(n.String())
	}
	if msg, ok := obj.(lua.LString); ok && level > 0 {
		if pos := position(L, level); pos != "" {
			obj = lua.LString(pos + " " + string(msg))
		}
	}
	L.Error(obj, 0)
	return 0
}

// StdlibChunk begins the chunk name of every embedded module, as
// positions name it ("stdlib/stats.lua:12:").
const StdlibChunk = "stdlib/"

// position is "chunk:line:" of the Lua function `level` frames above the
// Go function running now (1: its caller); "" when there is none or when
// that frame is a Go function (pcall(error, "x")), as Lua 5.1's luaL_where
// says. A frame of the embedded stdlib passes the position on to the
// first Lua frame outside the stdlib, over Go frames (when nothing
// outside the stdlib called it, the stdlib's own line).
func position(L *lua.LState, level int) string {
	fallback := ""
	for n := level; ; n++ {
		dbg, ok := L.GetStack(n)
		if !ok {
			return fallback
		}
		if _, err := L.GetInfo("Sl", dbg, lua.LNil); err != nil || dbg.CurrentLine <= 0 {
			if fallback == "" {
				return ""
			}
			continue
		}
		pos := fmt.Sprintf("%s:%d:", dbg.Source, dbg.CurrentLine)
		if !strings.HasPrefix(dbg.Source, StdlibChunk) {
			return pos
		}
		if fallback == "" {
			fallback = pos
		}
	}
}

// stdlibPosition matches the position gopher-lua puts before the message
// of a binding that raised while a stdlib module called it.
var stdlibPosition = regexp.MustCompile(`^` + regexp.QuoteMeta(StdlibChunk) + `[^:]+:\d+: `)

// blameCaller rewrites such a position to the user's line (see position).
func blameCaller(L *lua.LState, ae *lua.ApiError) {
	msg, ok := ae.Object.(lua.LString)
	if !ok || !stdlibPosition.MatchString(string(msg)) {
		return
	}
	if pos := position(L, 1); pos != "" {
		ae.Object = lua.LString(pos + " " + stdlibPosition.ReplaceAllString(string(msg), ""))
	}
}

// Value is the Lua value an error was raised with: error()'s argument as
// it was (a table stays a table), a Go error's text as a string.
func Value(err error) lua.LValue {
	if ae, ok := err.(*lua.ApiError); ok {
		return ae.Object
	}
	return lua.LString(err.Error())
}
