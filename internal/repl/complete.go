package repl

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

var (
	// requireArg matches an unfinished require("na at the cursor.
	requireArg = regexp.MustCompile(`require\s*\(?\s*["']([\w.]*)$`)
	// dottedName matches the name being typed: a, a.b, a.b:c.
	dottedName = regexp.MustCompile(`[A-Za-z_][\w]*(?:[.:][A-Za-z_]?[\w]*)*$|[.:]$`)
)

// complete is liner's word completer. It runs inside Prompt, on the
// session's goroutine, while no statement runs, so it may read the Lua
// state. It completes :commands, file names after :load, topics after
// :help, module names inside require("...") and global names or table
// fields (stats.me -> stats.median).
func (s *session) complete(line string, pos int) (head string, items []string, tail string) {
	runes := []rune(line)
	before, tail := string(runes[:pos]), string(runes[pos:])
	if strings.HasPrefix(before, ":") {
		return completeCommand(s, before, tail)
	}
	if m := requireArg.FindStringSubmatch(before); m != nil {
		word := m[1]
		return before[:len(before)-len(word)], withPrefix(s.moduleCandidates(), word), tail
	}
	word := dottedName.FindString(before)
	head = before[:len(before)-len(word)]
	// Nothing to complete, or a field of something that is not a plain
	// name (t[1].x, f().x): its value is unknown without running code.
	if word == "" || strings.HasPrefix(word, ".") || strings.HasPrefix(word, ":") ||
		strings.HasSuffix(head, ".") || strings.HasSuffix(head, ":") {
		return before, nil, tail
	}
	cut := strings.LastIndexAny(word, ".:")
	if cut < 0 {
		return head, withPrefix(s.globalCandidates(), word), tail
	}
	base, partial := word[:cut], word[cut+1:]
	methods := word[cut] == ':'
	target := lookupPath(s.L, strings.FieldsFunc(base, func(r rune) bool { return r == '.' || r == ':' }))
	names := fieldNames(s.L, target, methods)
	return head + word[:cut+1], withPrefix(names, partial), tail
}

// completeCommand completes a line that starts with ':'.
func completeCommand(s *session, before, tail string) (string, []string, string) {
	name, arg, hasArg := strings.Cut(before, " ")
	if !hasArg {
		return "", withPrefix(commandNames, name), tail
	}
	head := name + " "
	arg = strings.TrimLeft(arg, " ")
	switch name {
	case ":load", ":l":
		return head, fileCandidates(arg), tail
	case ":help", ":h":
		return head, withPrefix(s.helpTopics(), arg), tail
	}
	return before, nil, tail
}

// globalCandidates are the global names and Lua's keywords.
func (s *session) globalCandidates() []string {
	names := fieldNames(s.L, s.L.G.Global, false)
	for k := range luaKeywords {
		names = append(names, k)
	}
	return names
}

// moduleCandidates are what require can load without a file: the built-in
// modules, package.preload and whatever is loaded already.
func (s *session) moduleCandidates() []string {
	names := moduleNames()
	pkg := s.L.GetGlobal("package")
	for _, field := range []string{"preload", "loaded"} {
		if t, ok := s.L.GetField(pkg, field).(*lua.LTable); ok {
			t.ForEach(func(k, _ lua.LValue) {
				if name, ok := k.(lua.LString); ok && name != "_G" {
					names = append(names, string(name))
				}
			})
		}
	}
	return names
}

// helpTopics are the names :help knows.
func (s *session) helpTopics() []string {
	var names []string
	for _, e := range helpEntries {
		names = append(names, e.name)
	}
	names = append(names, moduleNames()...)
	names = append(names, moduleFunctions()...)
	return append(names, commandNames...)
}

// lookupPath follows names from the globals through tables (and their
// __index tables), without calling any Lua code; nil when a step is not
// a table.
func lookupPath(L *lua.LState, names []string) lua.LValue {
	var v lua.LValue = L.G.Global
	for _, n := range names {
		v = rawField(L, v, n)
		if v == lua.LNil {
			return v
		}
	}
	return v
}

// rawField reads t[name] for a table t, falling back to an __index table.
func rawField(L *lua.LState, v lua.LValue, name string) lua.LValue {
	for range 8 { // __index chains are short; this bounds a cyclic one
		t, ok := v.(*lua.LTable)
		if !ok {
			return lua.LNil
		}
		if f := t.RawGetString(name); f != lua.LNil {
			return f
		}
		v = L.GetMetaField(t, "__index")
	}
	return lua.LNil
}

// fieldNames lists the identifier keys of a table and its __index
// tables; methods keeps only functions. A string's methods are string's.
func fieldNames(L *lua.LState, v lua.LValue, methods bool) []string {
	if _, ok := v.(lua.LString); ok && methods {
		v = L.GetGlobal("string")
	}
	var names []string
	for range 8 {
		t, ok := v.(*lua.LTable)
		if !ok {
			break
		}
		t.ForEach(func(k, val lua.LValue) {
			name, ok := k.(lua.LString)
			if !ok || !isIdentifier(string(name)) {
				return
			}
			if _, fn := val.(*lua.LFunction); methods && !fn {
				return
			}
			names = append(names, string(name))
		})
		v = L.GetMetaField(t, "__index")
	}
	return names
}

// fileCandidates completes a path: entries of its folder that start with
// its last element; folders end in "/".
func fileCandidates(partial string) []string {
	dir, base := filepath.Split(partial)
	list := dir
	if list == "" {
		list = "."
	}
	entries, err := os.ReadDir(list)
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), base) || (strings.HasPrefix(e.Name(), ".") && !strings.HasPrefix(base, ".")) {
			continue
		}
		name := dir + e.Name()
		if e.IsDir() {
			name += "/"
		}
		names = append(names, name)
	}
	return names
}

// withPrefix keeps the names that start with prefix, sorted, without
// repeats.
func withPrefix(names []string, prefix string) []string {
	seen := map[string]bool{}
	var out []string
	for _, n := range names {
		if strings.HasPrefix(n, prefix) && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}
