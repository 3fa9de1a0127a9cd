package runtime

import lua "github.com/yuin/gopher-lua"

// markers are the values that make JSON shape explicit where a Lua table is
// ambiguous: an empty table could be [] or {}, and nil cannot be stored in a
// table at all.
type markers struct {
	// array and object are metatables: json_array(t) / json_object(t) set
	// them on t.
	array, object *lua.LTable
	// null is the json_null sentinel.
	null *lua.LUserData
}

type tableKind int

const (
	kindPlain tableKind = iota
	kindArray
	kindObject
)

func newMarkers(L *lua.LState) *markers {
	m := &markers{array: L.NewTable(), object: L.NewTable(), null: L.NewUserData()}
	L.SetField(m.array, "__name", lua.LString("json_array"))
	L.SetField(m.object, "__name", lua.LString("json_object"))
	nullMeta := L.NewTable()
	L.SetField(nullMeta, "__name", lua.LString("json_null"))
	L.SetField(nullMeta, "__tostring", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LString("json_null"))
		return 1
	}))
	m.null.Metatable = nullMeta
	return m
}

// kind says how t was marked.
func (m *markers) kind(t *lua.LTable) tableKind {
	switch t.Metatable {
	case m.array:
		return kindArray
	case m.object:
		return kindObject
	}
	return kindPlain
}

// mark sets a marker metatable on its argument (a new table when none) and
// returns it, so `runs = json_array()` and `return json_object(t)` work.
// A table with a metatable of its own is refused rather than silently
// stripped of it.
func (vm *VM) mark(L *lua.LState, name string, meta *lua.LTable) int {
	var t *lua.LTable
	switch v := L.Get(1).(type) {
	case *lua.LNilType:
		t = L.NewTable()
	case *lua.LTable:
		t = v
	default:
		L.ArgError(1, "table or nothing expected, got "+v.Type().String())
	}
	if mt := t.Metatable; mt != lua.LNil && mt != vm.json.array && mt != vm.json.object {
		L.RaiseError("%s: the table already has a metatable of its own; copy its contents into a fresh table first", name)
	}
	t.Metatable = meta
	L.Push(t)
	return 1
}
