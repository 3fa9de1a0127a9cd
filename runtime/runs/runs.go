package runs

import (
	"fmt"
	"math"
	"sort"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/artifact"
	"ttftlab/internal/figures"
	"ttftlab/runtime/luaerror"
)

// Runs is runs(n, fn) -> figures: fn(i) for i = 1..n, what each
// call returns pooled into figures with their 95 % intervals
// (figures.Pool), the same records --runs writes.
func (h Host) Runs(L *lua.LState) int {
	n := L.CheckInt(1)
	fn := L.CheckFunction(2)
	if L.GetTop() > 2 {
		L.ArgError(3, "runs takes two arguments, n and fn")
	}
	if n < 1 {
		L.ArgError(1, fmt.Sprintf("n must be 1 or more, got %d", n))
	}
	perRun := make([][]figures.Sample, 0, n)
	for i := 1; i <= n; i++ {
		vals, err := callRun(L, fn, lua.LNumber(i))
		if err != nil {
			raiseRunError(L, err, fmt.Sprintf("runs: run %d of %d", i, n))
		}
		samples, msg := h.runSamples(L, vals, "fn")
		if msg != "" {
			L.RaiseError("runs: run %d of %d: fn returned %s", i, n, msg)
		}
		perRun = append(perRun, samples)
	}
	pooled := figures.Pool(perRun)
	t := L.CreateTable(0, len(pooled))
	for _, f := range pooled {
		t.RawSetString(f.Name, h.figureTable(L, f))
	}
	setSummary(L, t, runsSummary(n, pooled))
	L.Push(t)
	return 1
}

// callRun calls fn(args...) protected and returns all its values.
func callRun(L *lua.LState, fn *lua.LFunction, args ...lua.LValue) ([]lua.LValue, error) {
	top := L.GetTop()
	defer L.SetTop(top)
	L.Push(fn)
	for _, a := range args {
		L.Push(a)
	}
	if err := L.PCall(len(args), lua.MultRet, nil); err != nil {
		return nil, err
	}
	out := make([]lua.LValue, 0, L.GetTop()-top)
	for i := top + 1; i <= L.GetTop(); i++ {
		out = append(out, L.Get(i))
	}
	return out, nil
}

// raiseRunError re-raises an error of a run's function: a message gets
// where it happened in front ("runs: run 3 of 5: lab.lua:4: boom"); any
// other value (a table, nil) is raised unchanged, as Lua 5.1 keeps error
// values.
func raiseRunError(L *lua.LState, err error, where string) {
	v := luaerror.Value(err)
	if s, ok := v.(lua.LString); ok {
		v = lua.LString(where + ": " + string(s))
	}
	L.Error(v, 0)
}

// runSamples reads what a run's function returned as the samples of that
// run: a number (figure "value"), an array of numbers (the samples of
// "value"), a table of figure name -> number or array, or stream()'s four
// results (ttft_ms, first_sentence_ms when the answer has a sentence,
// total_ms; a failed stream, info.error set, is a failure of each: +Inf).
// fn names the function in what each figure is over. A message says what
// was wrong, else "".
func (h Host) runSamples(L *lua.LState, vals []lua.LValue, fn string) ([]figures.Sample, string) {
	if isStreamValues(vals) {
		return h.streamSamples(L, vals, fn), ""
	}
	if len(vals) == 0 || vals[0] == lua.LNil {
		return nil, "nothing; want a number, an array of numbers, a table of figure name -> number or array, or stream()'s results"
	}
	switch v := vals[0].(type) {
	case lua.LNumber:
		s, msg := figureSample("value", v, fn)
		if msg != "" {
			return nil, msg
		}
		return []figures.Sample{s}, ""
	case *lua.LTable:
		if isNumberArray(v) {
			s, msg := figureSample("value", v, fn)
			return []figures.Sample{s}, msg
		}
		var names []string
		bad := ""
		v.ForEach(func(k, _ lua.LValue) {
			if s, ok := k.(lua.LString); ok {
				names = append(names, string(s))
			} else if bad == "" {
				bad = k.String()
			}
		})
		if bad != "" {
			return nil, fmt.Sprintf("a table with the key %s; want an array of numbers or figure names -> number or array", bad)
		}
		if len(names) == 0 {
			return nil, "an empty table"
		}
		sort.Strings(names)
		out := make([]figures.Sample, 0, len(names))
		for _, name := range names {
			s, msg := figureSample(name, v.RawGetString(name), fn)
			if msg != "" {
				return nil, msg
			}
			out = append(out, s)
		}
		return out, ""
	}
	return nil, fmt.Sprintf("a %s; want a number, an array of numbers, a table of figure name -> number or array, or stream()'s results", vals[0].Type())
}

