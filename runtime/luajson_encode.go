package runtime

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"unicode/utf8"

	lua "github.com/yuin/gopher-lua"
)

// Lua -> JSON rules (documented for users in the README):
//   - json_array(t) / json_object(t) force the shape; an empty plain table
//     is [] (most lab fields that can be empty are lists)
//   - a plain table with keys exactly 1..n is an array, one with only
//     string keys an object; holes, mixed keys and other key types are
//     errors naming the key path
//   - integral numbers within +-2^53 are written without ".0"; NaN and
//     infinities are errors
//   - json_null is null; functions, userdata and threads are errors
//   - object keys are sorted; no HTML escaping; a table may appear twice
//     (only a cycle is an error)

// maxSafeInt is the largest magnitude below which every integer is exact
// in a float64.
const maxSafeInt = 1 << 53

type encoder struct {
	m      *markers
	indent bool
	buf    bytes.Buffer
	// active holds the tables on the current descent, to catch cycles
	// while allowing one table to be referenced twice.
	active map[*lua.LTable]bool
}

// encodeJSON converts v to JSON: indented with 2 spaces (no trailing
// newline), or compact on one line.
func (m *markers) encodeJSON(v lua.LValue, indent bool) ([]byte, error) {
	e := &encoder{m: m, indent: indent, active: map[*lua.LTable]bool{}}
	if err := e.value(v, &keyPath{}, 0); err != nil {
		return nil, err
	}
	return e.buf.Bytes(), nil
}

func (e *encoder) value(v lua.LValue, p *keyPath, depth int) error {
	switch v := v.(type) {
	case *lua.LNilType:
		return failAt(p, "the value is nil (use json_null to write null)")
	case lua.LBool:
		e.buf.WriteString(strconv.FormatBool(bool(v)))
	case lua.LNumber:
		return e.number(float64(v), p)
	case lua.LString:
		writeJSONString(&e.buf, string(v))
	case *lua.LUserData:
		if v != e.m.null {
			return failAt(p, "a userdata value cannot be written as JSON")
		}
		e.buf.WriteString("null")
	case *lua.LTable:
		return e.table(v, p, depth)
	default:
		return failAt(p, "a %s cannot be written as JSON", v.Type())
	}
	return nil
}

func (e *encoder) number(f float64, p *keyPath) error {
	switch {
	case math.IsNaN(f):
		return failAt(p, "NaN cannot be written as JSON (use json_null or a number)")
	case math.IsInf(f, 0):
		return failAt(p, "infinity cannot be written as JSON (use json_null or a finite number)")
	case f == math.Trunc(f) && math.Abs(f) <= maxSafeInt:
		e.buf.WriteString(strconv.FormatInt(int64(f), 10))
	default:
		b, _ := json.Marshal(f) // finite floats always marshal
		e.buf.Write(b)
	}
	return nil
}

func (e *encoder) table(t *lua.LTable, p *keyPath, depth int) error {
	if e.active[t] {
		return failAt(p, "the table contains itself; JSON cannot express a cycle")
	}
	e.active[t] = true
	defer delete(e.active, t)
	s, err := e.m.shapeOf(t, p)
	if err != nil {
		return err
	}
	if s.isArray {
		return e.array(t, s.n, p, depth)
	}
	return e.object(s.members, p, depth)
}

func (e *encoder) array(t *lua.LTable, n int, p *keyPath, depth int) error {
	if n == 0 {
		e.buf.WriteString("[]")
		return nil
	}
	e.buf.WriteByte('[')
	for i := 1; i <= n; i++ {
		if i > 1 {
			e.buf.WriteByte(',')
		}
		e.newline(depth + 1)
		if err := e.value(t.RawGetInt(i), p.item(i), depth+1); err != nil {
			return err
		}
	}
	e.newline(depth)
	e.buf.WriteByte(']')
	return nil
}

func (e *encoder) object(members []member, p *keyPath, depth int) error {
	if len(members) == 0 {
		e.buf.WriteString("{}")
		return nil
	}
	e.buf.WriteByte('{')
	for i, m := range members {
		if i > 0 {
			e.buf.WriteByte(',')
		}
		e.newline(depth + 1)
		writeJSONString(&e.buf, m.name)
		e.buf.WriteByte(':')
		if e.indent {
			e.buf.WriteByte(' ')
		}
		if err := e.value(m.value, p.member(m.name), depth+1); err != nil {
			return err
		}
	}
	e.newline(depth)
	e.buf.WriteByte('}')
	return nil
}

func (e *encoder) newline(depth int) {
	if !e.indent {
		return
	}
	e.buf.WriteByte('\n')
	for i := 0; i < depth; i++ {
		e.buf.WriteString("  ")
	}
}

// writeJSONString quotes s without HTML escaping (the output is read by
// people and tools, not embedded in web pages). Bytes that are not UTF-8,
// e.g. from string.sub cutting a character, become U+FFFD.
func writeJSONString(buf *bytes.Buffer, s string) {
	const hex = "0123456789abcdef"
	buf.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				buf.WriteByte('\\')
				buf.WriteByte(c)
			case c == '\n':
				buf.WriteString(`\n`)
			case c == '\r':
				buf.WriteString(`\r`)
			case c == '\t':
				buf.WriteString(`\t`)
			case c < 0x20 || c == 0x7f:
				buf.WriteString(`\u00`)
				buf.WriteByte(hex[c>>4])
				buf.WriteByte(hex[c&0xf])
			default:
				buf.WriteByte(c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			buf.WriteString(`\ufffd`)
		} else {
			buf.WriteString(s[i : i+size])
		}
		i += size
	}
	buf.WriteByte('"')
}
