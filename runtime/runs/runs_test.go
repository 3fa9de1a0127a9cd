package runs

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"ttftlab/runtime/luatest"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/runtime/luaerror"
	"ttftlab/runtime/luajson"
)

// newState is a Lua state with runs and ab as a script sees them, print
// and the progress lines into out, json_null, error with Lua 5.1's
// levels, and write_json as the codec (the text is dropped: a result
// that cannot be written fails).
func newState(t *testing.T) (*lua.LState, *bytes.Buffer) {
	t.Helper()
	L := lua.NewState()
	t.Cleanup(L.Close)
	out := &bytes.Buffer{}
	codec := luajson.New(L)
	h := Host{Stderr: out, Null: codec.Null(), CallModule: func(L *lua.LState, module, fn string, _ ...lua.LValue) ([]lua.LValue, error) {
		return nil, fmt.Errorf("no module %s here (%s.%s)", module, module, fn)
	}}
	L.SetGlobal("runs", L.NewFunction(h.Runs))
	L.SetGlobal("ab", L.NewFunction(h.AB))
	L.SetGlobal("json_null", codec.Null())
	L.SetGlobal("error", L.NewFunction(luaerror.Error))
	L.SetGlobal("print", L.NewFunction(func(L *lua.LState) int {
		parts := make([]string, L.GetTop())
		for i := range parts {
			parts[i] = L.ToStringMeta(L.Get(i + 1)).String()
		}
		fmt.Fprintln(out, strings.Join(parts, "\t"))
		return 0
	}))
	L.SetGlobal("write_json", L.NewFunction(func(L *lua.LState) int {
		if _, err := codec.Encode(L.CheckAny(2), true); err != nil {
			L.RaiseError("write_json: %v", err)
		}
		return 0
	}))
	return L, out
}

// run runs code as the chunk named name.
func run(L *lua.LState, code, name string) error {
	fn, err := L.Load(strings.NewReader(code), name)
	if err != nil {
		return err
	}
	L.Push(fn)
	return L.PCall(0, 0, nil)
}

// setRuns sets global name to n runs of per lognormal samples each around
// 800*scale ms (a spread of about 30 %), drawn from a seeded generator.
func setRuns(L *lua.LState, name string, seed uint64, n, per int, scale float64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	t := L.NewTable()
	for range n {
		run := L.NewTable()
		for range per {
			run.Append(lua.LNumber(scale * 800 * math.Exp(0.3*rng.NormFloat64())))
		}
		t.Append(run)
	}
	L.SetGlobal(name, t)
}

func TestRunsPoolsFigures(t *testing.T) {
	L, out := newState(t)
	err := run(L, `
		local f = runs(5, function(i) return {ttft_ms = 10 * i, gaps_ms = {1, 2, 3, 4, 5, 6}} end)
		local t = f.ttft_ms
		assert(t.n == 5 and t.runs == 5 and t.failed == 0 and t.unit == "ms", "ttft n/runs")
		assert(t.p50 == 30 and t.p50_ci == nil, "p50 of 5 has no interval: " .. tostring(t.p50_ci))
		assert(t.mean == 30 and t.mean_over == "runs" and t.mean_ci[1] < 30 and t.mean_ci[2] > 30, "mean over runs")
		assert(#t.run_means == 5 and t.run_means[3] == 30, "run means")
		assert(t.over == "calls of fn, one value each" and f.gaps_ms.over == "the values fn returned, pooled over its calls", t.over)
		local g = f.gaps_ms
		assert(g.n == 30 and g.p50_ci[1] <= 3.5 and g.p50_ci[2] >= 3.5, "gaps pooled over runs")
		assert(g.mean_ci[1] == g.mean_ci[2], "every run has the same mean, so the interval has no width")
		print(f)
		local v = runs(3, function(i) return i end)
		assert(v.value.n == 3 and v.value.unit == "", "a number is the figure value")
		local w = runs(2, function(i) return {i, i + 1, 1/0} end)
		assert(w.value.n == 6 and w.value.failed == 2 and w.value.mean == nil and w.value.p99 == nil, "failures")
		assert(w.value.run_means[1] == json_null, "a run with a failure has no mean")
	`, "runs.lua")
	if err != nil {
		t.Fatal(err)
	}
	luatest.MustContain(t, out.String(), "runs: 5 runs, 95 % intervals", "ttft_ms", "p50 too few samples", "mean 30 ms [10, 50] over 5 runs", "n 5",
		"gaps_ms", "p50 3.5 ms [2.0, 5.0]")
}

