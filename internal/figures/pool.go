package figures

import (
	"math"

	"ttftlab/internal/artifact"
	"ttftlab/internal/interval"
)

// Pool makes each figure's record pooled over runs: runs[i] are the
// samples of run i (rundir's Lab.Samples or Load.Samples). A figure is in the
// order of its first appearance; a run that lacks it adds no samples.
func Pool(runs [][]Sample) []artifact.Figure {
	type acc struct {
		s      Sample
		perRun [][]float64
	}
	var order []string
	by := map[string]*acc{}
	for i, run := range runs {
		for _, s := range run {
			a := by[s.Name]
			if a == nil {
				a = &acc{s: Sample{Name: s.Name, Unit: s.Unit, Over: s.Over}, perRun: make([][]float64, len(runs))}
				by[s.Name] = a
				order = append(order, s.Name)
			}
			a.perRun[i] = append(a.perRun[i], s.Values...)
		}
	}
	out := make([]artifact.Figure, 0, len(order))
	for _, name := range order {
		a := by[name]
		out = append(out, FigureOf(a.s, a.perRun))
	}
	return out
}

// FigureOf is one figure's record from its samples run by run (a run
// without samples is left out).
func FigureOf(s Sample, perRun [][]float64) artifact.Figure {
	f := artifact.Figure{Name: s.Name, Unit: s.Unit, Over: s.Over}
	var pooled, means []float64
	failed := false
	for _, vs := range perRun {
		if len(vs) == 0 {
			continue
		}
		f.Runs++
		pooled = append(pooled, vs...)
		sum, bad := 0.0, false
		for _, v := range vs {
			if math.IsInf(v, 1) {
				f.Failed++
				bad = true
			}
			sum += v
		}
		if bad {
			failed = true
			f.RunMeans = append(f.RunMeans, nil)
			continue
		}
		m := sum / float64(len(vs))
		means = append(means, m)
		f.RunMeans = append(f.RunMeans, artifact.Num(m))
	}
	f.N = len(pooled)
	if f.N == 0 {
		return f
	}
	pct := func(p float64) (*float64, *[2]float64) {
		// A failed sample (+Inf) is late: no value where the percentile
		// reaches one, no interval where a bound does.
		l := interval.Late(pooled, 0, p)
		return artifact.Num(l.Value), artifact.CI(!l.Finite(), l.Lo, l.Hi)
	}
	f.P50, f.P50CI = pct(50)
	f.P95, f.P95CI = pct(95)
	f.P99, f.P99CI = pct(99)
	if failed {
		return f
	}
	f.MeanOver = "runs"
	if f.Runs < 2 {
		f.MeanOver, means = "samples", pooled
	}
	m := interval.MeanCI(means)
	if s.Unit == "ms" && m.Lo < 0 {
		// A time is never negative: the part of the interval below 0 holds
		// no value the mean can take, and cutting it off keeps the
		// coverage (a wide t-interval of two runs reaches below 0).
		m.Lo = 0
	}
	f.Mean, f.MeanCI = artifact.Num(m.Mean), artifact.CI(m.Unbounded, m.Lo, m.Hi)
	return f
}
