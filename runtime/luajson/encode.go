package luajson

import (
	"bytes"
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	lua "github.com/yuin/gopher-lua"
)

// Lua -> JSON rules (documented for users in the README):
//   - json_array(t) / json_object(t) force the shape; an empty plain table
//     is [] (most lab fields that can be empty are lists)
//   - a plain table with keys exactly 1..n is an array, one with only
//     string keys an object; holes, mixed keys and other key types are
//     errors naming the key path
//   - integral numbers within +-2^53 are written without ".0"; NaN,
//     infinities and +-math.MaxFloat64 (gopher-lua's math.huge) are
//     errors, and so is a time (see isTime) beyond +-2^53 microseconds
//   - json_null is null; functions, userdata and threads are errors
//   - object keys are sorted; no HTML escaping; a table may appear twice
//     (only a cycle is an error)
//   - nesting deeper than maxJSONDepth and output longer than
//     maxJSONBytes are errors, so the work stays linear in what is
//     written and bounded

// maxSafeInt is the largest magnitude below which every integer is exact
// in a float64.
const maxSafeInt = 1 << 53

// maxTimeMs bounds a time in milliseconds: up to 2^53 microseconds
// (about 285 years) every whole microsecond is exact in a float64, so
// rounding to the microsecond is exact and cannot overflow. Nothing a
// clock measured comes near it; a larger "time" was computed from
// math.huge or an overflow, and writing it would hide that.
const maxTimeMs = maxSafeInt / 1000.0

// maxJSONDepth is how deeply tables may nest in one value. Artifacts are
// a handful of levels deep, and about this deep a Lua function walking a
// value recursively hits the VM's call-stack limit (1024 frames), so a
// deeper value is a bug (a table that gains a level per iteration). The limit
// also bounds the indentation to 2*maxJSONDepth spaces a line, so the
// indented text stays linear in the value.
const maxJSONDepth = 1000

// maxJSONBytes bounds the text of one value. A value shared many times
// (t = {a = s, b = s}, nested) is written out in full each time and can
// grow exponentially with the nesting; no artifact a script builds from
// distinct data comes near this (the Lua tables would take several
// times the memory).
var maxJSONBytes = 256 << 20

// indentSpaces is sliced for every indented line instead of writing the
// indentation one level at a time.
var indentSpaces = strings.Repeat(" ", 2*(maxJSONDepth+1))

type encoder struct {
	m      *Codec
	indent bool
	buf    bytes.Buffer
	// active holds the tables on the current descent, to catch cycles
	// while allowing one table to be referenced twice.
	active map[*lua.LTable]bool
	// nodes holds one reusable key-path node per depth: a path is only
	// read during the descent below it, so a large value costs no
	// allocation per item.
	nodes []*keyPath
}

// child is the path one level below p, in the node reserved for depth.
func (e *encoder) child(p *keyPath, depth int, key string, index int) *keyPath {
	for len(e.nodes) <= depth {
		e.nodes = append(e.nodes, new(keyPath))
	}
	n := e.nodes[depth]
	*n = keyPath{parent: p, key: key, index: index}
	return n
}

// Encode converts v to JSON: indented with 2 spaces (no trailing
// newline), or compact on one line.
func (m *Codec) Encode(v lua.LValue, indent bool) ([]byte, error) {
	e := &encoder{m: m, indent: indent, active: map[*lua.LTable]bool{}}
	if err := e.value(v, &keyPath{}, 0); err != nil {
		return nil, err
	}
	return e.buf.Bytes(), nil
}

