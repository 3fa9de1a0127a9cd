package runtime

import (
	"strings"
	"testing"
)

// TestErrorLevelsAsInLua51: error(msg, level) names the line Lua 5.1
// names, for every level.
func TestErrorLevelsAsInLua51(t *testing.T) {
	const code = `local function inner(level) error("boom", level) end -- line 1
local function outer(level) inner(level) end                               -- line 2
local ok, msg = pcall(outer, LEVEL)                                         -- line 3
print(msg)
local ok2, msg2 = pcall(error, {code = 7})
print(type(msg2), msg2.code)
`
	cases := map[string]string{
		"1":   "e.lua:1: boom", // the line that called error
		"2":   "e.lua:2: boom", // the line that called inner
		"nil": "e.lua:1: boom", // level 1 is the default
		"0":   "boom",          // no position
	}
	for level, want := range cases {
		vm, out := testVM(t, Config{})
		if err := vm.RunString(strings.Replace(code, "LEVEL", level, 1), "e.lua"); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(out.String(), "\n")
		if lines[0] != want {
			t.Errorf("error(msg, %s) gave %q, want %q", level, lines[0], want)
		}
		if lines[1] != "table\t7" {
			t.Errorf("error(table) gave %q, want the table itself", lines[1])
		}
	}
	// Level 3 from inner is the line that called outer.
	vm, _ := testVM(t, Config{})
	err := vm.RunString("local function inner() error('deep', 3) end\nlocal function outer() inner() end\nouter()\n", "e.lua")
	if err == nil || !strings.HasPrefix(err.Error(), "e.lua:3: deep") {
		t.Errorf("level 3: %v", err)
	}
}
