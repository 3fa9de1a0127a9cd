package load

import (
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
