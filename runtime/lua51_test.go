package runtime

import (
	"path/filepath"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// TestFailureCountSurvivesFailedSteps is scripts/lab.lua's pattern: a
// counter local to the script, a helper closure that runs a step under
// pcall and counts its failure. A caught error must not detach the
// helper's upvalue from the script's local, or the script reads 0
// failures and reports that every step passed.
func TestFailureCountSurvivesFailedSteps(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"lab.lua": `
local results, bad = {}, 0
local function run(file)
  local ok, res = pcall(dofile, file)
  results[#results + 1] = ok and "ok" or "FAILED"
  if not ok then bad = bad + 1 end
end
run("fails.lua")
run("passes.lua")
run("raises_table.lua")
print(#results .. " steps, " .. bad .. " failed")
`,
		"fails.lua":        `error("the server answered 500")`,
		"passes.lua":       `return 1`,
		"raises_table.lua": `local t = {kind = "http"} error(t)`,
	})
	vm, out := testVM(t, Config{})
	if err := vm.RunFile(filepath.Join(dir, "lab.lua")); err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(out.String()); got != "3 steps, 2 failed" {
		t.Fatalf("got %q, want %q", got, "3 steps, 2 failed")
	}
}

// TestHostProtectedCallKeepsCallersUpvalues: a Go binding that calls a
// Lua callback under L.PCall (as on_chunk and stream_many's request
// functions are called) and catches its error must leave the upvalues of
// the Lua frames below it shared, and so must xpcall with a handler.
func TestHostProtectedCallKeepsCallersUpvalues(t *testing.T) {
	vm, out := testVM(t, Config{})
	vm.L.SetGlobal("call_protected", vm.L.NewFunction(func(L *lua.LState) int {
		L.Push(L.CheckFunction(1))
		err := L.PCall(0, 0, nil)
		L.Push(lua.LBool(err == nil))
		return 1
	}))
	err := vm.RunString(`
local n = 0
local function inc() n = n + 1 end
print(call_protected(function() inc() error("callback failed") end))
inc()
print(xpcall(function() inc() error("again") end, function(e) return "handled" end))
inc()
print(n)
`, "host.lua")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), "false\nfalse\thandled\n4\n"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}
