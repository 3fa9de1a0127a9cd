package load

import (
	"fmt"
	"math"
	"sort"
	"testing"
	"time"

	"ttftlab/internal/stream"
)

// turnsOf collects the turns a plan made due, by index.
func turnsOfRun(t *testing.T, plan Plan, url string) ([]Result, map[int]Turn) {
	t.Helper()
	turns := map[int]Turn{}
	out := collect(t, plan, func(tn Turn) (Job, Status, error) {
		turns[tn.Index] = tn
		return Job{Request: stream.Request{URL: url, Body: body}}, Ready, nil
	})
	return out, turns
}

// byCallTurn sorts results by call, then turn.
func byCallTurn(out []Result) map[int][]Result {
	m := map[int][]Result{}
	for _, r := range out {
		m[r.Call] = append(m[r.Call], r)
	}
	for _, rs := range m {
		sort.Slice(rs, func(i, j int) bool { return rs[i].Turn < rs[j].Turn })
	}
	return m
}

// TestScheduleStartsCallsAtItsTimes: a schedule's call i is due exactly
// at Starts[i-1], makes Turns[i-1] turns, each later one due at the end
// of the one before plus Think.Func's pause; without a cap nothing is
// held back (Admitted is Scheduled).
func TestScheduleStartsCallsAtItsTimes(t *testing.T) {
	t.Parallel()
	url := startServer(t, &sseServer{pieces: 2, gap: time.Millisecond})
	ms := time.Millisecond
	sched := &Schedule{Starts: []time.Duration{0, 5 * ms, 5 * ms, 20 * ms, 41 * ms}, Turns: []int{1, 3, 2, 1, 2}}
	pause := func(call, turn int) (time.Duration, error) { return time.Duration(call*turn) * ms, nil }
	plan := Plan{Schedule: sched, Turns: 7, Calls: 99, Rate: 3, Think: Think{Min: time.Hour, Func: pause}}
	out, turns := turnsOfRun(t, plan, url)
	calls := byCallTurn(out)
	if len(calls) != len(sched.Starts) {
		t.Fatalf("%d calls ran, want %d", len(calls), len(sched.Starts))
	}
	for call, rs := range calls {
		if len(rs) != sched.Turns[call-1] {
			t.Errorf("call %d made %d turns, want %d", call, len(rs), sched.Turns[call-1])
		}
		for k, r := range rs {
			if r.Turn != k+1 || r.Err != nil {
				t.Errorf("call %d: turn %d numbered %d, %v", call, k+1, r.Turn, r.Err)
			}
			want := sched.Starts[call-1]
			if k > 0 {
				p, _ := pause(call, r.Turn)
				want = rs[k-1].End + p
			}
			if r.Scheduled != want || r.Admitted != r.Scheduled {
				t.Errorf("call %d turn %d due at %v (admitted %v), want %v", call, r.Turn, r.Scheduled, r.Admitted, want)
			}
			if turns[r.Index].History != 0 {
				t.Errorf("call %d turn %d has history %d", call, r.Turn, turns[r.Index].History)
			}
		}
	}
}

// TestScheduleRefused: New checks a schedule whole.
func TestScheduleRefused(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	for name, s := range map[string]Schedule{
		"lengths":  {Starts: []time.Duration{0, ms}, Turns: []int{1}},
		"empty":    {},
		"negative": {Starts: []time.Duration{-ms}, Turns: []int{1}},
		"back":     {Starts: []time.Duration{0, 2 * ms, ms}, Turns: []int{1, 1, 1}},
		"no turn":  {Starts: []time.Duration{0, ms}, Turns: []int{1, 0}},
	} {
		if _, err := New(Plan{Schedule: &s}); err == nil {
			t.Errorf("%s: the schedule %+v was accepted", name, s)
		}
	}
	ok := Schedule{Starts: []time.Duration{0, 0, ms}, Turns: []int{1, 2, 1}}
	if _, err := New(Plan{Schedule: &ok}); err != nil {
		t.Errorf("a good schedule: %v", err)
	}
	if _, err := New(Plan{Schedule: &ok, SteadyStart: true, Turns: 3}); err == nil {
		t.Error("steady start with a schedule was accepted")
	}
	if _, err := New(Plan{Schedule: &ok, Ramp: Ramp{Duration: time.Second}}); err == nil {
		t.Error("a ramp with a schedule was accepted")
	}
}

