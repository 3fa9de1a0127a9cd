package luajson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	lua "github.com/yuin/gopher-lua"
)

// Decode parses JSON text into Lua values. Arrays and objects come
// back marked with json_array / json_object and null as json_null, so
// writing the value again gives the same JSON (an empty array stays [],
// array items never shift).
func (m *Codec) Decode(L *lua.LState, data []byte) (lua.LValue, error) {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, describeJSONError(data, err)
	}
	return m.ToLua(L, v), nil
}

// ToLua converts decoded JSON (as encoding/json produces it) to Lua.
func (m *Codec) ToLua(L *lua.LState, v any) lua.LValue {
	switch v := v.(type) {
	case nil:
		return m.null
	case bool:
		return lua.LBool(v)
	case string:
		return lua.LString(v)
	case float64:
		return lua.LNumber(v)
	case int:
		return lua.LNumber(v)
	case int64:
		return lua.LNumber(v)
	case json.Number:
		f, _ := v.Float64()
		return lua.LNumber(f)
	case []any:
		t := L.CreateTable(len(v), 0)
		for i, item := range v {
			t.RawSetInt(i+1, m.ToLua(L, item))
		}
		t.Metatable = m.array
		return t
	case map[string]any:
		t := L.CreateTable(0, len(v))
		for k, item := range v {
			t.RawSetString(k, m.ToLua(L, item))
		}
		t.Metatable = m.object
		return t
	}
	return lua.LString(fmt.Sprint(v))
}

// describeJSONError adds the line and column to a syntax error: byte
// offsets are useless to someone looking at the file in an editor.
func describeJSONError(data []byte, err error) error {
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return err
	}
	at := int(se.Offset)
	if at > 0 {
		at-- // Offset counts the bytes read, including the offending one
	}
	line, col := lineCol(data, at)
	return fmt.Errorf("line %d, column %d: %w", line, col, err)
}

func lineCol(data []byte, offset int) (line, col int) {
	offset = min(offset, len(data))
	before := data[:offset]
	line = bytes.Count(before, []byte("\n")) + 1
	col = offset - bytes.LastIndexByte(before, '\n')
	return line, col
}
