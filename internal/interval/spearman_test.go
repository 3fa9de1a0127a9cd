package interval

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestSpearmanKnownValues: a series that only rises has rho 1 (its exact
// p-value over 5 values 2/120), one that only falls -1; ties take their
// mean rank; a late value (+Inf) ranks above every other; fewer than 5
// values, or every value equal, say nothing.
func TestSpearmanKnownValues(t *testing.T) {
	t.Parallel()
	if r := Spearman([]float64{1, 2, 3, 4, 5}); !r.Known || r.Rho != 1 || math.Abs(r.P-2.0/120) > 1e-12 {
		t.Errorf("rising: %+v, want rho 1, p 2/120", r)
	}
	if r := Spearman([]float64{9, 7, 5, 3, 1, 0, -1, -4, -8, -9}); !r.Known || r.Rho != -1 || r.P != 0 {
		t.Errorf("falling: %+v, want rho -1, p 0", r)
	}
	// Ranks 1, 2.5, 2.5, 4, 5 against 1..5.
	if r := Spearman([]float64{1, 2, 2, 4, math.Inf(1)}); math.Abs(r.Rho-0.9746794344808963) > 1e-12 {
		t.Errorf("ties and a late value: rho %v", r.Rho)
	}
	for _, xs := range [][]float64{{1, 2, 3, 4}, {3, 3, 3, 3, 3, 3}, {1, math.NaN(), 2, 3, 4}} {
		if r := Spearman(xs); r.Known || !math.IsNaN(r.Rho) || !math.IsNaN(r.P) {
			t.Errorf("%v: %+v, want nothing known", xs, r)
		}
	}
}

// TestSpearmanPValues: the exact p-value (up to 8 values) and the t
// approximation (above) agree near their border; over 400 seeded series
// of one distribution about 5 % are below 0.05, of a drift of 4
// standard deviations over the series at least half.
func TestSpearmanPValues(t *testing.T) {
	t.Parallel()
	xs := []float64{3, 1, 4, 2, 6, 5, 8, 7}
	exact := Spearman(xs)
	rho := exact.Rho
	tt := math.Abs(rho) * math.Sqrt(6/(1-rho*rho))
	if approx := 2 * (1 - tCDF(tt, 6)); math.Abs(exact.P-approx) > 0.02 {
		t.Errorf("8 values: exact p %v, t approximation %v", exact.P, approx)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{7, 20} {
		flat, drift := 0, 0
		for range 400 {
			a, b := make([]float64, n), make([]float64, n)
			for i := range a {
				a[i] = rng.NormFloat64()
				b[i] = rng.NormFloat64() + 4*float64(i)/float64(n)
			}
			if Spearman(a).P < 0.05 {
				flat++
			}
			if Spearman(b).P < 0.05 {
				drift++
			}
		}
		if flat < 8 || flat > 32 || drift < 200 {
			t.Errorf("%d values: %d of 400 flat series and %d of 400 drifting ones below 0.05", n, flat, drift)
		}
	}
}
