package runtime

import (
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// TestRegistryMatchesDocs holds docs/lua-api.md to the registry: every
// registered name is documented (functions under a "### a, b" heading with
// their signature in the text, globals in the Globals table), and nothing
// is documented that is not registered.
func TestRegistryMatchesDocs(t *testing.T) {
	data, err := os.ReadFile("../docs/lua-api.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	documented := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^### (.+)$`).FindAllStringSubmatch(doc, -1) {
		for _, name := range strings.Split(m[1], ",") {
			documented[strings.Trim(strings.TrimSpace(name), "`")] = true
		}
	}
	globals := map[string]bool{}
	section := doc[strings.Index(doc, "\n## Globals\n"):]
	section = section[:strings.Index(section[1:], "\n## ")+1]
	for _, m := range regexp.MustCompile("(?m)^\\| `([A-Za-z_]+)` \\|").FindAllStringSubmatch(section, -1) {
		globals[m[1]] = true
	}
	registered := map[string]bool{}
	for _, e := range API() {
		registered[e.Name] = true
		switch {
		case e.Kind == Global && !globals[e.Name]:
			t.Errorf("global %s is registered but not in the Globals table of docs/lua-api.md", e.Name)
		case e.Kind != Global && !documented[e.Name]:
			t.Errorf("%s %s is registered but has no ### heading in docs/lua-api.md", e.Kind, e.Name)
		case e.Kind != Global && !strings.Contains(doc, e.Signature):
			t.Errorf("docs/lua-api.md lacks the signature %q", e.Signature)
		}
		if e.Summary == "" || e.Signature == "" {
			t.Errorf("%s lacks a signature or summary", e.Name)
		}
	}
	for _, set := range []map[string]bool{documented, globals} {
		for name := range set {
			if !registered[name] {
				t.Errorf("docs/lua-api.md documents %q, which is not registered", name)
			}
		}
	}
}

// TestRegistryInstallsEveryEntry: each entry exists in a new VM, and every
// global function the host adds beyond Lua's own library is registered.
func TestRegistryInstallsEveryEntry(t *testing.T) {
	vm, _ := testVM(t, Config{Server: "http://127.0.0.1:1", KBDir: "/kb", ServerLog: "/log", Repeat: 3})
	registered := map[string]bool{}
	for _, e := range API() {
		registered[e.Name] = true
		v := lookup(vm.L, e.Name)
		if e.Kind == Global {
			if e.Name != "SCRIPT_DIR" && v == lua.LNil {
				t.Errorf("global %s is not set", e.Name)
			}
			continue
		}
		if _, ok := v.(*lua.LFunction); !ok {
			t.Errorf("%s is not a function in a new VM (%s)", e.Name, v.Type())
		}
	}
	fresh := lua.NewState()
	defer fresh.Close()
	var extra []string
	vm.L.G.Global.ForEach(func(k, v lua.LValue) {
		name := lua.LVAsString(k)
		if fresh.GetGlobal(name) == lua.LNil && !registered[name] {
			extra = append(extra, name)
		}
	})
	sort.Strings(extra)
	if len(extra) > 0 {
		t.Errorf("globals set outside the registry: %v", extra)
	}
}

func lookup(L *lua.LState, name string) lua.LValue {
	lib, field, ok := strings.Cut(name, ".")
	if !ok {
		return L.GetGlobal(name)
	}
	t, isTable := L.GetGlobal(lib).(*lua.LTable)
	if !isTable {
		return lua.LNil
	}
	return L.GetField(t, field)
}
