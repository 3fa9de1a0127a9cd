package luaerror

import (
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// newState is a Lua state whose error is Error.
func newState(t *testing.T) *lua.LState {
	t.Helper()
	L := lua.NewState()
	t.Cleanup(L.Close)
	L.SetGlobal("error", L.NewFunction(Error))
	return L
}

// run runs code as the chunk named chunk and returns what it returns.
func run(L *lua.LState, code, chunk string) ([]lua.LValue, error) {
	fn, err := L.Load(strings.NewReader(code), chunk)
	if err != nil {
		return nil, err
	}
	top := L.GetTop()
	L.Push(fn)
	if err := L.PCall(0, lua.MultRet, nil); err != nil {
		return nil, err
	}
	out := make([]lua.LValue, 0, L.GetTop()-top)
	for i := top + 1; i <= L.GetTop(); i++ {
		out = append(out, L.Get(i))
	}
	L.SetTop(top)
	return out, nil
}

// TestErrorLevelsAsInLua51: error(msg, level) names the line Lua 5.1
// names, for every level.
func TestErrorLevelsAsInLua51(t *testing.T) {
	const code = `local function inner(level) error("boom", level) end -- line 1
local function outer(level) inner(level) end                               -- line 2
local ok, msg = pcall(outer, LEVEL)                                         -- line 3
local ok2, msg2 = pcall(error, {code = 7})
return msg, type(msg2), msg2.code
`
	cases := map[string]string{
		"1":   "e.lua:1: boom", // the line that called error
		"2":   "e.lua:2: boom", // the line that called inner
		"nil": "e.lua:1: boom", // level 1 is the default
		"0":   "boom",          // no position
	}
	for level, want := range cases {
		got, err := run(newState(t), strings.Replace(code, "LEVEL", level, 1), "e.lua")
		if err != nil {
			t.Fatal(err)
		}
		if got[0].String() != want {
			t.Errorf("error(msg, %s) gave %q, want %q", level, got[0], want)
		}
		if got[1].String() != "table" || got[2].String() != "7" {
			t.Errorf("error(table) gave %v %v, want the table itself", got[1], got[2])
		}
	}
	// Level 3 from inner is the line that called outer.
	_, err := run(newState(t), "local function inner() error('deep', 3) end\nlocal function outer() inner() end\nouter()\n", "e.lua")
	if err == nil || !strings.HasPrefix(err.Error(), "e.lua:3: deep") {
		t.Errorf("level 3: %v", err)
	}
}

// TestStdlibErrorsNameTheUsersLine: an error raised inside the embedded
// library, by error() or by a guarded binding it calls, names the line
// of the user's script that called into the library.
func TestStdlibErrorsNameTheUsersLine(t *testing.T) {
	L := newState(t)
	L.SetGlobal("refuse", L.NewFunction(Guard("refuse", func(L *lua.LState) int {
		L.RaiseError("refuse: no")
		return 0
	})))
	if _, err := run(L, "lib = {}\nfunction lib.check(x)\n  if x then error('bad x') end\n  refuse()\nend\n", StdlibChunk+"lib.lua"); err != nil {
		t.Fatal(err)
	}
	for code, want := range map[string]string{
		"\nlib.check(true)\n": "user.lua:2: bad x",
		"\n\nlib.check()\n":   "user.lua:3: refuse: no",
	} {
		_, err := run(L, code, "user.lua")
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q: got %v, want %q", code, err, want)
		}
	}
}

// TestGuardTurnsPanicsIntoLuaErrors: a Go panic inside a binding (a
// bug) is a Lua error naming the binding, which pcall catches.
func TestGuardTurnsPanicsIntoLuaErrors(t *testing.T) {
	L := newState(t)
	L.SetGlobal("explode", L.NewFunction(Guard("explode", func(L *lua.LState) int {
		var m map[string]int
		m["x"] = 1 // a nil-map write: a real Go panic
		return 0
	})))
	got, err := run(L, "return pcall(explode)", "p.lua")
	if err != nil {
		t.Fatal(err)
	}
	if got[0] != lua.LFalse || !strings.Contains(got[1].String(), "explode: internal error: assignment to entry in nil map") {
		t.Fatalf("pcall(explode) gave %v", got)
	}
}
