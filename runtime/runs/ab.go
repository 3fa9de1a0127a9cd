package runs

import (
	"fmt"
	"math"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/figures"
	"ttftlab/internal/interval"
	"ttftlab/runtime/suggest"
)

// abDefaultSeed is the bootstrap's seed when opts.seed is not given: a
// fixed one, so the same runs give the same intervals.
const abDefaultSeed = 21

var abOptionNames = []string{"flush", "on_run", "quiet", "reps", "runs", "seed"}

type abOpts struct {
	runs  int
	seed  uint64
	reps  int
	flush lua.LValue // nil, true or a function
	onRun *lua.LFunction
	quiet bool
}

func (h Host) abOptions(L *lua.LState, v lua.LValue) abOpts {
	o := abOpts{runs: 6, seed: abDefaultSeed, reps: 1000, flush: lua.LNil}
	if v == lua.LNil {
		return o
	}
	t, ok := v.(*lua.LTable)
	if !ok {
		L.ArgError(3, "opts must be a table, got "+v.Type().String())
	}
	whole := func(name string, x lua.LValue, least float64) float64 {
		n, ok := x.(lua.LNumber)
		f := float64(n)
		if !ok || f != math.Trunc(f) || f < least || f > 1<<53 {
			L.RaiseError("ab: opts.%s must be a whole number of %v or more, got %s", name, least, x.String())
		}
		return f
	}
	t.ForEach(func(k, x lua.LValue) {
		name, _ := k.(lua.LString)
		switch string(name) {
		case "runs":
			o.runs = int(whole("runs", x, 1))
		case "seed":
			o.seed = uint64(whole("seed", x, 0))
		case "reps":
			o.reps = int(whole("reps", x, 100))
		case "flush":
			switch x.(type) {
			case lua.LBool, *lua.LFunction:
				o.flush = x
			default:
				L.RaiseError("ab: opts.flush must be true (ask.flush()) or a function, got %s", x.Type())
			}
		case "on_run":
			f, ok := x.(*lua.LFunction)
			if !ok {
				L.RaiseError("ab: opts.on_run must be a function(i, variant), got %s", x.Type())
			}
			o.onRun = f
		case "quiet":
			o.quiet = lua.LVAsBool(x)
		default:
			L.RaiseError("ab: unknown option %q%s (known: %s)", k.String(), suggest.DidYouMean(k.String(), abOptionNames), strings.Join(abOptionNames, ", "))
		}
	})
	return o
}

// AB is ab(fa, fb, opts) -> result: opts.runs runs of each variant
// in ABBA order, then B/A of each figure's median with its bootstrap
// interval over runs and samples and a Holm-corrected verdict, the
// interval at the level the verdict was made with (figures.CompareAB).
func (h Host) AB(L *lua.LState) int {
	fa := L.CheckFunction(1)
	fb := L.CheckFunction(2)
	o := h.abOptions(L, L.Get(3))
	order := figures.ABBAOrder(o.runs)
	var a, b [][]figures.Sample
	for i, variant := range order {
		fn, own := fa, len(a)+1
		if variant == "B" {
			fn, own = fb, len(b)+1
		}
		where := fmt.Sprintf("ab: run %d of %d (%s, its run %d)", i+1, len(order), variant, own)
		h.abProgress(L, o, i+1, len(order), variant, where)
		h.abFlush(L, o, where)
		vals, err := callRun(L, fn, lua.LNumber(own))
		if err != nil {
			raiseRunError(L, err, where)
		}
		name := "f" + strings.ToLower(variant)
		samples, msg := h.runSamples(L, vals, name)
		if msg != "" {
			L.RaiseError("%s: %s returned %s", where, name, msg)
		}
		if variant == "A" {
			a = append(a, samples)
		} else {
			b = append(b, samples)
		}
	}
	r := figures.CompareAB(a, b, nil, o.seed, o.reps)
	L.Push(h.abResult(L, r, order, o))
	return 1
}

