package runtime

import "testing"

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
	mustContain(t, out.String(), "next\t2\tnil\t10\tstraddles\t50\t500", "done\tnil\t1\ttrue\t1\t2\t25\tabove")
}
