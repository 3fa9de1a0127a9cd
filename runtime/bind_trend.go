package runtime

import (
	"math"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/load"
)

// trend is trend(xs, [min_rise]) -> info: how one figure of a level's
// requests (in the order they started; math.huge or 1/0 a late request)
// moved over the level (load.TrendOf): info = {rising, steady, known,
// thirds = {{from, n, p50, lo, hi}, ...}, drift = {batches, rho, p,
// drifting}}, a median or bound that is late or unbounded absent, rho
// and p absent when not known.
func trend(L *lua.LState) int {
	t := L.CheckTable(1)
	minRise := float64(L.OptNumber(2, 0))
	xs := make([]float64, 0, t.Len())
	for i := 1; i <= t.Len(); i++ {
		x, ok := t.RawGetInt(i).(lua.LNumber)
		if !ok {
			L.ArgError(1, "want an array of numbers (math.huge for a late request)")
		}
		v := float64(x)
		if v >= math.MaxFloat64 {
			v = math.Inf(1)
		}
		xs = append(xs, v)
	}
	tr := load.TrendOf(xs, minRise)
	out := L.CreateTable(0, 4)
	out.RawSetString("rising", lua.LBool(tr.Rising))
	out.RawSetString("steady", lua.LBool(tr.Steady))
	out.RawSetString("known", lua.LBool(tr.Known))
	thirds := L.CreateTable(3, 0)
	for i, w := range tr.Thirds {
		one := L.CreateTable(0, 5)
		one.RawSetString("from", lua.LNumber(w.From+1))
		one.RawSetString("n", lua.LNumber(w.N))
		set := func(name string, x float64, ok bool) {
			if ok && !math.IsInf(x, 0) && !math.IsNaN(x) {
				one.RawSetString(name, lua.LNumber(x))
			}
		}
		set("p50", w.P50, true)
		set("lo", w.Lo, w.Bounded)
		set("hi", w.Hi, w.Bounded)
		thirds.RawSetInt(i+1, one)
	}
	out.RawSetString("thirds", thirds)
	drift := L.CreateTable(0, 4)
	drift.RawSetString("batches", lua.LNumber(tr.Drift.Batches))
	drift.RawSetString("drifting", lua.LBool(tr.Drift.Drifting))
	if r := tr.Drift.Rank; r.Known {
		drift.RawSetString("rho", lua.LNumber(r.Rho))
		drift.RawSetString("p", lua.LNumber(r.P))
	}
	out.RawSetString("drift", drift)
	L.Push(out)
	return 1
}