// TestCapHoldsCallsBack: with a cap that binds (a schedule's and a rate's),
// every call runs (none dropped); a call held back is admitted exactly at
// the End of the call whose last turn freed its place, each such end
// freeing one call, and begins no earlier; a call not held back is
// admitted when due.
func TestCapHoldsCallsBack(t *testing.T) {
	t.Parallel()
	url := startServer(t, &sseServer{pieces: 3, gap: 4 * time.Millisecond})
	ms := time.Millisecond
	for name, plan := range map[string]Plan{
		"schedule": {Schedule: &Schedule{Starts: []time.Duration{0, ms, ms, 2 * ms, 3 * ms, 60 * ms, 61 * ms},
			Turns: []int{2, 1, 1, 2, 1, 1, 1}}, Concurrency: 2, Think: Think{Min: ms}},
		"rate": {Rate: 500, Calls: 7, Concurrency: 2},
	} {
		out := collect(t, plan, fixed(url, 1000))
		calls := byCallTurn(out)
		if len(calls) != 7 {
			t.Fatalf("%s: %d calls ran, want 7", name, len(calls))
		}
		lastEnds := map[time.Duration]int{} // a call's last turn's end: the call
		for call, rs := range calls {
			lastEnds[rs[len(rs)-1].End] = call
		}
		held, used := 0, map[int]bool{}
		for _, r := range out {
			switch {
			case r.Turn > 1 || r.Admitted == r.Scheduled:
				if r.Admitted != r.Scheduled {
					t.Errorf("%s: call %d turn %d admitted at %v, due at %v", name, r.Call, r.Turn, r.Admitted, r.Scheduled)
				}
			default:
				held++
				freed, ok := lastEnds[r.Admitted]
				switch {
				case r.Admitted < r.Scheduled:
					t.Errorf("%s: call %d admitted at %v, before it was due (%v)", name, r.Call, r.Admitted, r.Scheduled)
				case !ok || freed == r.Call || used[freed]:
					t.Errorf("%s: call %d admitted at %v: not the end of another call that freed a place (%v)", name, r.Call, r.Admitted, lastEnds)
				}
				used[freed] = true
			}
			if r.Began < r.Admitted {
				t.Errorf("%s: call %d turn %d began at %v, before it was admitted (%v)", name, r.Call, r.Turn, r.Began, r.Admitted)
			}
		}
		if held == 0 {
			t.Errorf("%s: no call was held back by the cap", name)
		}
	}
}

// TestRampArrivals: under a ramp of D the arrivals of a rate R (constant
// and Poisson, both shapes) come as the ramp's integral says: a linear
// ramp's Λ(D/2) = R D/8 and Λ(D) = R D/2, an exponential one's (a = ln
// 100) Λ(D/2) = R D/a (1/10 - 1/100) and Λ(D) = R D/a (1 - 1/100), so
// the second half of the ramp has 3 (linear) or 10 (exp) times the first
// half's; after it the arrivals are the level's, 1/R apart (constant).
// The same plan gives the same times.
func TestRampArrivals(t *testing.T) {
	t.Parallel()
	const rate, n = 100.0, 3000
	d := 10 * time.Second
	a := math.Log(100)
	for _, shape := range []RampShape{RampLinear, RampExp, ""} {
		half, whole := rate*d.Seconds()/8, rate*d.Seconds()/2
		if shape == RampExp {
			half, whole = rate*d.Seconds()/a*(0.1-0.01), rate*d.Seconds()/a*(1-0.01)
		}
		for _, arrival := range []Arrival{Constant, Poisson} {
			p := Plan{Rate: rate, Arrival: arrival, Seed: 9, Ramp: Ramp{Duration: d, Shape: shape}}
			at := p.Arrivals(n)
			first, second := 0, 0
			for i, x := range at {
				if i > 0 && x < at[i-1] {
					t.Fatalf("%s %s: call %d due at %v, before call %d (%v)", shape, arrival, i+1, x, i, at[i-1])
				}
				switch {
				case x < d/2:
					first++
				case x < d:
					second++
				}
			}
			if again := p.Arrivals(n); fmt.Sprint(again) != fmt.Sprint(at) {
				t.Errorf("%s %s: the same plan gave other arrivals", shape, arrival)
			}
			if arrival == Constant {
				// Call i (from 0) is due when Λ reaches i: the count below
				// t is ⌈Λ(t)⌉.
				if first != int(math.Ceil(half)) || first+second != int(math.Ceil(whole)) {
					t.Errorf("%s constant: %d calls in the ramp's first half and %d in all, want %d and %d", shape, first, first+second,
						int(math.Ceil(half)), int(math.Ceil(whole)))
				}
				// After it, the plan's times (computed, not measured) are
				// 1/R apart.
				period := time.Duration(float64(time.Second) / p.Rate)
				for i := first + second + 1; i < n; i++ {
					if gap := at[i] - at[i-1]; gap.Round(time.Microsecond) != period.Round(time.Microsecond) {
						t.Fatalf("%s constant: after the ramp calls %d and %d are %v apart, want 1/R = %v", shape, i, i+1, gap, period)
					}
				}
				continue
			}
			// Poisson: within 5 standard deviations of the counts.
			if math.Abs(float64(first)-half) > 5*math.Sqrt(half) || math.Abs(float64(second)-(whole-half)) > 5*math.Sqrt(whole-half) {
				t.Errorf("%s poisson: %d and %d calls in the ramp's halves, want about %.0f and %.0f", shape, first, second, half, whole-half)
			}
		}
	}
}

