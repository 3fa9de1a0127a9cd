// Package luajson converts between Lua values and JSON text by the rules
// scripts rely on (docs/lua-api.md): the marks json_array, json_object
// and json_null that make a table's shape explicit, times (*_ms, *_pNN)
// kept to the microsecond, no NaN or infinity, key paths in every error,
// bounded depth and size. It knows nothing of files or of the host: the
// host writes the text it returns.
package luajson

import lua "github.com/yuin/gopher-lua"

// A Codec is the JSON conversion of one Lua state. It holds the values
// that make JSON shape explicit where a Lua table is ambiguous: an empty
// table could be [] or {}, and nil cannot be stored in a table at all.
type Codec struct {
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

// New makes the marks of L's JSON values.
func New(L *lua.LState) *Codec {
	m := &Codec{array: L.NewTable(), object: L.NewTable(), null: L.NewUserData()}
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

// Null is json_null, the value written as null.
func (m *Codec) Null() *lua.LUserData { return m.null }

// kind says how t was marked.
func (m *Codec) kind(t *lua.LTable) tableKind {
	switch t.Metatable {
	case m.array:
		return kindArray
	case m.object:
		return kindObject
	}
	return kindPlain
}

// MarkArray is json_array([t]): t (a new table when none) marked to be
// written as a JSON array, returned, so `runs = json_array()` works.
func (m *Codec) MarkArray(L *lua.LState) int { return m.mark(L, "json_array", m.array) }

// MarkObject is json_object([t]): t marked to be written as a JSON
// object, so `return json_object(t)` works.
func (m *Codec) MarkObject(L *lua.LState) int { return m.mark(L, "json_object", m.object) }

// mark sets a marker metatable on its argument (a new table when none) and
// returns it. A table with a metatable of its own is refused rather than
// silently stripped of it; a table marked one way may be marked the other.
func (m *Codec) mark(L *lua.LState, name string, meta *lua.LTable) int {
	var t *lua.LTable
	switch v := L.Get(1).(type) {
	case *lua.LNilType:
		t = L.NewTable()
	case *lua.LTable:
		t = v
	default:
		L.ArgError(1, "table or nothing expected, got "+v.Type().String())
	}
	if mt := t.Metatable; mt != lua.LNil && mt != m.array && mt != m.object {
		L.RaiseError("%s: the table already has a metatable of its own; copy its contents into a fresh table first", name)
	}
	t.Metatable = meta
	L.Push(t)
	return 1
}
