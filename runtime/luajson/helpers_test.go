package luajson

import (
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// newState is a Lua state with the codec's marks as the host names them
// (json_array, json_object, json_null).
func newState(t *testing.T) (*lua.LState, *Codec) {
	t.Helper()
	L := lua.NewState()
	t.Cleanup(L.Close)
	c := New(L)
	L.SetGlobal("json_array", L.NewFunction(c.MarkArray))
	L.SetGlobal("json_object", L.NewFunction(c.MarkObject))
	L.SetGlobal("json_null", c.Null())
	return L, c
}

// eval is the value of a Lua expression.
func eval(t *testing.T, L *lua.LState, expr string) lua.LValue {
	t.Helper()
	if err := L.DoString("return " + expr); err != nil {
		t.Fatalf("evaluating %s: %v", expr, err)
	}
	v := L.Get(-1)
	L.Pop(1)
	return v
}

func mustContain(t *testing.T, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Fatalf("%q does not contain %q", got, w)
		}
	}
}
