package runtime

import (
	"testing"

	"ttftlab/runtime/luatest"
)

// TestTrendDrift: trend's drift is the rank test of the batch means: a
// series that rises through 40 values (8 batches) drifts with rho 1 and
// its exact p-value 2/40320; one of 20 values (4 batches) has no rho.
func TestTrendDrift(t *testing.T) {
	vm, out := testVM(t, Config{})
	script := `
local xs = {}
for i = 1, 40 do xs[i] = 20 + 10 * i end
local d = trend(xs, 50).drift
print("rising", d.batches, d.rho, string.format("%.8f", d.p), d.drifting)
local few = {}
for i = 1, 20 do few[i] = xs[i] end
d = trend(few).drift
print("few", d.batches, d.rho, d.p, d.drifting)
`
	if err := vm.L.DoString(script); err != nil {
		t.Fatal(err)
	}
	luatest.MustContain(t, out.String(), "rising\t8\t1\t0.00004960\ttrue", "few\t4\tnil\tnil\tfalse")
}
