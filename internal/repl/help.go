package repl

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/runtime"
	"ttftlab/stdlib"
)

type helpEntry struct {
	section, name, usage, summary, body string
}

// helpEntries come from the host's one registry of its Lua API.
var helpEntries = entriesFromAPI(runtime.API())

func entriesFromAPI(api []runtime.Entry) []helpEntry {
	entries := make([]helpEntry, 0, len(api))
	for _, e := range api {
		section := "Bindings"
		if e.Kind == runtime.Global {
			section = "Globals"
		}
		body := e.Help
		if body != "" {
			body = "\n" + body + "\n"
		}
		entries = append(entries, helpEntry{section: section, name: e.Name, usage: e.Signature, summary: e.Summary, body: body})
	}
	return entries
}

// luaStandard are Lua's own globals, left out of the list of bindings.
var luaStandard = map[string]bool{
	"assert": true, "collectgarbage": true, "dofile": true, "error": true, "getfenv": true,
	"getmetatable": true, "ipairs": true, "load": true, "loadfile": true, "loadstring": true,
	"module": true, "next": true, "pairs": true, "pcall": true, "print": true, "rawequal": true,
	"rawget": true, "rawset": true, "require": true, "select": true, "setfenv": true,
	"setmetatable": true, "tonumber": true, "tostring": true, "type": true, "unpack": true,
	"xpcall": true, "newproxy": true, "_printregs": true,
}

// helpIndex lists commands, bindings, globals and modules, one line each.
// Bindings are the global functions there are: documented ones with their
// summary, others marked as undocumented.
func (s *session) helpIndex() string {
	var b strings.Builder
	b.WriteString("Commands:\n")
	for _, c := range helpCommands {
		fmt.Fprintf(&b, "  %-16s %s\n", c[0], c[1])
	}
	documented := map[string]bool{}
	for _, section := range []string{"Bindings", "Globals"} {
		fmt.Fprintf(&b, "%s:\n", section)
		for _, e := range helpEntries {
			documented[e.name] = true
			// Globals such as KB_DIR may be nil and are listed anyway;
			// a binding is listed when this build has it.
			if e.section == section && (section == "Globals" || s.defined(e.name)) {
				fmt.Fprintf(&b, "  %-16s %s\n", e.name, e.summary)
			}
		}
		if section == "Bindings" {
			for _, name := range s.undocumentedFunctions(documented) {
				fmt.Fprintf(&b, "  %-16s (no help entry)\n", name)
			}
		}
	}
	b.WriteString("Modules (require(\"NAME\"); globals at this prompt):\n")
	for _, m := range moduleNames() {
		fmt.Fprintf(&b, "  %-16s %s\n", m, moduleSummary(m))
	}
	b.WriteString("Lua 5.1's standard library is there too. :help NAME shows one entry in full.\n")
	return b.String()
}

// defined reports whether a documented name exists in this session
// ("os.exit" looks inside os).
func (s *session) defined(name string) bool {
	return lookupPath(s.L, strings.Split(name, ".")) != lua.LNil
}

// undocumentedFunctions are global functions that are neither Lua's own
// nor documented: bindings added without a help entry.
func (s *session) undocumentedFunctions(documented map[string]bool) []string {
	var names []string
	s.L.G.Global.ForEach(func(k, v lua.LValue) {
		name, ok := k.(lua.LString)
		if _, fn := v.(*lua.LFunction); ok && fn && !documented[string(name)] && !luaStandard[string(name)] {
			names = append(names, string(name))
		}
	})
	sort.Strings(names)
	return names
}

