package luajson

import (
	"math"
	"slices"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// shape is how a table will be written: an array of n items or an object
// with members sorted by name.
type shape struct {
	isArray bool
	n       int
	members []member
}

type member struct {
	name  string
	value lua.LValue
}

// keyCensus counts a table's keys by kind.
type keyCensus struct {
	strings   []member
	positions int // keys that are integers >= 1
	maxPos    int
	// numbers counts the integer keys; their names are written only when
	// a table is an object (numberMembers): an array of tens of thousands
	// of items (a prompt's token ids) is counted without a string each.
	numbers int
	// nonPosition is an integer key below 1; badNumber a fractional or
	// huge one; other a key that is neither string nor number.
	nonPosition, badNumber, other lua.LValue
}

func census(t *lua.LTable) keyCensus {
	var c keyCensus
	t.ForEach(func(k, v lua.LValue) {
		switch k := k.(type) {
		case lua.LString:
			c.strings = append(c.strings, member{string(k), v})
		case lua.LNumber:
			f := float64(k)
			if f != math.Trunc(f) || math.Abs(f) > maxSafeInt {
				c.badNumber = k
				return
			}
			c.numbers++
			if f < 1 {
				c.nonPosition = k
				return
			}
			c.positions++
			c.maxPos = max(c.maxPos, int(f))
		default:
			c.other = k
		}
	})
	return c
}

func (m *Codec) shapeOf(t *lua.LTable, p *keyPath) (shape, error) {
	c := census(t)
	if c.other != nil {
		return shape{}, failAt(p, "has a key of type %s; JSON object keys must be strings", c.other.Type())
	}
	if c.badNumber != nil {
		return shape{}, failAt(p, "has the number key %s; JSON keys must be strings or array positions 1, 2, ...", c.badNumber)
	}
	switch m.kind(t) {
	case kindArray:
		return arrayShape(t, c, p, "is marked json_array but")
	case kindObject:
		return sortedMembers(append(c.strings, numberMembers(t)...), p)
	}
	switch {
	case len(c.strings) == 0 && c.numbers == 0:
		return shape{isArray: true}, nil
	case c.nonPosition != nil:
		return shape{}, failAt(p, "has the number key %s, which is not an array position (1, 2, ...); use string keys, or json_object(t) to write number keys as strings", c.nonPosition)
	case len(c.strings) > 0 && c.positions > 0:
		return shape{}, failAt(p, "mixes array items ([1], ...) and named keys (%q); JSON needs one or the other", firstName(c.strings))
	case c.positions > 0:
		return arrayShape(t, c, p, "")
	}
	return sortedMembers(c.strings, p)
}

func arrayShape(t *lua.LTable, c keyCensus, p *keyPath, marked string) (shape, error) {
	if marked != "" {
		switch {
		case len(c.strings) > 0:
			return shape{}, failAt(p, "%s has the key %q", marked, firstName(c.strings))
		case c.nonPosition != nil:
			return shape{}, failAt(p, "%s has the key %s", marked, c.nonPosition)
		}
	}
	if c.positions != c.maxPos {
		return shape{}, failAt(p, "the array has a hole at [%d] (nil items cannot be stored in a table); use json_null for a missing item", firstHole(t))
	}
	return shape{isArray: true, n: c.maxPos}, nil
}

// sortedMembers: number keys only get here for json_object(t), which is
// how a script says "write these integers as member names".
func sortedMembers(ms []member, p *keyPath) (shape, error) {
	slices.SortFunc(ms, func(a, b member) int { return strings.Compare(a.name, b.name) })
	for i := 1; i < len(ms); i++ {
		if ms[i].name == ms[i-1].name {
			return shape{}, failAt(p, "has the key %q twice (as a string and as a number)", ms[i].name)
		}
	}
	return shape{members: ms}, nil
}

// numberMembers are t's integer keys as members named by their decimal
// string (json_object(t)); census has checked they are integers.
func numberMembers(t *lua.LTable) []member {
	var ms []member
	t.ForEach(func(k, v lua.LValue) {
		if n, ok := k.(lua.LNumber); ok {
			ms = append(ms, member{strconv.FormatInt(int64(n), 10), v})
		}
	})
	return ms
}

func firstHole(t *lua.LTable) int {
	seen := map[int]bool{}
	t.ForEach(func(k, _ lua.LValue) {
		if n, ok := k.(lua.LNumber); ok {
			seen[int(n)] = true
		}
	})
	for i := 1; ; i++ {
		if !seen[i] {
			return i
		}
	}
}

// firstName picks the alphabetically first name so messages are stable.
func firstName(ms []member) string {
	name := ms[0].name
	for _, m := range ms[1:] {
		name = min(name, m.name)
	}
	return name
}
