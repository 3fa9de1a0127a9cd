package interval

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestLateCallsOfSingleRequests: where every call is one request the
// interval is Late's exactly (late values, NaN and every percentile
// included): the independent case.
func TestLateCallsOfSingleRequests(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(11, 12))
	for _, n := range []int{5, 6, 20, 73, 400} {
		xs := make([]float64, n)
		calls := make([]int, n)
		for i := range xs {
			xs[i], calls[i] = 100+20*rng.NormFloat64(), 7*i+3
			switch rng.IntN(20) {
			case 0:
				xs[i] = math.Inf(1)
			case 1:
				xs[i] = math.NaN()
			}
		}
		for _, p := range []float64{50, 90, 95, 99} {
			c, l := LateCalls(xs, calls, p), Late(xs, 0, p)
			if !reflect.DeepEqual(c.LatePercentile, l) || c.DesignEffect != 1 || c.Effective != l.N || c.Calls != l.N {
				t.Errorf("n %d p%g: %+v, want Late's %+v", n, p, c, l)
			}
		}
	}
}

// correlated is calls of turns values each: a call's own level (standard
// deviation 1) plus each turn's noise (0.3), so the values of one call
// lie close together; their median over all calls is 0.
func correlated(rng *rand.Rand, callsN, turns int) ([]float64, []int) {
	var xs []float64
	var calls []int
	for c := range callsN {
		level := rng.NormFloat64()
		for range turns {
			xs, calls = append(xs, level+0.3*rng.NormFloat64()), append(calls, c+1)
		}
	}
	return xs, calls
}

// TestLateCallsOfCorrelatedRequests: on seeded calls of 5 correlated
// turns the interval of the median is wider than the one that takes the
// requests as independent, and over 300 seeded runs it holds the true
// median (0) about 95 % of the time, where the independent one misses it
// far more often; values of one call alone bound nothing.
func TestLateCallsOfCorrelatedRequests(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(21, 22))
	wider, heldC, heldI := 0, 0, 0
	const runs = 300
	for range runs {
		xs, calls := correlated(rng, 30, 5)
		c := LateCalls(xs, calls, 50)
		ind := Late(xs, 0, 50)
		if !c.Finite() || c.DesignEffect <= 1 || c.Effective >= len(xs) {
			t.Fatalf("%+v: want a finite interval with a design effect above 1", c)
		}
		if c.Hi-c.Lo > ind.Hi-ind.Lo {
			wider++
		}
		if c.Lo <= 0 && 0 <= c.Hi {
			heldC++
		}
		if ind.Lo <= 0 && 0 <= ind.Hi {
			heldI++
		}
	}
	if wider != runs || heldC < runs*90/100 || heldI > runs*80/100 {
		t.Errorf("over %d runs: wider %d, the median held by the calls' interval %d, by the independent one %d", runs, wider, heldC, heldI)
	}
	xs, calls := correlated(rng, 1, 30)
	if c := LateCalls(xs, calls, 50); c.Bounded() || c.Calls != 1 || math.IsNaN(c.Value) {
		t.Errorf("one call of 30: %+v, want a value and no interval", c)
	}
}
