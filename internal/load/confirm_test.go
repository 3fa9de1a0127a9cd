package load

import (
	"math"
	"math/rand/v2"
	"testing"
)

// runSearch runs s against a server whose requests at level l take
// latency(l, r) ms, r a seeded uniform draw, and returns the rounds and
// the answer.
func runSearch(t *testing.T, s Search, latency func(level, u float64) float64) ([]Step, Decision) {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	var path []Step
	for range maxSteps {
		d, err := s.Next(path)
		if err != nil {
			t.Fatal(err)
		}
		if d.Done {
			return path, d
		}
		if d.Next <= 0 || d.Next > s.Most || d.Calls < 1 {
			t.Fatalf("next %g with %d calls, outside (0, %g]", d.Next, d.Calls, s.Most)
		}
		xs := make([]float64, d.Calls)
		for i := range xs {
			xs[i] = latency(d.Next, rng.Float64())
		}
		path = append(path, Step{Level: d.Next, Calls: d.Calls, Values: [][]float64{xs}})
	}
	t.Fatalf("no answer after %d rounds", maxSteps)
	return nil, Decision{}
}

// TestSearchConfirmsTheBoundary: at 5 calls at once the median is 85 ms,
// at 6 it is 118 ms (spread ±50 %), the limit 100 ms at p50: 20 calls a
// round leave an interval that straddles 100 at 5 or 6; the confirmation
// rounds decide both, the capacity is 5, decided, and the capacity's and
// the next level's rounds together stay within the budget.
func TestSearchConfirmsTheBoundary(t *testing.T) {
	t.Parallel()
	s := Search{Start: 1, Most: 64, SLO: []SLOLimit{{Percentile: 50, LimitMs: 100}}, Calls: 20, Budget: 200}
	path, d := runSearch(t, s, func(l, u float64) float64 {
		med := 85.0
		if l > 5 {
			med = 118
		}
		return med * (0.5 + u)
	})
	if d.Capacity != 5 || !d.Decided || d.Between != [2]float64{5, 6} {
		t.Fatalf("capacity %g decided %v between %v, want 5, decided, [5 6]", d.Capacity, d.Decided, d.Between)
	}
	rounds := map[float64]int{}
	for _, st := range path {
		rounds[st.Level]++
	}
	if rounds[5]+rounds[6] <= 2 {
		t.Errorf("rounds %v: the boundary was not confirmed with more calls", rounds)
	}
	for _, v := range d.Levels {
		if v.Calls > s.Budget {
			t.Errorf("level %g had %d calls, budget %d", v.Level, v.Calls, s.Budget)
		}
		if v.Level == 5 && (v.SLO[0].Side != Below || *v.SLO[0].Hi > 100) {
			t.Errorf("level 5: %+v, want its interval below 100", v.SLO[0])
		}
		if v.Level == 6 && (v.SLO[0].Side != Above || *v.SLO[0].Lo <= 100) {
			t.Errorf("level 6: %+v, want its interval above 100", v.SLO[0])
		}
	}
}

// TestSearchUndecided: level 6's median is the limit itself, so no
// budget decides it: the answer is undecided between 5 and 6, and level 6
// ran exactly its budget.
func TestSearchUndecided(t *testing.T) {
	t.Parallel()
	s := Search{Start: 1, Most: 64, SLO: []SLOLimit{{Percentile: 50, LimitMs: 100}}, Calls: 20, Budget: 80}
	_, d := runSearch(t, s, func(l, u float64) float64 {
		switch {
		case l <= 5:
			return 40 * (0.5 + u)
		case l == 6:
			return 100 * (0.5 + u)
		}
		return 400 * (0.5 + u)
	})
	if d.Decided || d.Between != [2]float64{5, 6} {
		t.Fatalf("capacity %g decided %v between %v, want undecided between 5 and 6", d.Capacity, d.Decided, d.Between)
	}
	for _, v := range d.Levels {
		if v.Level == 6 && (v.Calls != s.Budget || v.SLO[0].Side != Straddles) {
			t.Errorf("level 6: %d calls, %+v; want the budget %d and an interval across the limit", v.Calls, v.SLO[0], s.Budget)
		}
	}
}

// TestSearchUndecidedAtTheTop: every level up to --search-max 2 holds
// by its values, but 4 requests cannot bound a p50 and the budget allows
// no more rounds: the answer is undecided at 2 with nothing above it
// tried (between 2 and none).
func TestSearchUndecidedAtTheTop(t *testing.T) {
	t.Parallel()
	s := Search{Start: 1, Most: 2, SLO: []SLOLimit{{Percentile: 50, LimitMs: 60000}}, Calls: 4, Budget: 4}
	path, d := runSearch(t, s, func(l, u float64) float64 { return 40 * (0.5 + u) })
	if !d.Done || d.Decided || d.Capacity != 2 || d.Between != [2]float64{2, 0} {
		t.Fatalf("capacity %g decided %v between %v (path %v), want undecided at 2, nothing above", d.Capacity, d.Decided, d.Between, levelsOf(path))
	}
}