func TestRunsErrors(t *testing.T) {
	L, _ := newState(t)
	err := run(L, `
		local ok, msg = pcall(runs, 5, function(i) if i == 3 then error("boom") end return i end)
		assert(not ok and msg:find("^runs: run 3 of 5: errs.lua:2: boom$"), msg)
		local e = {code = 7}
		local ok2, got = pcall(runs, 5, function(i) if i == 2 then error(e) end return i end)
		assert(not ok2 and got == e, "an error value that is not a string is kept")
		local ok3, m3 = pcall(runs, 2, function(i) return "fast" end)
		assert(not ok3 and m3:find("run 1 of 2: fn returned a string"), m3)
		local ok4, m4 = pcall(runs, 2, function(i) return {ttft_ms = 0/0} end)
		assert(not ok4 and m4:find("ttft_ms = %-?nan; want a number"), m4)
		local ok5, m5 = pcall(runs, 0, function() return 1 end)
		assert(not ok5 and m5:find("n must be 1 or more"), m5)
	`, "errs.lua")
	if err != nil {
		t.Fatal(err)
	}
}

func TestABShiftIsSlower(t *testing.T) {
	L, out := newState(t)
	setRuns(L, "A_RUNS", 1, 4, 100, 1)
	setRuns(L, "B_RUNS", 2, 4, 100, 1.2)
	err := run(L, `
		local r = ab(function(i) return {ttft_ms = A_RUNS[i]} end, function(i) return {ttft_ms = B_RUNS[i]} end, {runs = 4, quiet = true})
		local f = r.figures.ttft_ms
		assert(f.verdict == "slower", f.verdict)
		assert(f.ratio > 1.1 and f.ratio < 1.3 and f.ratio_ci[1] > 1 and f.p <= 0.05, "ratio")
		assert(f.level == 0.95, "one figure: Holm's one step is at 95 %, got " .. tostring(f.level))
		assert(f.a.n == 400 and f.b.n == 400 and f.a.runs == 4 and f.runs_for_5pct >= 1, "pooled")
		assert(f.a.over == "the values fa returned, pooled over its calls" and f.b.over:find("fb"), f.a.over)
		assert(r.drift_covered and r.warning == nil and f.warning == nil, "four runs each cover the drift")
		assert(r.seed == 21 and r.reps == 1000 and r.runs == 4 and r.stat == "p50", "defaults recorded")
		print(r)
		write_json("ab.json", r)
	`, "ab.lua")
	if err != nil {
		t.Fatal(err)
	}
	luatest.MustContain(t, out.String(), "ab: B/A of the median, 4 runs of each in ABBA order, seed 21", "ttft_ms", "95 %  ", "slower")
	luatest.MustNotContain(t, out.String(), "ab: run 1 of 8")
}

func TestABSameDistributionNoDifference(t *testing.T) {
	L, _ := newState(t)
	none := 0
	for trial := range 10 {
		setRuns(L, "A_RUNS", uint64(10+2*trial), 4, 50, 1)
		setRuns(L, "B_RUNS", uint64(11+2*trial), 4, 50, 1)
		v := luatest.Eval(t, L, `ab(function(i) return {ttft_ms = A_RUNS[i]} end, function(i) return {ttft_ms = B_RUNS[i]} end,
			{runs = 4, quiet = true, reps = 300}).figures.ttft_ms.verdict`)
		if v.String() == "no difference detected" {
			none++
		} else if v.String() != "faster" && v.String() != "slower" {
			t.Fatalf("verdict %q", v)
		}
	}
	if none < 8 {
		t.Fatalf("one distribution: no difference detected in %d of 10", none)
	}
}

