package luajson

import (
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