func (e *encoder) value(v lua.LValue, p *keyPath, depth int) error {
	if e.buf.Len() > maxJSONBytes {
		return failAt(p, "the JSON text passes %d MiB here: too large to write in one piece (is one table shared many times over?)", maxJSONBytes>>20)
	}
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

func (e *encoder) number(f float64, p *keyPath) error { return e.numberAs(f, isTime(p), p) }

// numberAs writes f at p, a time (kept to the microsecond) or not, as
// the caller found with isTime.
func (e *encoder) numberAs(f float64, time bool, p *keyPath) error {
	if err := checkFinite(f, p); err != nil {
		return err
	}
	if time {
		if math.Abs(f) >= maxTimeMs {
			return failAt(p, "%s ms is no time a clock measured (the limit is ±2^53 µs, about 285 years); "+
				"was it computed from math.huge? use json_null for no value", appendFloat(nil, f))
		}
		// Times are kept to the microsecond: what the clock means, without
		// the float noise of differences (9.17602000000079). Below
		// maxTimeMs the product is below 2^53: exact, never overflowing.
		f = math.Round(f*1000) / 1000
		if f == 0 {
			f = 0 // no -0
		}
	}
	e.writeNumber(f)
	return nil
}

// checkFinite refuses what JSON cannot hold. ±math.MaxFloat64 counts as
// infinite: it is gopher-lua's math.huge, which scripts use for "no
// value" or "infinitely late", and any arithmetic on it overflows.
func checkFinite(f float64, p *keyPath) error {
	switch {
	case math.IsNaN(f):
		return failAt(p, "NaN cannot be written as JSON (use json_null for no value)")
	case math.IsInf(f, 0):
		return failAt(p, "infinity cannot be written as JSON (use json_null for no value)")
	case math.Abs(f) >= math.MaxFloat64:
		return failAt(p, "%s is math.huge, which counts as infinity: infinity cannot be written as JSON (use json_null for no value)", appendFloat(nil, f))
	}
	return nil
}

// Finite says whether f can be written as a JSON number by the rules
// of write_json (for writers that build JSON in Go).
func Finite(f float64) bool {
	return !math.IsNaN(f) && math.Abs(f) < math.MaxFloat64
}

func (e *encoder) writeNumber(f float64) {
	if f == math.Trunc(f) && math.Abs(f) <= maxSafeInt {
		e.buf.Write(strconv.AppendInt(e.buf.AvailableBuffer(), int64(f), 10))
		return
	}
	e.buf.Write(appendFloat(e.buf.AvailableBuffer(), f))
}

// isTime says whether a number is a time in milliseconds, by the
// project's convention for units in names: a member named *_ms or a
// percentile *_pNN (ttft_p50), or anything inside a *_ms member
// (ttft_ms = {p50 = ...}, runs_ms = {...}).
func isTime(p *keyPath) bool {
	for q, own := p, true; q != nil; q = q.parent {
		if q.index != 0 || q.key == "" {
			continue
		}
		if strings.HasSuffix(q.key, "_ms") || (own && percentileName.MatchString(q.key)) {
			return true
		}
		own = false
	}
	return false
}

var percentileName = regexp.MustCompile(`_p\d+$`)

// appendFloat formats a finite float exactly as encoding/json does (the
// shortest form that reads back the same; exponents only for very small
// or very large magnitudes, without a leading zero), without its
// allocations.
func appendFloat(b []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// e-09 becomes e-9, as in encoding/json
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

func (e *encoder) table(t *lua.LTable, p *keyPath, depth int) error {
	if e.active[t] {
		return failAt(p, "the table contains itself; JSON cannot express a cycle")
	}
	// depth counts the tables above this one: checked before anything
	// of this table is looked at or written.
	if depth >= maxJSONDepth {
		return failAt(p, "the value is nested deeper than %d levels, the limit for JSON written by ttftlab (a table that gains a level per iteration?)", maxJSONDepth)
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
	// Whether an item is a time depends on the members above the array
	// alone, not on the item's place: found once for the array's numbers
	// (a prompt of token ids is tens of thousands of them).
	itemTime := -1
	for i := 1; i <= n; i++ {
		if i > 1 {
			e.buf.WriteByte(',')
		}
		e.newline(depth + 1)
		c, v := e.child(p, depth+1, "", i), t.RawGetInt(i)
		if f, ok := v.(lua.LNumber); ok && e.buf.Len() <= maxJSONBytes {
			if itemTime < 0 {
				itemTime = 0
				if isTime(c) {
					itemTime = 1
				}
			}
			if err := e.numberAs(float64(f), itemTime == 1, c); err != nil {
				return err
			}
			continue
		}
		if err := e.value(v, c, depth+1); err != nil {
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
		if err := e.value(m.value, e.child(p, depth+1, m.name, 0), depth+1); err != nil {
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
	e.buf.WriteString(indentSpaces[:2*depth])
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
