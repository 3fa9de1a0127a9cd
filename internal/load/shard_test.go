package load

import (
	"fmt"
	"sort"
	"testing"
	"time"

	"ttftlab/internal/stream"
)

// TestShardsUnionIsTheWholeSchedule: the shards of a plan, run one by
// one, start between them exactly the calls the whole plan starts, each
// with the due time and the draw the whole plan gives it, and each shard
// only calls whose number is its index plus one modulo the count: in an
// open loop (constant and Poisson arrivals), a capped closed loop and a
// schedule (a replayed trace's: each call at its start, also under a cap).
func TestShardsUnionIsTheWholeSchedule(t *testing.T) {
	t.Parallel()
	url := startServer(t, &sseServer{pieces: 2, gap: time.Millisecond})
	starts := func(plan Plan) []start {
		var out []start
		collect(t, plan, func(tn Turn) (Job, Status, error) {
			out = append(out, start{tn.Call, tn.Turn, tn.Due, tn.Draw})
			return Job{Request: stream.Request{URL: url, Body: body}}, Ready, nil
		})
		sort.Slice(out, func(i, j int) bool {
			return out[i].call < out[j].call || out[i].call == out[j].call && out[i].turn < out[j].turn
		})
		return out
	}
	ms := time.Millisecond
	sched := &Schedule{Starts: []time.Duration{0, 0, ms, 3 * ms, 3 * ms, 4 * ms, 8 * ms, 9 * ms, 9 * ms, 12 * ms, 20 * ms},
		Turns: []int{1, 2, 1, 1, 3, 1, 2, 1, 1, 2, 1}}
	for name, plan := range map[string]Plan{
		"schedule":        {Schedule: sched, Calls: 11, Think: Think{Min: ms}},
		"schedule capped": {Schedule: sched, Calls: 11, Concurrency: 3, Think: Think{Min: ms}},
		"constant":        {Rate: 200, Calls: 11, Seed: 5},
		"poisson":         {Rate: 200, Arrival: Poisson, Calls: 11, Seed: 5},
		"capped":          {Concurrency: 5, Calls: 11, Seed: 5},
		"rate with a cap": {Rate: 200, Concurrency: 4, Calls: 11, Seed: 5},
	} {
		whole := starts(plan)
		requests := plan.Calls
		if plan.Schedule != nil {
			requests = 0
			for _, n := range plan.Schedule.Turns {
				requests += n
			}
		}
		if len(whole) != requests {
			t.Fatalf("%s: the whole plan started %d requests, want %d", name, len(whole), requests)
		}
		for _, n := range []int{2, 3} {
			var union []start
			for i := 0; i < n; i++ {
				p := plan
				p.Shard = Shard{Index: i, Count: n}
				part := starts(p)
				for _, s := range part {
					if (s.call-1)%n != i {
						t.Errorf("%s: shard %d of %d started call %d", name, i, n, s.call)
					}
				}
				union = append(union, part...)
			}
			sort.Slice(union, func(i, j int) bool {
				return union[i].call < union[j].call || union[i].call == union[j].call && union[i].turn < union[j].turn
			})
			// A schedule's calls are due at their starts, also under a
			// cap (which may hold them back: Admitted, not Scheduled).
			fixed := plan.Rate > 0 || plan.Schedule != nil
			got, want := fmt.Sprint(shape(union, fixed)), fmt.Sprint(shape(whole, fixed))
			if got != want {
				t.Errorf("%s over %d shards: the union started\n%s\nthe whole plan\n%s", name, n, got, want)
			}
		}
	}
}

// start is a turn a plan started.
type start struct {
	call, turn int
	due        time.Duration
	draw       float64
}

// shape is what of each start the schedule fixes: the call, its draw and,
// in an open loop, its first turn's due time (a closed loop's calls are
// due when a place frees, a later turn when the one before ended, which
// the server's timing decides).
func shape(starts []start, dueFixed bool) []string {
	var out []string
	for _, s := range starts {
		if !dueFixed || s.turn > 1 {
			s.due = 0
		}
		out = append(out, fmt.Sprintf("call %d turn %d due %v draw %.6f", s.call, s.turn, s.due, s.draw))
	}
	return out
}

// TestShardPlaces: the shards' places add up to the whole, and none gets
// more than one above another.
func TestShardPlaces(t *testing.T) {
	t.Parallel()
	for n := 0; n <= 9; n++ {
		for count := 1; count <= 4; count++ {
			sum, lo, hi := 0, n, 0
			for i := 0; i < count; i++ {
				p := Shard{Index: i, Count: count}.Places(n)
				sum += p
				lo, hi = min(lo, p), max(hi, p)
			}
			if sum != n || hi-lo > 1 {
				t.Errorf("%d places over %d shards: %d in all, from %d to %d each", n, count, sum, lo, hi)
			}
		}
	}
	if _, err := New(Plan{Rate: 1, Shard: Shard{Index: 2, Count: 2}}); err == nil {
		t.Error("shard 2 of 2 was accepted")
	}
}
