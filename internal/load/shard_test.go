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
// open loop (constant and Poisson arrivals) and a capped closed loop.
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
	for name, plan := range map[string]Plan{
		"constant":        {Rate: 200, Calls: 11, Seed: 5},
		"poisson":         {Rate: 200, Arrival: Poisson, Calls: 11, Seed: 5},
		"capped":          {Concurrency: 5, Calls: 11, Seed: 5},
		"rate with a cap": {Rate: 200, Concurrency: 4, Calls: 11, Seed: 5},
	} {
		whole := starts(plan)
		if len(whole) != plan.Calls {
			t.Fatalf("%s: the whole plan started %d calls, want %d", name, len(whole), plan.Calls)
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
			sort.Slice(union, func(i, j int) bool { return union[i].call < union[j].call })
			got, want := fmt.Sprint(shape(union, plan.Rate > 0)), fmt.Sprint(shape(whole, plan.Rate > 0))
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
// in an open loop, its due time (a closed loop's calls are due when a
// place frees, which the server's timing decides).
func shape(starts []start, dueFixed bool) []string {
	var out []string
	for _, s := range starts {
		if !dueFixed {
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