// abProgress calls opts.on_run(i, variant), or prints a line on standard
// error unless opts.quiet.
func (h Host) abProgress(L *lua.LState, o abOpts, i, n int, variant, where string) {
	if o.onRun != nil {
		if _, err := callRun(L, o.onRun, lua.LNumber(i), lua.LString(variant)); err != nil {
			raiseRunError(L, err, where+": opts.on_run")
		}
		return
	}
	if !o.quiet {
		fmt.Fprintf(h.Stderr, "ab: run %d of %d: %s\n", i, n, variant)
	}
}

// abFlush runs opts.flush before a run: true is ask.flush(), which makes
// the server forget the prompt it cached, so every run starts cold.
func (h Host) abFlush(L *lua.LState, o abOpts, where string) {
	switch f := o.flush.(type) {
	case *lua.LFunction:
		if _, err := callRun(L, f); err != nil {
			raiseRunError(L, err, where+": opts.flush")
		}
	case lua.LBool:
		if f {
			if _, err := h.CallModule(L, "ask", "flush"); err != nil {
				raiseRunError(L, err, where+": ask.flush()")
			}
		}
	}
}

// abResult is ab()'s result table: order, seed, reps, runs, stat,
// drift_covered, warning (with one run of a variant), names (the
// figures in order), figures = {name -> {a, b, ratio, ratio_ci, level,
// p, verdict, runs_for_5pct, only_in}}, summary; print() shows the
// summary.
func (h Host) abResult(L *lua.LState, r figures.AB, order []string, o abOpts) *lua.LTable {
	t := L.CreateTable(0, 10)
	ord := L.CreateTable(len(order), 0)
	for _, v := range order {
		ord.Append(lua.LString(v))
	}
	t.RawSetString("order", ord)
	t.RawSetString("seed", lua.LNumber(r.Seed))
	t.RawSetString("reps", lua.LNumber(r.Reps))
	t.RawSetString("runs", lua.LNumber(o.runs))
	t.RawSetString("stat", lua.LString(r.Stats[0]))
	t.RawSetString("drift_covered", lua.LBool(r.DriftCovered))
	if !r.DriftCovered {
		t.RawSetString("warning", lua.LString(driftWarning))
	}
	names := L.CreateTable(len(r.Figures), 0)
	figs := L.CreateTable(0, len(r.Figures))
	for _, f := range r.Figures {
		names.Append(lua.LString(f.Name))
		ft := L.CreateTable(0, 9)
		if f.A != nil {
			ft.RawSetString("a", h.figureTable(L, *f.A))
		}
		if f.B != nil {
			ft.RawSetString("b", h.figureTable(L, *f.B))
		}
		if f.OnlyIn != "" {
			ft.RawSetString("only_in", lua.LString(f.OnlyIn))
			figs.RawSetString(f.Name, ft)
			continue
		}
		if x := f.Ratio.Ratio; !math.IsNaN(x) && !math.IsInf(x, 0) {
			ft.RawSetString("ratio", lua.LNumber(x))
		}
		if !f.Ratio.Unbounded {
			ft.RawSetString("ratio_ci", pair(L, f.Ratio.Lo, f.Ratio.Hi))
			ft.RawSetString("level", lua.LNumber(f.Ratio.Level))
			ft.RawSetString("p", lua.LNumber(f.Ratio.P))
		}
		ft.RawSetString("verdict", lua.LString(f.Verdict))
		if f.Verdict == interval.Undecided && f.TooFew {
			ft.RawSetString("why", lua.LString(fmt.Sprintf("%d samples of A and %d of B: each side needs 6 to bound its median (the order-statistic interval)", f.A.N, f.B.N)))
		}
		ft.RawSetString("runs_for_5pct", lua.LNumber(f.RunsFor5))
		if !r.DriftCovered {
			ft.RawSetString("warning", lua.LString(driftWarning))
		}
		figs.RawSetString(f.Name, ft)
	}
	t.RawSetString("names", names)
	t.RawSetString("figures", figs)
	summary := abSummary(r, o.runs)
	t.RawSetString("summary", lua.LString(summary))
	setSummary(L, t, summary)
	return t
}
