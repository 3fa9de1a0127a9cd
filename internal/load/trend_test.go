package load

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestTrendRising: a queue that grows by 10 ms a request rises; the same
// values shuffled (one distribution over the level) neither rise nor
// leave the steady state in 100 seeded trials but a few; a rise smaller
// than the minimum does not count.
func TestTrendRising(t *testing.T) {
	t.Parallel()
	var grow []float64
	for i := range 60 {
		grow = append(grow, 20+10*float64(i))
	}
	tr := TrendOf(grow, 50)
	if !tr.Rising || tr.Steady || !tr.Known {
		t.Fatalf("a growing queue: %+v, want rising and not steady", tr)
	}
	if TrendOf(grow, 1000).Rising {
		t.Error("a rise of 400 ms counted against a minimum of 1000 ms")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	rising, unsteady := 0, 0
	for range 100 {
		xs := make([]float64, 60)
		for i := range xs {
			xs[i] = 100 + 50*rng.NormFloat64()
		}
		tr := TrendOf(xs, 10)
		if tr.Rising {
			rising++
		}
		if !tr.Steady {
			unsteady++
		}
	}
	if rising > 1 || unsteady > 10 {
		t.Errorf("one distribution: %d of 100 rising, %d not steady", rising, unsteady)
	}
}

// TestTrendLateAndFew: late requests (+Inf) at the end rise; fewer than
// 18 requests say nothing of the steady state; NaN is left out.
func TestTrendLateAndFew(t *testing.T) {
	t.Parallel()
	xs := []float64{}
	for i := range 10 {
		xs = append(xs, 10+float64(i)/10)
	}
	for i := range 10 {
		xs = append(xs, 100+float64(i), math.NaN())
	}
	for range 10 {
		xs = append(xs, math.Inf(1))
	}
	tr := TrendOf(xs, 50)
	if !tr.Rising || tr.Thirds[2].N != 10 || !math.IsInf(tr.Thirds[2].P50, 1) {
		t.Errorf("%+v: want rising into late requests", tr)
	}
	if tr := TrendOf([]float64{1, 2, 3, 4, 5, 100, 200, 300, 400}, 1); tr.Known || !tr.Steady || tr.Rising {
		t.Errorf("9 requests: %+v, want nothing known", tr)
	}
}

// TestTrendSteadyTolerance: thirds whose intervals are apart but whose
// medians differ by under 10 %, or by less than the minimum rise, are
// steady; by more, not.
func TestTrendSteadyTolerance(t *testing.T) {
	t.Parallel()
	mk := func(a, c float64) []float64 {
		var xs []float64
		for range 10 {
			xs = append(xs, a)
		}
		for range 10 {
			xs = append(xs, (a+c)/2)
		}
		for range 10 {
			xs = append(xs, c)
		}
		return xs
	}
	if tr := TrendOf(mk(6.0, 6.4), 0); !tr.Steady || !tr.Known {
		t.Errorf("6.0 to 6.4 ms: %+v, want steady", tr)
	}
	if tr := TrendOf(mk(6.0, 7.0), 0); tr.Steady {
		t.Errorf("6.0 to 7.0 ms: %+v, want not steady", tr)
	}
	if tr := TrendOf(mk(6.0, 7.0), 2); !tr.Steady {
		t.Errorf("6.0 to 7.0 ms, 2 ms the least change: %+v, want steady", tr)
	}
}

// TestTrendDrift: a latency that rises by 40 % across the level through
// wide noise leaves the thirds' intervals overlapping (steady) but its
// batch means' rank correlation with time says it drifts; one
// distribution drifts in few of 100 seeded series; a rise within the
// steady state's tolerance never does, however significant; fewer than 5
// batches say nothing.
func TestTrendDrift(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(8, 9))
	caught := 0
	for range 20 {
		xs := make([]float64, 60)
		for i := range xs {
			xs[i] = 100 + 40*float64(i)/60 + 25*rng.NormFloat64()
		}
		tr := TrendOf(xs, 10)
		if tr.Drift.Batches != 12 || !tr.Drift.Rank.Known {
			t.Fatalf("%+v: want 12 batches tested", tr.Drift)
		}
		if tr.Drift.Drifting && tr.Steady {
			caught++
		}
	}
	if caught < 10 {
		t.Errorf("a rise of 40 %% through the noise: %d of 20 steady by the thirds and drifting, want most", caught)
	}
	drifting := 0
	for range 100 {
		xs := make([]float64, 60)
		for i := range xs {
			xs[i] = 100 + 25*rng.NormFloat64()
		}
		if TrendOf(xs, 10).Drift.Drifting {
			drifting++
		}
	}
	if drifting > 6 {
		t.Errorf("one distribution: %d of 100 drifting", drifting)
	}
	small := make([]float64, 60)
	for i := range small {
		small[i] = 100 + 5*float64(i)/60 + 0.1*rng.NormFloat64()
	}
	if tr := TrendOf(small, 10); !(tr.Drift.Rank.P < 0.001) || tr.Drift.Drifting {
		t.Errorf("a rise of 5 %%: %+v, want significant and not drifting", tr.Drift)
	}
	if tr := TrendOf(small[:24], 10); tr.Drift.Batches != 4 || tr.Drift.Rank.Known || tr.Drift.Drifting {
		t.Errorf("24 requests: %+v, want 4 batches, nothing known", tr.Drift)
	}
}
