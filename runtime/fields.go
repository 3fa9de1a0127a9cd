package runtime

import (
	"math"

	lua "github.com/yuin/gopher-lua"
)

// fields gathers a result table's string-keyed fields so the table is
// made once their number is known. A table of at most 32 string keys
// keeps them in a list sized when it is made (internal/gopher-lua's
// PATCHES.md, 12); filled past that size, the list would grow to twice
// it, which is most of what a finished request holds in a load run. The
// fields stay on the caller's stack (a slice stored through the pointer
// would move them to the heap).
type fields struct {
	n    int
	kv   [32]field
	more []field // past len(kv)
}

type field struct {
	k string
	v lua.LValue
}

// set adds k = v; nil adds nothing.
func (fs *fields) set(k string, v lua.LValue) {
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

// num adds k = x unless x is NaN (absent).
func (fs *fields) num(k string, x float64) {
	if !math.IsNaN(x) {
		fs.set(k, lua.LNumber(x))
	}
}

// into sets the fields gathered in t, in their order.
func (fs *fields) into(t *lua.LTable) {
	for _, f := range fs.kv[:fs.n] {
		t.RawSetString(f.k, f.v)
	}
	for _, f := range fs.more {
		t.RawSetString(f.k, f.v)
	}
}

// table makes the table of the fields gathered.
func (fs *fields) table(L *lua.LState) *lua.LTable {
	t := L.CreateTable(0, fs.n+len(fs.more))
	fs.into(t)
	return t
}