// isStreamValues recognises stream()'s (and ask's) four results, as the
// REPL does: a chunks table, total_ms, timings (a table or nil) and an
// info table with boolean done and cut and a numeric status.
func isStreamValues(v []lua.LValue) bool {
	if len(v) != 4 {
		return false
	}
	_, chunks := v[0].(*lua.LTable)
	_, total := v[1].(lua.LNumber)
	_, timings := v[2].(*lua.LTable)
	info, isInfo := v[3].(*lua.LTable)
	if !chunks || !total || !(timings || v[2] == lua.LNil) || !isInfo {
		return false
	}
	_, done := info.RawGetString("done").(lua.LBool)
	_, cut := info.RawGetString("cut").(lua.LBool)
	_, status := info.RawGetString("status").(lua.LNumber)
	return done && cut && status
}

// streamSamples are the figures of one stream() result.
func (h Host) streamSamples(L *lua.LState, vals []lua.LValue, fn string) []figures.Sample {
	info := vals[3].(*lua.LTable)
	over := "requests, one per call of " + fn
	mk := func(name string, v float64) figures.Sample {
		return figures.Sample{Name: name, Unit: "ms", Over: over, Values: []float64{v}}
	}
	if info.RawGetString("error") != lua.LNil {
		inf := math.Inf(1)
		return []figures.Sample{mk("ttft_ms", inf), mk("first_sentence_ms", inf), mk("total_ms", inf)}
	}
	var out []figures.Sample
	if t, ok := info.RawGetString("ttft_ms").(lua.LNumber); ok {
		out = append(out, mk("ttft_ms", float64(t)))
	}
	if t, ok := h.firstSentenceMs(L, vals[0], info); ok {
		out = append(out, mk("first_sentence_ms", t))
	}
	return append(out, mk("total_ms", float64(vals[1].(lua.LNumber))))
}

// firstSentenceMs is info.first_sentence_ms (ask sets it), else when the
// first sentence of the chunks was complete (sentence.first_time), as
// ask.summary reads it: a stream that did not finish has one only when a
// sentence was complete before it ended.
func (h Host) firstSentenceMs(L *lua.LState, chunks lua.LValue, info *lua.LTable) (float64, bool) {
	if t, ok := info.RawGetString("first_sentence_ms").(lua.LNumber); ok {
		return float64(t), true
	}
	if info.RawGetString("done") != lua.LTrue {
		var text strings.Builder
		if t, ok := chunks.(*lua.LTable); ok {
			for i := 1; i <= t.Len(); i++ {
				if c, ok := t.RawGetInt(i).(*lua.LTable); ok {
					text.WriteString(lua.LVAsString(c.RawGetString("text")))
				}
			}
		}
		out, err := h.CallModule(L, "sentence", "first", lua.LString(text.String()), lua.LFalse)
		if err != nil || len(out) == 0 || out[0] == lua.LNil {
			return 0, false
		}
	}
	out, err := h.CallModule(L, "sentence", "first_time", chunks)
	if err != nil || len(out) < 2 {
		return 0, false
	}
	t, ok := out[1].(lua.LNumber)
	return float64(t), ok
}