// TestRampMarksWhatWasDueInIt: a run with a ramp makes each call due at
// the plan's arrivals, and marks exactly the requests due before the
// ramp's end.
func TestRampMarksWhatWasDueInIt(t *testing.T) {
	t.Parallel()
	url := startServer(t, &sseServer{pieces: 2, gap: time.Millisecond})
	for _, shape := range []RampShape{RampLinear, RampExp} {
		plan := Plan{Rate: 400, Calls: 30, Turns: 2, Think: Think{Min: time.Millisecond}, Ramp: Ramp{Duration: 60 * time.Millisecond, Shape: shape}}
		out := collect(t, plan, fixed(url, 1000))
		due := plan.Arrivals(plan.Calls)
		in := 0
		for _, r := range out {
			if r.Turn == 1 && r.Scheduled != due[r.Call-1] {
				t.Errorf("%s: call %d due at %v, want %v", shape, r.Call, r.Scheduled, due[r.Call-1])
			}
			if r.Ramp != (r.Scheduled < plan.Ramp.Duration) {
				t.Errorf("%s: call %d turn %d due at %v marked ramp %v", shape, r.Call, r.Turn, r.Scheduled, r.Ramp)
			}
			if r.Ramp {
				in++
			}
		}
		if len(out) != 60 || in == 0 || in == len(out) {
			t.Errorf("%s: %d results, %d of them in the ramp: want 60, some in it and some after", shape, len(out), in)
		}
	}
	if _, err := New(Plan{Rate: 1, Ramp: Ramp{Duration: time.Second, Shape: "steep"}}); err == nil {
		t.Error("an unknown ramp shape was accepted")
	}
	if _, err := New(Plan{Rate: 1, Ramp: Ramp{Duration: -time.Second}}); err == nil {
		t.Error("a negative ramp was accepted")
	}
	if _, err := New(Plan{Concurrency: NoLimit, Ramp: Ramp{Duration: time.Second}}); err == nil {
		t.Error("a ramp of a closed loop without a cap was accepted")
	}
}

// TestRampOpensPlaces: a closed loop's place k of C opens when the shape
// reaches k/C (place 1 at once, the last at the ramp's end): linear at
// k/C x D, exp at D (1 + ln(k/C)/ln 100), at least 0. In a run the calls
// due at a moment that is no call's end are exactly those that took a
// place as it opened, at its opening; none is marked ramp after D. Each
// shard opens its own places (Index, Index+Count, ...).
func TestRampOpensPlaces(t *testing.T) {
	t.Parallel()
	d := 80 * time.Millisecond
	opening := func(shape RampShape, k, c int) time.Duration {
		if k == 1 {
			return 0
		}
		f := float64(k) / float64(c)
		if shape == RampExp {
			return time.Duration(max(0, float64(d)*(1+math.Log(f)/math.Log(100))))
		}
		return time.Duration(f * float64(d))
	}
	for _, shape := range []RampShape{RampLinear, RampExp} {
		for _, c := range []int{1, 4, 250} {
			for k := 1; k <= c; k++ {
				if got, want := (Ramp{Duration: d, Shape: shape}).opens(k, c), opening(shape, k, c); got != want {
					t.Errorf("%s: place %d of %d opens at %v, want %v", shape, k, c, got, want)
				}
			}
		}
	}
	// Calls of 30 ms at least, more than the places' first calls can end
	// before the last place opens.
	url := startServer(t, &sseServer{pieces: 3, gap: 10 * time.Millisecond})
	for _, shape := range []RampShape{RampLinear, RampExp} {
		for _, sh := range []Shard{{}, {Index: 1, Count: 2}} {
			plan := Plan{Concurrency: 4, Calls: 16, Ramp: Ramp{Duration: d, Shape: shape}, Shard: sh}
			out := collect(t, plan, fixed(url, 1000))
			ends := map[time.Duration]bool{}
			for _, r := range out {
				ends[r.End] = true
			}
			var opened []time.Duration
			for _, r := range out {
				if !ends[r.Scheduled] {
					opened = append(opened, r.Scheduled)
				}
			}
			sort.Slice(opened, func(i, j int) bool { return opened[i] < opened[j] })
			var want []time.Duration
			for k := 1; k <= 4; k++ {
				if sh.Count <= 1 || (k-1)%sh.Count == sh.Index {
					want = append(want, opening(shape, k, 4))
				}
			}
			if fmt.Sprint(opened) != fmt.Sprint(want) {
				t.Errorf("%s, shard %+v: calls due at no call's end at %v, want the places' openings %v", shape, sh, opened, want)
			}
		}
	}
}