// TestSearchConfirmationFlips: a level that held on its first round but
// not on the pooled rounds moves the boundary down, and the search goes
// on below it: here 4, which held, is the capacity.
func TestSearchConfirmationFlips(t *testing.T) {
	t.Parallel()
	s := Search{Start: 1, Most: 8, SLO: []SLOLimit{{Percentile: 50, LimitMs: 100}}, Calls: 10, Budget: 40}
	fast := func(n int) []float64 { return repeat(50, n) }
	path := []Step{
		{Level: 1, Calls: 10, Values: [][]float64{fast(10)}},
		{Level: 2, Calls: 10, Values: [][]float64{fast(10)}},
		{Level: 4, Calls: 10, Values: [][]float64{fast(10)}},
		{Level: 8, Calls: 10, Values: [][]float64{repeat(500, 10)}},
		{Level: 6, Calls: 10, Values: [][]float64{repeat(500, 10)}},
		{Level: 5, Calls: 10, Values: [][]float64{append(repeat(90, 6), repeat(110, 4)...)}},
	}
	d, err := s.Next(path)
	if err != nil || d.Done || d.Next != 5 {
		t.Fatalf("after an undecided 5: %+v %v, want another round of 5", d, err)
	}
	path = append(path, Step{Level: 5, Calls: 30, Values: [][]float64{repeat(300, 30)}})
	d, err = s.Next(path)
	if err != nil || !d.Done || d.Capacity != 4 || !d.Decided || d.Between != [2]float64{4, 5} {
		t.Fatalf("after 5 missed pooled: %+v %v, want capacity 4, decided", d, err)
	}
}

// TestSearchFailuresDecide: a failed request settles a level as not held,
// and +Inf values above the limit settle it without a budget.
func TestSearchFailuresDecide(t *testing.T) {
	t.Parallel()
	s := Search{Start: 1, Most: 2, SLO: []SLOLimit{{Percentile: 50, LimitMs: 100}}, Calls: 4, Budget: 100}
	d, err := s.Next([]Step{{Level: 1, Calls: 4, Values: [][]float64{{10, 10, 10, 10}}},
		{Level: 2, Calls: 4, Failed: 1, Values: [][]float64{{10, 10, 10, math.Inf(1)}}}})
	if err != nil || d.Done {
		t.Fatalf("%+v %v: level 1 (4 values) is undecided, want a round of it", d, err)
	}
	if d.Next != 1 || d.Levels[1].Met || !d.Levels[1].Decided {
		t.Errorf("%+v: want level 1 next and level 2 decided not held", d)
	}
	e := Estimate(append(repeat(math.Inf(1), 10), 1), nil, SLOLimit{50, 100})
	if e.Side != Above || e.Value != nil || e.Lo != nil {
		t.Errorf("late requests: %+v, want above with no value", e)
	}
	if e := Estimate([]float64{1, 2, math.Inf(1)}, nil, SLOLimit{50, 100}); e.Value == nil || *e.Value != 2 {
		t.Errorf("p50 of 1, 2, late: %+v, want 2", e)
	}
}

// TestSearchRate: against a server that holds up to 3.3 calls/s, a rate
// search from 0.5 doubles to 4, then bisects until the largest rate that
// held and the lowest that did not are within 5 %, with 3.3 between them.
func TestSearchRate(t *testing.T) {
	t.Parallel()
	for _, k := range []float64{0.2, 0.51, 3.3, 7.9} {
		s := Search{Rate: true, Start: 0.5, Most: 64, SLO: []SLOLimit{{Percentile: 50, LimitMs: 100}}, Calls: 10, Budget: 10}
		path, d := runSearch(t, s, func(l, u float64) float64 {
			if l <= k {
				return 50
			}
			return 1000
		})
		if !d.Decided || d.Capacity > k || (d.Between[1] != 0 && d.Between[1] <= k) {
			t.Errorf("k=%g: capacity %g, between %v, decided %v (path %v)", k, d.Capacity, d.Between, d.Decided, levelsOf(path))
		}
		if d.Capacity > 0 && d.Between[1]/d.Capacity > RateTolerance {
			t.Errorf("k=%g: %g and %g are more than 5 %% apart", k, d.Capacity, d.Between[1])
		}
		if d.Capacity == 0 && k >= s.Start/rateFloor {
			t.Errorf("k=%g: no capacity (path %v)", k, levelsOf(path))
		}
	}
}

func levelsOf(path []Step) []float64 {
	var out []float64
	for _, s := range path {
		out = append(out, s.Level)
	}
	return out
}

func repeat(x float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = x
	}
	return out
}