// isNumberArray: a non-empty table whose keys are exactly 1..#t.
func isNumberArray(t *lua.LTable) bool {
	n := t.Len()
	if n == 0 {
		return false
	}
	keys := 0
	t.ForEach(func(lua.LValue, lua.LValue) { keys++ })
	return keys == n
}

// figureSample reads one figure's value or array of values; +Inf (1/0,
// math.huge) is a failure. fn names the function that returned it.
func figureSample(name string, v lua.LValue, fn string) (figures.Sample, string) {
	s := figures.Sample{Name: name, Over: "calls of " + fn + ", one value each"}
	if _, ok := v.(*lua.LTable); ok {
		s.Over = "the values " + fn + " returned, pooled over its calls"
	}
	if strings.HasSuffix(name, "_ms") {
		s.Unit = "ms"
	}
	add := func(x lua.LValue) string {
		n, ok := x.(lua.LNumber)
		if !ok {
			return fmt.Sprintf("%s = a %s; want a number or an array of numbers", name, x.Type())
		}
		f := float64(n)
		if math.IsNaN(f) || math.IsInf(f, -1) {
			return fmt.Sprintf("%s = %s; want a number, or 1/0 for a failure", name, n.String())
		}
		s.Values = append(s.Values, f)
		return ""
	}
	switch x := v.(type) {
	case lua.LNumber:
		return s, add(x)
	case *lua.LTable:
		if !isNumberArray(x) {
			return s, fmt.Sprintf("%s = a table that is not a non-empty array of numbers", name)
		}
		for i := 1; i <= x.Len(); i++ {
			if msg := add(x.RawGetInt(i)); msg != "" {
				return s, msg
			}
		}
		return s, ""
	}
	return s, add(v)
}

// figureTable is a figure as Lua sees it: n, runs, failed, p50, p50_ci =
// {lo, hi} (absent when unbounded), p95..., mean, mean_ci, mean_over,
// run_means (json_null for a run with a failure), name, unit, over.
func (h Host) figureTable(L *lua.LState, f artifact.Figure) *lua.LTable {
	t := L.CreateTable(0, 18)
	t.RawSetString("name", lua.LString(f.Name))
	t.RawSetString("unit", lua.LString(f.Unit))
	t.RawSetString("over", lua.LString(f.Over))
	t.RawSetString("n", lua.LNumber(f.N))
	t.RawSetString("runs", lua.LNumber(f.Runs))
	t.RawSetString("failed", lua.LNumber(f.Failed))
	num := func(k string, v *float64) {
		if v != nil {
			t.RawSetString(k, lua.LNumber(*v))
		}
	}
	ci := func(k string, v *[2]float64) {
		if v != nil {
			t.RawSetString(k, pair(L, v[0], v[1]))
		}
	}
	num("p50", f.P50)
	ci("p50_ci", f.P50CI)
	num("p95", f.P95)
	ci("p95_ci", f.P95CI)
	num("p99", f.P99)
	ci("p99_ci", f.P99CI)
	num("mean", f.Mean)
	ci("mean_ci", f.MeanCI)
	if f.MeanOver != "" {
		t.RawSetString("mean_over", lua.LString(f.MeanOver))
	}
	means := L.CreateTable(len(f.RunMeans), 0)
	for _, m := range f.RunMeans {
		if m == nil {
			means.Append(h.Null)
		} else {
			means.Append(lua.LNumber(*m))
		}
	}
	t.RawSetString("run_means", means)
	return t
}

func pair(L *lua.LState, lo, hi float64) *lua.LTable {
	t := L.CreateTable(2, 0)
	t.Append(lua.LNumber(lo))
	t.Append(lua.LNumber(hi))
	return t
}

// setSummary gives t a __tostring that returns summary, so print(t) and
// the REPL show it.
func setSummary(L *lua.LState, t *lua.LTable, summary string) {
	meta := L.CreateTable(0, 1)
	meta.RawSetString("__tostring", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LString(summary))
		return 1
	}))
	L.SetMetatable(t, meta)
}