// helpTopic is the full text for :help NAME.
func (s *session) helpTopic(name string) (string, bool) {
	name = strings.TrimSuffix(name, "()")
	for _, c := range helpCommands {
		cmd := strings.Fields(c[0])[0]
		if name == cmd || ":"+name == cmd {
			return c[0] + "\n" + c[1], true
		}
	}
	var parts []string
	for _, e := range helpEntries {
		if e.name == name {
			parts = append(parts, e.usage+"\n"+e.summary+"\n"+strings.TrimRight(e.body, "\n"))
		}
	}
	if notes := moduleNotes(name); notes != "" {
		parts = append(parts, notes)
	}
	if notes := moduleFunctionNotes(name); notes != "" {
		parts = append(parts, notes)
	}
	if len(parts) == 0 {
		if _, ok := lookupPath(s.L, strings.Split(name, ".")).(*lua.LFunction); ok {
			return name + " is a function without a help entry.", true
		}
		return "", false
	}
	return strings.Join(parts, "\n\n"), true
}

// moduleNotes is the comment block that opens a built-in module: its
// documentation. "" when name is not a module.
func moduleNotes(name string) string {
	src, err := stdlib.FS.ReadFile(name + ".lua")
	if err != nil {
		return ""
	}
	var b strings.Builder
	for _, line := range strings.Split(string(src), "\n") {
		if !strings.HasPrefix(line, "--") {
			break
		}
		line = strings.TrimPrefix(strings.TrimPrefix(line, "--"), " ")
		b.WriteString(line + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// moduleSummary is the first sentence of a module's notes, without the
// leading "name: ".
func moduleSummary(name string) string {
	notes := moduleNotes(name)
	first, _, _ := strings.Cut(notes, "\n\n")
	first = strings.Join(strings.Fields(first), " ")
	first = strings.TrimPrefix(first, name+": ")
	if i := strings.Index(first, ". "); i >= 0 {
		first = first[:i+1]
	}
	return first
}

// moduleDefinition matches the definition of a module's function:
// `function M.NAME(` or `M.NAME = `.
var moduleDefinition = regexp.MustCompile(`(?m)^(?:function M\.([A-Za-z_]\w*)\(|M\.([A-Za-z_]\w*) = )`)

// moduleFunctions are the functions a built-in module defines, as
// "MOD.NAME", for :help's topics.
func moduleFunctions() []string {
	var names []string
	for _, mod := range moduleNames() {
		src, _ := stdlib.FS.ReadFile(mod + ".lua")
		for _, m := range moduleDefinition.FindAllStringSubmatch(string(src), -1) {
			if m[1] != "" {
				names = append(names, mod+"."+m[1])
			}
		}
	}
	return names
}

// moduleFunctionNotes is what a built-in module says of its function
// MOD.NAME: the lines of the module's notes that show its call, the
// paragraphs of the notes that open with it, and the comment right above
// its definition. "" when name is not such a function or none says a word.
func moduleFunctionNotes(name string) string {
	mod, fn, ok := strings.Cut(name, ".")
	if !ok || strings.Contains(fn, ".") {
		return ""
	}
	src, err := stdlib.FS.ReadFile(mod + ".lua")
	if err != nil {
		return ""
	}
	notes := moduleNotes(mod)
	var usage, parts []string
	for _, line := range strings.Split(notes, "\n") {
		if strings.HasPrefix(line, " ") && strings.HasPrefix(strings.TrimSpace(line), name+"(") {
			usage = append(usage, strings.TrimSpace(line))
		}
	}
	if len(usage) > 0 {
		parts = append(parts, strings.Join(usage, "\n"))
	}
	for _, para := range strings.Split(notes, "\n\n") {
		if strings.HasPrefix(para, name+"(") || strings.HasPrefix(para, fn+"(") {
			parts = append(parts, para)
		}
	}
	lines := strings.Split(string(src), "\n")
	for i, line := range lines {
		m := moduleDefinition.FindStringSubmatch(line)
		if m == nil || m[1] != fn && m[2] != fn {
			continue
		}
		j := i
		for j > 0 && strings.HasPrefix(lines[j-1], "--") {
			j--
		}
		var comment []string
		for _, c := range lines[j:i] {
			comment = append(comment, strings.TrimPrefix(strings.TrimPrefix(c, "--"), " "))
		}
		if len(comment) > 0 {
			parts = append(parts, strings.Join(comment, "\n"))
		}
		break
	}
	return strings.Join(parts, "\n\n")
}