// TestSteadyStartClosedLoop: the first min(C, Calls) calls start at turn
// 1 + (i-1) mod Turns, their first request holding the turns before it
// (History, Prev 0) and due at the call's draw in [0, Think.Min), not
// all at once; each makes its turns from there to Turns; later calls
// start at turn 1.
func TestSteadyStartClosedLoop(t *testing.T) {
	t.Parallel()
	url := startServer(t, &sseServer{pieces: 2, gap: time.Millisecond})
	think := 20 * time.Millisecond
	plan := Plan{Concurrency: 4, Calls: 7, Turns: 3, Seed: 3, Think: Think{Min: think}, SteadyStart: true}
	out, turns := turnsOfRun(t, plan, url)
	calls := byCallTurn(out)
	if len(calls) != 7 {
		t.Fatalf("%d calls ran, want 7", len(calls))
	}
	dues := map[time.Duration]bool{}
	for call, rs := range calls {
		first := 1
		if call <= 4 {
			first = 1 + (call-1)%3
		}
		if len(rs) != 3-first+1 || rs[0].Turn != first {
			t.Errorf("call %d made turns %d.., %d of them, want %d..3", call, rs[0].Turn, len(rs), first)
		}
		tn := turns[rs[0].Index]
		if tn.History != first-1 || tn.Prev != 0 {
			t.Errorf("call %d: its first request (turn %d) has history %d and previous %d, want %d and 0", call, tn.Turn, tn.History, tn.Prev, first-1)
		}
		for _, r := range rs[1:] {
			if h := turns[r.Index].History; h != 0 {
				t.Errorf("call %d turn %d has history %d", call, r.Turn, h)
			}
		}
		if call <= 4 {
			if due := rs[0].Scheduled; due != plan.SteadyDue(call) || due < 0 || due >= think {
				t.Errorf("call %d due at %v, want its draw %v in [0, %v)", call, due, plan.SteadyDue(call), think)
			}
			dues[rs[0].Scheduled] = true
		}
	}
	if len(dues) < 4 {
		t.Errorf("the first calls' first requests are due at %v: want them spread", dues)
	}
}

// TestSteadyStartOpenLoop: a call arriving at a before L = (Turns-1) x
// Think.Min starts at turn 1 + floor((1 - a/L)(Turns-1)), at its
// arrival; later ones at turn 1. Rate 100 (10 ms apart), 4 turns, 20 ms:
// L = 60 ms.
func TestSteadyStartOpenLoop(t *testing.T) {
	t.Parallel()
	url := startServer(t, &sseServer{pieces: 2, gap: time.Millisecond})
	plan := Plan{Rate: 100, Calls: 8, Turns: 4, Think: Think{Min: 20 * time.Millisecond}, SteadyStart: true}
	out, turns := turnsOfRun(t, plan, url)
	calls := byCallTurn(out)
	want := []int{4, 3, 3, 2, 2, 1, 1, 1}
	for call := 1; call <= 8; call++ {
		rs := calls[call]
		if len(rs) == 0 {
			t.Fatalf("call %d did not run", call)
		}
		tn := turns[rs[0].Index]
		if rs[0].Turn != want[call-1] || len(rs) != 4-want[call-1]+1 || tn.History != want[call-1]-1 {
			t.Errorf("call %d started at turn %d (history %d), %d turns: want turn %d", call, rs[0].Turn, tn.History, len(rs), want[call-1])
		}
		if rs[0].Scheduled != time.Duration(call-1)*10*time.Millisecond {
			t.Errorf("call %d due at %v, want its arrival", call, rs[0].Scheduled)
		}
	}
	if _, err := New(Plan{Concurrency: NoLimit, Turns: 2, SteadyStart: true}); err == nil {
		t.Error("steady start of a closed loop with no cap and no number of calls was accepted")
	}
}
