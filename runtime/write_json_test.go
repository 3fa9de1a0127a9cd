package runtime

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"ttftlab/runtime/luatest"
)

// runFails runs code as script s.lua and returns its error, failing the
// test when there is none.
func runFails(t *testing.T, vm *VM, code string) string {
	t.Helper()
	err := vm.RunString(code, "s.lua")
	if err == nil {
		t.Fatalf("expected an error from:\n%s", code)
	}
	return err.Error()
}

// math.huge is finite in gopher-lua (math.MaxFloat64) and +Inf in Lua
// 5.1: either way it is no value a JSON file can hold.
func TestWriteJSONRefusesMathHuge(t *testing.T) {
	for _, expr := range []string{"math.huge", "-math.huge", "1/0", "-1/0", "1e308 * 10", "0/0"} {
		vm, _ := testVM(t, Config{})
		old := filepath.Join(vm.cfg.Out, "x.json")
		if err := os.MkdirAll(vm.cfg.Out, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(old, []byte("{\"x\": 1}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		msg := runFails(t, vm, "local v = "+expr+"\nwrite_json('x.json', {x = v})")
		luatest.MustContain(t, msg, "s.lua:2:", `write_json("x.json"): x: `, "json_null")
		if got, _ := os.ReadFile(old); string(got) != "{\"x\": 1}\n" {
			t.Errorf("%s: a refused write changed the file: %q", expr, got)
		}
	}
}

// A time computed from math.huge (p95 over a failed request) used to be
// multiplied by 1000 for rounding, which overflowed to +Inf and wrote
// "value_ms": +Inf.
func TestWriteJSONHugeTimeNamesItsPath(t *testing.T) {
	for _, v := range []string{"1e308", "8.99e306", "-1e308", "math.huge / 2"} {
		vm, _ := testVM(t, Config{})
		msg := runFails(t, vm, "write_json('load.json', {levels = {{n = 1}, {slo = {{value_ms = "+v+"}}}}})")
		luatest.MustContain(t, msg, "s.lua:1:", "levels[2].slo[1].value_ms: ", "json_null")
		luatest.MustNotContain(t, msg, "Inf")
		if _, err := os.Stat(filepath.Join(vm.cfg.Out, "load.json")); err == nil {
			t.Errorf("%s: load.json was written although the value was refused", v)
		}
	}
}

// A table nested 100,000 deep used to get the process killed for memory:
// the indented output grows with the square of the depth.
func TestWriteJSONDeepNestingRefused(t *testing.T) {
	vm, _ := testVM(t, Config{})
	for _, f := range []string{"write_json('deep.json', t)", "append_jsonl('deep.jsonl', t)"} {
		msg := runFails(t, vm, `
local t = {}
for i = 1, 100000 do t = {t} end

`+f)
		luatest.MustContain(t, msg, "s.lua:5:", "nested deeper than 1000 levels", "[1][1][1]", "…(984 more)…")
		if len(msg) > 2000 {
			t.Errorf("the error should shorten a deep path, got %d bytes", len(msg))
		}
	}
	for _, name := range []string{"deep.json", "deep.jsonl"} {
		if _, err := os.Stat(filepath.Join(vm.cfg.Out, name)); err == nil {
			t.Errorf("%s was written although the value was refused", name)
		}
	}
}

// A refused line leaves the lines before it as they were.
func TestAppendJSONLRefusalKeepsEarlierLines(t *testing.T) {
	for _, bad := range []string{"0/0", "math.huge", "-math.huge", "{{{ttft_ms = 1e308}}}"} {
		vm, _ := testVM(t, Config{})
		if err := vm.RunString(`append_jsonl("log.jsonl", {i = 1})
append_jsonl("log.jsonl", {i = 2, ttft_ms = 12.5})`, "ok.lua"); err != nil {
			t.Fatal(err)
		}
		msg := runFails(t, vm, "\nappend_jsonl('log.jsonl', {i = 3, x = "+bad+"})")
		luatest.MustContain(t, msg, "s.lua:2:", `append_jsonl("log.jsonl"): x`)
		got, err := os.ReadFile(filepath.Join(vm.cfg.Out, "log.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		if want := "{\"i\":1}\n{\"i\":2,\"ttft_ms\":12.5}\n"; string(got) != want {
			t.Errorf("%s: log.jsonl is now %q, want %q", bad, got, want)
		}
		if strings.Contains(string(got), "Inf") || strings.Contains(string(got), "NaN") {
			t.Errorf("%s: log.jsonl holds a non-finite number", bad)
		}
	}
}
