package repl

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// prettyLimits keep a printed value readable.
type prettyLimits struct {
	// depth is how many tables deep contents are shown; deeper tables
	// print as {…N items}.
	depth int
	// items is how many array items are shown before "… N more".
	items int
	// str is the longest string shown inside a table; a string printed on
	// its own is never cut.
	str int
	// width is the widest table printed on one line.
	width int
}

var defaultPrettyLimits = prettyLimits{depth: 4, items: 10, str: 120, width: 72}

// pretty formats a value for the prompt: strings quoted, tables with
// array items first, then the other keys sorted, nested and indented.
func pretty(L *lua.LState, v lua.LValue, lim prettyLimits) string {
	p := &printer{L: L, lim: lim, onPath: map[*lua.LTable]bool{}}
	return p.value(v, 0, true)
}

type printer struct {
	L   *lua.LState
	lim prettyLimits
	// onPath holds the tables being printed around the current one: meeting
	// one again is a cycle.
	onPath map[*lua.LTable]bool
}

func (p *printer) value(v lua.LValue, depth int, top bool) string {
	switch v := v.(type) {
	case lua.LString:
		if top {
			return quote(string(v))
		}
		return clipQuote(string(v), p.lim.str)
	case *lua.LTable:
		if s, ok := p.metaToString(v); ok {
			return s
		}
		return p.table(v, depth)
	}
	if s, ok := p.metaToString(v); ok {
		return s
	}
	return v.String()
}

// metaToString calls a __tostring metamethod, protected: a broken one
// must not end the session.
func (p *printer) metaToString(v lua.LValue) (string, bool) {
	fn, ok := p.L.GetMetaField(v, "__tostring").(*lua.LFunction)
	if !ok {
		return "", false
	}
	if err := p.L.CallByParam(lua.P{Fn: fn, NRet: 1, Protect: true}, v); err != nil {
		return fmt.Sprintf("<%s: __tostring failed: %v>", v.Type(), err), true
	}
	s := p.L.Get(-1)
	p.L.Pop(1)
	return lua.LVAsString(s), true
}

// entry is one key = value line of a table.
type entry struct {
	key  string // "" for array items
	text string
}

func (p *printer) table(t *lua.LTable, depth int) string {
	prefix := ""
	if name, ok := p.L.GetMetaField(t, "__name").(lua.LString); ok {
		prefix = string(name) + " " // json_array, json_object
	}
	if p.onPath[t] {
		return "<cycle: " + prefix + t.String() + ">"
	}
	n, keys := tableKeys(t)
	if n+len(keys) == 0 {
		return prefix + "{}"
	}
	if depth >= p.lim.depth {
		return fmt.Sprintf("%s{…%d items}", prefix, n+len(keys))
	}
	p.onPath[t] = true
	defer delete(p.onPath, t)
	var entries []entry
	shown := min(n, p.lim.items)
	for i := 1; i <= shown; i++ {
		entries = append(entries, entry{text: p.value(t.RawGetInt(i), depth+1, false)})
	}
	if n > shown {
		entries = append(entries, entry{text: fmt.Sprintf("… %d more", n-shown)})
	}
	for _, k := range keys {
		entries = append(entries, entry{key: keyText(k), text: p.value(t.RawGet(k), depth+1, false)})
	}
	return prefix + p.layout(entries, depth)
}

// layout puts short tables on one line, others one entry per line.
func (p *printer) layout(entries []entry, depth int) string {
	parts := make([]string, len(entries))
	oneLine, width := true, 2*depth+2
	for i, e := range entries {
		parts[i] = e.text
		if e.key != "" {
			parts[i] = e.key + " = " + e.text
		}
		width += len(parts[i]) + 2
		if strings.Contains(parts[i], "\n") {
			oneLine = false
		}
	}
	if oneLine && width <= p.lim.width {
		return "{" + strings.Join(parts, ", ") + "}"
	}
	inner := strings.Repeat("  ", depth+1)
	var b strings.Builder
	b.WriteString("{\n")
	for _, part := range parts {
		b.WriteString(inner + part + ",\n")
	}
	b.WriteString(strings.Repeat("  ", depth) + "}")
	return b.String()
}

// tableKeys returns the length n of the array part (keys 1..n without a
// hole) and the other keys: numbers ascending, then strings, then the
// rest by type and text.
func tableKeys(t *lua.LTable) (int, []lua.LValue) {
	n := 0
	for t.RawGetInt(n+1) != lua.LNil {
		n++
	}
	var keys []lua.LValue
	t.ForEach(func(k, _ lua.LValue) {
		if num, ok := k.(lua.LNumber); ok && float64(num) == float64(int(num)) && int(num) >= 1 && int(num) <= n {
			return
		}
		keys = append(keys, k)
	})
	sort.Slice(keys, func(i, j int) bool { return keyLess(keys[i], keys[j]) })
	return n, keys
}

func keyLess(a, b lua.LValue) bool {
	ra, rb := keyRank(a), keyRank(b)
	if ra != rb {
		return ra < rb
	}
	if na, ok := a.(lua.LNumber); ok {
		return na < b.(lua.LNumber)
	}
	if ra == 2 {
		return a.Type().String()+a.String() < b.Type().String()+b.String()
	}
	return a.String() < b.String()
}

func keyRank(k lua.LValue) int {
	switch k.(type) {
	case lua.LNumber:
		return 0
	case lua.LString:
		return 1
	}
	return 2
}

// keyText writes a key as Lua would in a constructor: bare when it is an
// identifier, else in brackets.
func keyText(k lua.LValue) string {
	if s, ok := k.(lua.LString); ok {
		if isIdentifier(string(s)) {
			return string(s)
		}
		return "[" + quote(string(s)) + "]"
	}
	return "[" + k.String() + "]"
}

var luaKeywords = map[string]bool{
	"and": true, "break": true, "do": true, "else": true, "elseif": true, "end": true,
	"false": true, "for": true, "function": true, "if": true, "in": true, "local": true,
	"nil": true, "not": true, "or": true, "repeat": true, "return": true, "then": true,
	"true": true, "until": true, "while": true,
}

func isIdentifier(s string) bool {
	if s == "" || luaKeywords[s] {
		return false
	}
	for i, r := range s {
		letter := r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')
		if !letter && (i == 0 || r < '0' || r > '9') {
			return false
		}
	}
	return true
}

func quote(s string) string { return strconv.Quote(s) }

// clipQuote quotes s, cut after max bytes on a character boundary.
func clipQuote(s string, max int) string {
	if len(s) <= max {
		return quote(s)
	}
	cut := max
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return fmt.Sprintf("%s…(+%d bytes)", quote(s[:cut]), len(s)-cut)
}
