package luatable

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// TestFieldsPastTheList: a table of more fields than the list holds keeps
// every one, nil and NaN add nothing, and the table is made in one size.
func TestFieldsPastTheList(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	var fs Fields
	for i := range 40 {
		fs.Set(fmt.Sprintf("k%d", i), lua.LNumber(i))
	}
	fs.Set("none", lua.LNil)
	fs.Num("nan", math.NaN())
	fs.Num("x", 1.5)
	tbl := fs.Table(L)
	n := 0
	tbl.ForEach(func(lua.LValue, lua.LValue) { n++ })
	if n != 41 || tbl.RawGetString("k39") != lua.LNumber(39) || tbl.RawGetString("k0") != lua.LNumber(0) || tbl.RawGetString("x") != lua.LNumber(1.5) {
		t.Errorf("%d fields, k39 %v, x %v", n, tbl.RawGetString("k39"), tbl.RawGetString("x"))
	}
	if tbl.RawGetString("none") != lua.LNil || tbl.RawGetString("nan") != lua.LNil {
		t.Error("nil or NaN made a field")
	}
}

// TestOptionValues: each reader takes its kind and refuses another,
// naming the option; Ms refuses a negative time.
func TestOptionValues(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	if Ms(L, "opts.x_ms", lua.LNumber(2.5)) != 2500*time.Microsecond || !Bool(L, "opts.b", lua.LTrue) || Str(L, "opts.s", lua.LString("a")) != "a" {
		t.Error("a good value was misread")
	}
	for _, c := range []struct {
		f    func()
		want string
	}{
		{func() { Num(L, "opts.n", lua.LString("1")) }, "stream: opts.n must be a number, got string"},
		{func() { Bool(L, "opts.b", lua.LNumber(1)) }, "stream: opts.b must be true or false, got number"},
		{func() { Str(L, "opts.s", lua.LString("")) }, "stream: opts.s must not be empty"},
		{func() { Ms(L, "opts.t_ms", lua.LNumber(-1)) }, "stream: opts.t_ms must not be negative"},
	} {
		L.Push(L.NewFunction(func(*lua.LState) int { c.f(); return 0 }))
		err := L.PCall(0, 0, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
}