func TestABOrderSeedAndProgress(t *testing.T) {
	L, out := newState(t)
	setRuns(L, "A_RUNS", 3, 3, 30, 1)
	setRuns(L, "B_RUNS", 4, 3, 30, 1.1)
	err := run(L, `
		local calls, seen, flushed = {}, {}, 0
		local function fa(i) calls[#calls + 1] = "A" .. i return {ttft_ms = A_RUNS[i]} end
		local function fb(i) calls[#calls + 1] = "B" .. i return {ttft_ms = B_RUNS[i]} end
		local r = ab(fa, fb, {runs = 3, seed = 7, flush = function() flushed = flushed + 1 end,
			on_run = function(i, v) seen[#seen + 1] = i .. v end})
		assert(table.concat(r.order, " ") == "A B B A A B", table.concat(r.order, " "))
		assert(table.concat(calls, " ") == "A1 B1 B2 A2 A3 B3", table.concat(calls, " "))
		assert(table.concat(seen, " ") == "1A 2B 3B 4A 5A 6B", table.concat(seen, " "))
		assert(flushed == 6, "flush before every run: " .. flushed)
		assert(r.seed == 7, "seed recorded")
		local again = ab(fa, fb, {runs = 3, seed = 7, quiet = true})
		local other = ab(fa, fb, {runs = 3, seed = 8, quiet = true})
		local c1, c2, c3 = r.figures.ttft_ms.ratio_ci, again.figures.ttft_ms.ratio_ci, other.figures.ttft_ms.ratio_ci
		assert(c1[1] == c2[1] and c1[2] == c2[2], "the same seed gives the same interval")
		assert(c1[1] ~= c3[1] or c1[2] ~= c3[2], "another seed gives another interval")
		ab(fa, fb, {runs = 1})
	`, "order.lua")
	if err != nil {
		t.Fatal(err)
	}
	if got := out.String(); strings.Count(got, "ab: run ") != 2 || !strings.Contains(got, "ab: run 2 of 2: B\n") {
		t.Fatalf("progress lines: %q", got)
	}
}

func TestABOnlyInOneAndOneRun(t *testing.T) {
	L, out := newState(t)
	setRuns(L, "A_RUNS", 5, 1, 40, 1)
	setRuns(L, "B_RUNS", 6, 1, 40, 1)
	err := run(L, `
		local r = ab(function(i) return {ttft_ms = A_RUNS[i], extra_ms = 3} end,
			function(i) return {ttft_ms = B_RUNS[i], tokens = 5} end, {runs = 1, quiet = true})
		local e = r.figures.extra_ms
		assert(e.only_in == "A" and e.a.n == 1 and e.b == nil and e.verdict == nil and e.ratio == nil, "only in A")
		assert(r.figures.tokens.only_in == "B", "only in B")
		assert(table.concat(r.names, " ") == "extra_ms ttft_ms tokens", table.concat(r.names, " "))
		local f = r.figures.ttft_ms
		assert(not r.drift_covered and r.warning:find("not the drift between runs") and f.warning == r.warning, "one run: warning")
		assert(f.verdict == "no difference detected" or f.verdict == "faster" or f.verdict == "slower", f.verdict)
		print(r)
		local few = ab(function(i) return 10 + i end, function(i) return 100 + i end, {runs = 3, quiet = true})
		assert(few.figures.value.verdict == "too few samples" and few.figures.value.ratio_ci == nil and few.figures.value.why, "3 against 3")
		local five = ab(function(i) return 10 + i end, function(i) return 100 + i end, {runs = 5, quiet = true})
		assert(five.figures.value.verdict == "too few samples", "5 against 5: a median needs 6 to be bounded")
		local six = ab(function(i) return 10 + i end, function(i) return 100 + i end, {runs = 6, quiet = true})
		assert(six.figures.value.verdict == "slower", "6 against 6 apart: " .. six.figures.value.verdict)
	`, "only.lua")
	if err != nil {
		t.Fatal(err)
	}
	luatest.MustContain(t, out.String(), "extra_ms", "only in A", "tokens", "only in B", "warning: one run of a variant")
}

func TestABErrors(t *testing.T) {
	L, _ := newState(t)
	err := run(L, `
		local ok, msg = pcall(ab, function() return 1 end, function(i) if i == 2 then error("slow path") end return 2 end, {quiet = true})
		assert(not ok and msg:find("^ab: run 3 of 12 %(B, its run 2%): aberr.lua:2: slow path$"), msg)
		local ok2, m2 = pcall(ab, function() return 1 end, function() return 1 end, {run = 3})
		assert(not ok2 and m2:find('unknown option "run"; did you mean "runs"'), m2)
		local ok3, m3 = pcall(ab, function() return 1 end, function() return 1 end, {runs = 0})
		assert(not ok3 and m3:find("opts.runs must be a whole number of 1 or more"), m3)
		local ok4, m4 = pcall(ab, function() return 1 end, function() return nil end, {quiet = true})
		assert(not ok4 and m4:find("ab: run 2 of 12 %(B, its run 1%): fb returned nothing"), m4)
	`, "aberr.lua")
	if err != nil {
		t.Fatal(err)
	}
}
