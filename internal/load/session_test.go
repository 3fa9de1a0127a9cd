package load

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

// A job's Session runs instead of a stream, through the plan as a call:
// a closed loop keeps its cap on sessions at once, each next session is
// due when one ended, and a session's error is its result's.
func TestSessionsRunAsCalls(t *testing.T) {
	var inFlight, most atomic.Int32
	failed := errors.New("the session failed")
	loop, err := New(Plan{Concurrency: 2, Calls: 6})
	if err != nil {
		t.Fatal(err)
	}
	var results []Result
	hooks := Hooks{
		Next: func(turn Turn) (Job, Status, error) {
			call := turn.Call
			return Job{Session: func(ctx context.Context) error {
				n := inFlight.Add(1)
				defer inFlight.Add(-1)
				for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
				}
				time.Sleep(20 * time.Millisecond)
				if call == 3 {
					return failed
				}
				return nil
			}}, Ready, nil
		},
		Finished: func(r Result) (bool, error) {
			results = append(results, r)
			return true, nil
		},
	}
	if err := loop.Run(context.Background(), hooks); err != nil {
		t.Fatal(err)
	}
	if len(results) != 6 {
		t.Fatalf("%d results, want one a session: 6", len(results))
	}
	if m := most.Load(); m != 2 {
		t.Errorf("%d sessions at once at most, want the cap: 2", m)
	}
	ends := map[time.Duration]bool{}
	for _, r := range results {
		ends[r.End] = true
	}
	for _, r := range results {
		switch {
		case r.Result != nil:
			t.Errorf("session %d has a stream's result", r.Call)
		case r.Turn != 1:
			t.Errorf("session %d is turn %d, want 1: one job a call", r.Call, r.Turn)
		case r.Call == 3 && !errors.Is(r.Err, failed):
			t.Errorf("session 3's error is %v, want the session's", r.Err)
		case r.Call != 3 && r.Err != nil:
			t.Errorf("session %d failed: %v", r.Call, r.Err)
		case r.Began != r.Start || r.End < r.Start || r.Start < r.Scheduled:
			t.Errorf("session %d: scheduled %v began %v start %v end %v", r.Call, r.Scheduled, r.Began, r.Start, r.End)
		case r.Call > 2 && !ends[r.Scheduled]:
			t.Errorf("session %d due at %v, which is no session's end: a closed loop's next call is due when one ended", r.Call, r.Scheduled)
		}
	}
}
