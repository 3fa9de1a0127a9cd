package load

import (
	"fmt"
	"math"
	"strconv"

	"ttftlab/internal/interval"
)

// SLOLimit is one SLO as a capacity search checks it: the Percentile-th
// percentile of a level's requests at most LimitMs.
type SLOLimit struct {
	Percentile, LimitMs float64
}

// Search is the capacity search, the one ttftlab load and search_next
// run. It brackets by doubling from Start (1, 2, 4, ...; the last step is
// Most itself) until a level does not hold or Most held, then bisects
// between the largest level that held below the lowest that did not and
// that level: on whole numbers until they are neighbours, or on rates
// until they are within RateTolerance (a rate search halves while no
// rate held). A level that held above one that did not (a noisy verdict)
// does not count: the boundary is below the lowest level that did not
// hold. Then it gives the capacity level and the level above it more
// calls, a round at a time, until the 95 % interval of each SLO's
// percentile lies on one side of its limit or the level has had Budget
// calls; a level whose pooled verdict flips moves the boundary and the
// bisection goes on. Rounds without values (verdicts only) are not
// confirmed.
type Search struct {
	// Rate: the levels are calls per second (an open loop), bisected
	// until the rates are within RateTolerance; else calls at once, whole
	// numbers.
	Rate bool
	// Start is the first level (calls at once: 1; a rate: the rate given).
	Start float64
	// Most is the largest level the search may try.
	Most float64
	SLO  []SLOLimit
	// Calls is the calls of a round; Budget the most calls one level gets
	// over all its rounds (Budget <= Calls: no confirmation rounds).
	Calls, Budget int
}

// RateTolerance is how close a rate search brings the largest rate that
// held and the lowest that did not: hi/lo <= 1.05.
const RateTolerance = 1.05

// rateFloor is how far below its start a rate search halves while no
// rate held: to Start/64, after which the capacity is none.
const rateFloor = 64

// maxSteps bounds a search's rounds, whatever its verdicts.
const maxSteps = 200

// Step is one round a search ran: a level, the calls it ran, and its
// requests' values for each SLO (warm-up left out; a request that failed
// or never reached the figure is +Inf). Without Values (nil) the round's
// verdict is Met, and no interval is computed. CallOf, when given, is
// the call of each value (CallOf[i][j] Values[i][j]'s, numbered within
// the round): the intervals then account for the correlation of one
// call's requests (Estimate); nil takes each value as its own call.
type Step struct {
	Level         float64
	Calls         int
	Met           bool
	Values        [][]float64
	CallOf        [][]int
	Failed        int
	OverSaturated bool
}

// Side is where an SLO's interval lies against its limit.
type Side string

const (
	Below     Side = "below"     // the whole interval is at or below the limit: held
	Above     Side = "above"     // the whole interval is above the limit: not held
	Straddles Side = "straddles" // the interval holds the limit: undecided
)

// SLOEstimate is one SLO's percentile over a level's pooled requests:
// its value (nil when it falls on a late request), its 95 % interval
// (each bound nil when unbounded on that side) and where that interval
// lies against the limit.
type SLOEstimate struct {
	N      int
	Value  *float64
	Lo, Hi *float64
	Side   Side
}

// LevelVerdict is a level over every round it ran: Met is the verdict of
// the pooled requests' percentiles (no failure, no over-saturation, each
// percentile within its limit); Decided says the intervals (or a failure,
// or over-saturation) settle it.
type LevelVerdict struct {
	Level         float64
	Rounds, Calls int
	Failed        int
	OverSaturated bool
	Met, Decided  bool
	SLO           []SLOEstimate
}

// Decision is what a search does next: run Next with Calls calls, or,
// when Done, its answer: Capacity (0 when no level held), Decided when
// the capacity held and the level above did not by their intervals,
// else Between holds the two levels in question (Between[1] 0 when the
// capacity is the largest level). Levels are the verdicts so far, in the
// order the levels first ran.
type Decision struct {
	Next     float64
	Calls    int
	Done     bool
	Capacity float64
	Decided  bool
	Between  [2]float64
	Levels   []LevelVerdict
}

// Next decides the next round given the rounds run so far, in order.
func (s Search) Next(path []Step) (Decision, error) {
	if s.Start <= 0 || s.Most < s.Start {
		return Decision{}, fmt.Errorf("the levels to try run from %g to %g: want a start above 0 and at most the largest", s.Start, s.Most)
	}
	if s.Calls < 1 {
		return Decision{}, fmt.Errorf("%d calls a round: want 1 or more", s.Calls)
	}
	if len(path) > maxSteps {
		return Decision{}, fmt.Errorf("no answer after %d rounds", maxSteps)
	}
	levels, err := s.verdicts(path)
	if err != nil {
		return Decision{}, err
	}
	d := Decision{Levels: levels}
	if len(path) == 0 {
		d.Next, d.Calls = s.Start, s.Calls
		return d, nil
	}
	next, capacity, above := s.bracket(levels)
	if next > 0 {
		d.Next, d.Calls = next, s.Calls
		return d, nil
	}
	// Converged: confirm the capacity and the level above it.
	at := map[float64]LevelVerdict{}
	for _, v := range levels {
		at[v.Level] = v
	}
	for _, l := range []float64{capacity, above} {
		v, ok := at[l]
		if l == 0 || !ok || v.Decided || v.SLO == nil || v.Calls >= s.Budget {
			continue
		}
		d.Next, d.Calls = l, min(s.Calls, s.Budget-v.Calls)
		return d, nil
	}
	d.Done, d.Capacity = true, capacity
	d.Decided = (capacity == 0 || at[capacity].Decided) && (above == 0 || at[above].Decided)
	d.Between = [2]float64{capacity, above}
	return d, nil
}

