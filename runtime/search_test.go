package runtime

import (
	"strings"
	"testing"
	"ttftlab/runtime/luatest"
)

// TestSearchNextConfirms: with opts, search_next pools a level's rounds
// and asks for another round of the level whose interval holds the
// limit, with the calls left in its budget; once both neighbours are
// decided it returns nil, the capacity and decided = true; late requests
// count above every value.
func TestSearchNextConfirms(t *testing.T) {
	vm, out := testVM(t, Config{})
	script := `
local opts = {slo = {{percentile = 50, limit_ms = 100}}, calls = 10, budget = 25}
local function round(level, xs, late)
  return {level = level, calls = #xs + (late or 0), failed = 0, slo = {{values = xs, late = late or 0}}}
end
local fast, slow, mixed = {}, {}, {}
for i = 1, 10 do fast[i] = 50; slow[i] = 500; mixed[i] = (i <= 5) and 50 or 500 end
local path = {round(1, fast), round(2, mixed)}
local next, cap, info = search_next(path, 2, opts)
print("next", next, cap, info.calls, info.levels[2].slo[1].side, info.levels[2].slo[1].lo_ms, info.levels[2].slo[1].hi_ms)
path[3] = round(2, {500, 500, 500, 500, 500}, 10)
next, cap, info = search_next(path, 2, opts)
print("done", next, cap, info.decided, info.between[1], info.between[2], info.levels[2].calls, info.levels[2].slo[1].side)
`
	if err := vm.L.DoString(script); err != nil {
		t.Fatal(err)
	}
	luatest.MustContain(t, out.String(), "next\t2\tnil\t10\tstraddles\t50\t500", "done\tnil\t1\ttrue\t1\t2\t25\tabove")
}

// TestSearchNextVerdicts: without opts, search_next runs load.Search on
// verdicts alone: the doc's loop against a boundary at 5 doubles 1, 2, 4,
// 8, bisects 6, 5 and returns nil and 5; a level that is not a whole
// number, or a largest level below 1, is an error naming search_next's
// argument or reason.
func TestSearchNextVerdicts(t *testing.T) {
	vm, out := testVM(t, Config{})
	script := `
local path, ran = {}, {}
while true do
  local next, capacity = search_next(path, 64)
  if not next then print("capacity", capacity, table.concat(ran, " ")) break end
  ran[#ran + 1] = next
  path[#path + 1] = {level = next, met = next <= 5}
end
print("top", search_next({{level = 1, met = true}, {level = 2, met = true}}, 2))
print("none", search_next({{level = 1, met = false}}, 64))
`
	if err := vm.L.DoString(script); err != nil {
		t.Fatal(err)
	}
	luatest.MustContain(t, out.String(), "capacity\t5\t1 2 4 8 6 5", "top\tnil\t2", "none\tnil\t0")
	for _, c := range []struct{ script, want string }{
		{`search_next({{level = 1.5, met = true}}, 64)`, "whole number"},
		{`search_next({}, 2.5)`, "largest level must be a whole number"},
		{`search_next({}, 0)`, "search_next: the levels to try run from 1 to 0"},
	} {
		err := vm.L.DoString(c.script)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.script, err, c.want)
		}
	}
}
