// Package luatable is the tables of the stream bindings (stream(),
// stream_many()): the option values they read from a script's opts,
// checked, with stream()'s words for a wrong one, and the result tables
// they build, made once their number of fields is known.
package luatable

import (
	"math"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// Num reads opts' number name.
func Num(L *lua.LState, name string, v lua.LValue) float64 {
	n, ok := v.(lua.LNumber)
	if !ok {
		L.RaiseError("stream: %s must be a number, got %s", name, v.Type())
	}
	return float64(n)
}

// Bool reads opts' boolean name.
func Bool(L *lua.LState, name string, v lua.LValue) bool {
	b, ok := v.(lua.LBool)
	if !ok {
		L.RaiseError("stream: %s must be true or false, got %s", name, v.Type())
	}
	return bool(b)
}

// Str reads opts' string name, which must not be empty.
func Str(L *lua.LState, name string, v lua.LValue) string {
	s, ok := v.(lua.LString)
	if !ok {
		L.RaiseError("stream: %s must be a string, got %s", name, v.Type())
	}
	if s == "" {
		L.RaiseError("stream: %s must not be empty", name)
	}
	return string(s)
}

// Ms reads opts' time name in ms, 0 or more.
func Ms(L *lua.LState, name string, v lua.LValue) time.Duration {
	ms := Num(L, name, v)
	if ms < 0 {
		L.RaiseError("stream: %s must not be negative (0 means none)", name)
	}
	return time.Duration(ms * float64(time.Millisecond))
}

// Fields gathers a result table's string-keyed fields so the table is
// made once their number is known. A table of at most 32 string keys
// keeps them in a list sized when it is made (internal/gopher-lua's
// PATCHES.md, 12); filled past that size, the list would grow to twice
// it, which is most of what a finished request holds in a load run. The
// fields stay on the caller's stack (a slice stored through the pointer
// would move them to the heap).
type Fields struct {
	n    int
	kv   [32]field
	more []field // past len(kv)
}

type field struct {
	k string
	v lua.LValue
}

// Set adds k = v; nil adds nothing.
func (fs *Fields) Set(k string, v lua.LValue) {
	if v == lua.LNil {
		return
	}
	if fs.n < len(fs.kv) {
		fs.kv[fs.n] = field{k, v}
		fs.n++
		return
	}
	fs.more = append(fs.more, field{k, v})
}

// Num adds k = x unless x is NaN (absent).
func (fs *Fields) Num(k string, x float64) {
	if !math.IsNaN(x) {
		fs.Set(k, lua.LNumber(x))
	}
}

// Into sets the fields gathered in t, in their order.
func (fs *Fields) Into(t *lua.LTable) {
	for _, f := range fs.kv[:fs.n] {
		t.RawSetString(f.k, f.v)
	}
	for _, f := range fs.more {
		t.RawSetString(f.k, f.v)
	}
}

// Table makes the table of the fields gathered.
func (fs *Fields) Table(L *lua.LState) *lua.LTable {
	t := L.CreateTable(0, fs.n+len(fs.more))
	fs.Into(t)
	return t
}