// bracket is the doubling and bisection on the levels' verdicts: the
// next level to run, or 0 and the capacity (the largest level that held
// below the lowest that did not) with that lowest level (0 when every
// level held).
func (s Search) bracket(levels []LevelVerdict) (next, capacity, above float64) {
	fail := 0.0 // the lowest level that did not hold
	for _, v := range levels {
		if !v.Met && (fail == 0 || v.Level < fail) {
			fail = v.Level
		}
	}
	held := 0.0 // the largest level that held, below fail
	for _, v := range levels {
		if v.Met && v.Level > held && (fail == 0 || v.Level < fail) {
			held = v.Level
		}
	}
	switch {
	case fail == 0 && held >= s.Most:
		return 0, held, 0
	case fail == 0:
		return math.Min(2*held, s.Most), 0, 0
	case s.Rate && held == 0:
		// Nothing held: a rate search halves down to its floor.
		if fail/2 >= s.Start/rateFloor {
			return fail / 2, 0, 0
		}
		return 0, 0, fail
	case !s.Rate && fail-held <= 1, s.Rate && fail/held <= RateTolerance:
		return 0, held, fail
	case !s.Rate:
		return held + math.Floor((fail-held)/2), 0, 0
	}
	return midRate(held, fail), 0, 0
}

// midRate is a rate between lo and hi: their mean, rounded to three
// significant digits when that keeps it strictly between them.
func midRate(lo, hi float64) float64 {
	m := (lo + hi) / 2
	if r, err := strconv.ParseFloat(strconv.FormatFloat(m, 'g', 3, 64), 64); err == nil && r > lo && r < hi {
		return r
	}
	return m
}

// verdicts pools each level's rounds, in the order the levels first ran.
func (s Search) verdicts(path []Step) ([]LevelVerdict, error) {
	var order []float64
	byLevel := map[float64][]Step{}
	for _, st := range path {
		if st.Level <= 0 || math.IsInf(st.Level, 0) || math.IsNaN(st.Level) {
			return nil, fmt.Errorf("a level of %g: want a number above 0", st.Level)
		}
		if !s.Rate && st.Level != math.Trunc(st.Level) {
			return nil, fmt.Errorf("a level of %g calls at once: want a whole number", st.Level)
		}
		if st.Values != nil && len(st.Values) != len(s.SLO) {
			return nil, fmt.Errorf("level %g has values for %d SLOs, want %d", st.Level, len(st.Values), len(s.SLO))
		}
		if _, ok := byLevel[st.Level]; !ok {
			order = append(order, st.Level)
		}
		byLevel[st.Level] = append(byLevel[st.Level], st)
	}
	out := make([]LevelVerdict, 0, len(order))
	for _, l := range order {
		out = append(out, s.pool(l, byLevel[l]))
	}
	return out, nil
}

// pool is one level's verdict over its rounds.
func (s Search) pool(level float64, rounds []Step) LevelVerdict {
	v := LevelVerdict{Level: level, Rounds: len(rounds), Met: true}
	withValues := true
	for _, r := range rounds {
		v.Calls += r.Calls
		v.Failed += r.Failed
		v.OverSaturated = v.OverSaturated || r.OverSaturated
		v.Met = v.Met && r.Met
		withValues = withValues && r.Values != nil
	}
	if !withValues {
		// A verdict without values: Met as given, no interval.
		v.Met = v.Met && v.Failed == 0 && !v.OverSaturated
		v.Decided = !v.Met
		return v
	}
	v.Met = v.Failed == 0 && !v.OverSaturated
	v.Decided = !v.Met // a failure or over-saturation settles it
	allBelow := true
	anyAbove := false
	for i, slo := range s.SLO {
		var xs []float64
		var calls []int // a round's call k is another call than another round's
		for k, r := range rounds {
			xs = append(xs, r.Values[i]...)
			for j := range r.Values[i] {
				id := -1 - len(calls) // a value of its own call
				if r.CallOf != nil {
					id = k<<24 + r.CallOf[i][j]
				}
				calls = append(calls, id)
			}
		}
		e := Estimate(xs, calls, slo)
		v.SLO = append(v.SLO, e)
		if e.Value == nil || *e.Value > slo.LimitMs {
			v.Met = false
		}
		allBelow = allBelow && e.Side == Below
		anyAbove = anyAbove || e.Side == Above
	}
	if !v.Decided {
		switch {
		case anyAbove:
			v.Met, v.Decided = false, true
		case allBelow:
			v.Met, v.Decided = true, true
		}
	}
	return v
}

// Estimate is the percentile of xs named by slo (NaN left out, +Inf a
// late request above every value) with its 95 % order-statistic interval,
// widened for the correlation of one call's values (interval.LateCalls:
// calls[i] is xs[i]'s call; nil, every value its own call, is
// interval.Late's), and where that interval lies against the limit.
func Estimate(xs []float64, calls []int, slo SLOLimit) SLOEstimate {
	if calls == nil {
		calls = make([]int, len(xs))
		for i := range calls {
			calls[i] = i
		}
	}
	l := interval.LateCalls(xs, calls, slo.Percentile)
	e := SLOEstimate{N: l.N, Side: Straddles}
	if l.N == 0 {
		return e
	}
	finite := func(x float64) *float64 {
		if math.IsInf(x, 0) {
			return nil
		}
		return &x
	}
	if l.Known() {
		e.Value = finite(l.Value)
	}
	e.Lo, e.Hi = finite(l.Lo), finite(l.Hi)
	switch {
	case l.Hi <= slo.LimitMs:
		e.Side = Below
	case l.Lo > slo.LimitMs: // a late bound included: late requests alone are above
		e.Side = Above
	}
	return e
}
