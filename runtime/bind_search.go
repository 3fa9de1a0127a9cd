package runtime

import (
	"math"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/load"
)

// searchNext is search_next(path, most, [opts]) -> next | nil, capacity,
// info: the next level of a capacity search (load.Search) given the
// rounds run so far. Without opts: path[i] = {level = n, met = bool},
// levels of calls at once from 1, no confirmation, and when the search is
// done nil and the capacity (0 when no level held). With opts
// (confirmation, rates) each round also carries its requests' values,
// and info says how many calls to run and, when done, whether the
// capacity is decided (see docs/lua-api.md).
func searchNext(L *lua.LState) int {
	t := L.CheckTable(1)
	most := L.CheckNumber(2)
	if L.GetTop() >= 3 && L.Get(3) != lua.LNil {
		return searchWithOpts(L, t, float64(most), L.CheckTable(3))
	}
	var path []load.Step
	for i := 1; i <= t.Len(); i++ {
		step, ok := t.RawGetInt(i).(*lua.LTable)
		if !ok {
			L.ArgError(1, "want an array of {level = n, met = bool}")
		}
		level, ok := step.RawGetString("level").(lua.LNumber)
		if !ok || float64(level) != math.Trunc(float64(level)) || level < 1 {
			L.ArgError(1, "each step's level must be a whole number of 1 or more")
		}
		path = append(path, load.Step{Level: float64(level), Calls: 1, Met: lua.LVAsBool(step.RawGetString("met"))})
	}
	if float64(most) != math.Trunc(float64(most)) {
		L.ArgError(2, "the largest level must be a whole number")
	}
	s := load.Search{Start: 1, Most: float64(most), Calls: 1, Budget: 1}
	d, err := s.Next(path)
	if err != nil {
		L.RaiseError("search_next: %v", err)
	}
	if d.Done {
		L.Push(lua.LNil)
		L.Push(lua.LNumber(d.Capacity))
		return 2
	}
	L.Push(lua.LNumber(d.Next))
	return 1
}

// searchWithOpts is search_next with opts: {slo = {{percentile =,
// limit_ms =}, ...}, calls =, budget =, rate =, start =}; each round of
// path is {level =, calls =, met =, failed =, over_saturated =, slo =
// {{values = {...}, late = n}, ...}}, the values of each SLO in the order
// of opts.slo (late: requests that failed or never reached the figure).
func searchWithOpts(L *lua.LState, t *lua.LTable, most float64, o *lua.LTable) int {
	s := load.Search{Most: most, Start: 1, Rate: lua.LVAsBool(o.RawGetString("rate"))}
	num := func(tb *lua.LTable, name string, def float64) float64 {
		switch v := tb.RawGetString(name).(type) {
		case lua.LNumber:
			return float64(v)
		case *lua.LNilType:
			return def
		default:
			L.RaiseError("search_next: %s must be a number, got %s", name, v.Type())
		}
		return 0
	}
	s.Start = num(o, "start", 1)
	s.Calls = int(num(o, "calls", 1))
	s.Budget = int(num(o, "budget", float64(s.Calls)))
	slos, ok := o.RawGetString("slo").(*lua.LTable)
	if !ok {
		L.ArgError(3, "opts.slo must be an array of {percentile =, limit_ms =}")
	}
	for i := 1; i <= slos.Len(); i++ {
		sl, ok := slos.RawGetInt(i).(*lua.LTable)
		if !ok {
			L.ArgError(3, "opts.slo must be an array of {percentile =, limit_ms =}")
		}
		s.SLO = append(s.SLO, load.SLOLimit{Percentile: num(sl, "percentile", 0), LimitMs: num(sl, "limit_ms", 0)})
	}
	var path []load.Step
	for i := 1; i <= t.Len(); i++ {
		step, ok := t.RawGetInt(i).(*lua.LTable)
		if !ok {
			L.ArgError(1, "want an array of rounds {level =, calls =, slo = ...}")
		}
		st := load.Step{Level: num(step, "level", 0), Calls: int(num(step, "calls", 0)), Met: lua.LVAsBool(step.RawGetString("met")),
			Failed: int(num(step, "failed", 0)), OverSaturated: lua.LVAsBool(step.RawGetString("over_saturated"))}
		if vs, ok := step.RawGetString("slo").(*lua.LTable); ok {
			for j := 1; j <= vs.Len(); j++ {
				one, ok := vs.RawGetInt(j).(*lua.LTable)
				if !ok {
					L.ArgError(1, "a round's slo must be an array of {values = {...}, late = n}")
				}
				var xs []float64
				if values, ok := one.RawGetString("values").(*lua.LTable); ok {
					for k := 1; k <= values.Len(); k++ {
						x, ok := values.RawGetInt(k).(lua.LNumber)
						if !ok {
							L.ArgError(1, "a round's values must be numbers")
						}
						xs = append(xs, float64(x))
					}
				}
				for range int(num(one, "late", 0)) {
					xs = append(xs, math.Inf(1))
				}
				st.Values = append(st.Values, xs)
			}
		}
		path = append(path, st)
	}
	d, err := s.Next(path)
	if err != nil {
		L.RaiseError("search_next: %v", err)
	}
	info := L.CreateTable(0, 5)
	info.RawSetString("calls", lua.LNumber(d.Calls))
	levels := L.CreateTable(len(d.Levels), 0)
	for i, v := range d.Levels {
		levels.RawSetInt(i+1, levelVerdictTable(L, v))
	}
	info.RawSetString("levels", levels)
	if !d.Done {
		L.Push(lua.LNumber(d.Next))
		L.Push(lua.LNil)
		L.Push(info)
		return 3
	}
	info.RawSetString("decided", lua.LBool(d.Decided))
	between := L.CreateTable(2, 0)
	between.RawSetInt(1, lua.LNumber(d.Between[0]))
	if d.Between[1] > 0 {
		between.RawSetInt(2, lua.LNumber(d.Between[1]))
	}
	info.RawSetString("between", between)
	L.Push(lua.LNil)
	L.Push(lua.LNumber(d.Capacity))
	L.Push(info)
	return 3
}

// levelVerdictTable is one level's pooled verdict: {level, rounds,
// calls, failed, over_saturated, met, decided, slo = {{n, value_ms,
// lo_ms, hi_ms, side}, ...}}; a value or bound that does not exist is
// absent.
func levelVerdictTable(L *lua.LState, v load.LevelVerdict) *lua.LTable {
	t := L.CreateTable(0, 8)
	t.RawSetString("level", lua.LNumber(v.Level))
	t.RawSetString("rounds", lua.LNumber(v.Rounds))
	t.RawSetString("calls", lua.LNumber(v.Calls))
	t.RawSetString("failed", lua.LNumber(v.Failed))
	t.RawSetString("over_saturated", lua.LBool(v.OverSaturated))
	t.RawSetString("met", lua.LBool(v.Met))
	t.RawSetString("decided", lua.LBool(v.Decided))
	slo := L.CreateTable(len(v.SLO), 0)
	for i, e := range v.SLO {
		one := L.CreateTable(0, 5)
		one.RawSetString("n", lua.LNumber(e.N))
		one.RawSetString("side", lua.LString(e.Side))
		for name, p := range map[string]*float64{"value_ms": e.Value, "lo_ms": e.Lo, "hi_ms": e.Hi} {
			if p != nil {
				one.RawSetString(name, lua.LNumber(*p))
			}
		}
		slo.RawSetInt(i+1, one)
	}
	t.RawSetString("slo", slo)
	return t
}
