package load

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"testing"
	"time"

	"ttftlab/internal/stream"
)

// slowly offers requests to url, each taking build to make.
func slowly(url string, build time.Duration) func(Turn) (Job, Status, error) {
	return func(Turn) (Job, Status, error) {
		time.Sleep(build)
		return Job{Request: stream.Request{URL: url, Body: body}}, Ready, nil
	}
}

// TestSlowBuilderShowsInQueue: a request that takes 50 ms to build is
// built once it is due, so every request starts at least 50 ms after its
// due time, and Start - Scheduled (queue_ms) shows it: in a closed loop,
// an open one (constant and Poisson) and voice calls of several turns.
func TestSlowBuilderShowsInQueue(t *testing.T) {
	url := startServer(t, &sseServer{pieces: 3, gap: time.Millisecond})
	const build = 50 * time.Millisecond
	for name, plan := range map[string]Plan{
		"closed loop":       {Concurrency: 2, Calls: 5},
		"open loop":         {Rate: 20, Calls: 5},
		"open loop poisson": {Rate: 20, Arrival: Poisson, Seed: 3, Calls: 5},
		"calls of 3 turns":  {Concurrency: 2, Calls: 3, Turns: 3, Think: Think{Min: 10 * time.Millisecond}},
	} {
		out := collect(t, plan, slowly(url, build))
		if want := plan.Calls * max(plan.Turns, 1); len(out) != want {
			t.Errorf("%s: %d results, want %d", name, len(out), want)
		}
		for _, r := range out {
			if r.Err != nil || r.Start-r.Scheduled < build {
				t.Errorf("%s: call %d turn %d: queue %v (due %v, started %v, %v), want at least the %v it took to build",
					name, r.Call, r.Turn, r.Start-r.Scheduled, r.Scheduled, r.Start, r.Err, build)
			}
		}
	}
}

// TestCallsFollowThePlan: each call's turns run in order, each due when
// the previous one ended plus the think time the plan draws for it; a new
// call is due when a place came free (a call's last turn ended); no more
// calls are in progress than the cap; a failed turn ends its call.
func TestCallsFollowThePlan(t *testing.T) {
	s := &sseServer{pieces: 3, gap: 2 * time.Millisecond, fault: func(n int) string {
		if n == 4 {
			return "400"
		}
		return ""
	}}
	url := startServer(t, s)
	plan := Plan{Concurrency: 2, Calls: 5, Turns: 3, Seed: 11, Think: Think{Min: 5 * time.Millisecond, Max: 20 * time.Millisecond}}
	turns := map[int]Turn{}
	out := collect(t, plan, func(t Turn) (Job, Status, error) {
		turns[t.Index] = t
		return Job{Request: stream.Request{URL: url, Body: body}}, Ready, nil
	})
	byCall := map[int][]Result{}
	for _, r := range out {
		byCall[r.Call] = append(byCall[r.Call], r)
	}
	if len(byCall) != 5 {
		t.Fatalf("%d calls ran, want 5", len(byCall))
	}
	failed := 0
	var lastEnds []time.Duration
	type span struct{ from, to time.Duration }
	var spans []span
	for call, rs := range byCall {
		sort.Slice(rs, func(i, j int) bool { return rs[i].Turn < rs[j].Turn })
		for k, r := range rs {
			if r.Turn != k+1 || turns[r.Index].Call != call {
				t.Errorf("call %d: its turn %d is numbered %d (request %d)", call, k+1, r.Turn, r.Index)
			}
			if k == 0 {
				if turns[r.Index].Prev != 0 {
					t.Errorf("call %d: its first turn has a previous one, %d", call, turns[r.Index].Prev)
				}
				continue
			}
			prev := rs[k-1]
			think, _ := plan.ThinkTime(call, r.Turn)
			if r.Scheduled != prev.End+think || turns[r.Index].Prev != prev.Index {
				t.Errorf("call %d turn %d due at %v (after request %d), want the end of turn %d (%v) + its think time %v",
					call, r.Turn, r.Scheduled, turns[r.Index].Prev, prev.Turn, prev.End, think)
			}
		}
		last := rs[len(rs)-1]
		if last.Err != nil {
			failed++
		} else if len(rs) != 3 {
			t.Errorf("call %d ended after %d turns without a failure", call, len(rs))
		}
		for _, r := range rs[:len(rs)-1] {
			if r.Err != nil {
				t.Errorf("call %d went on after its turn %d failed", call, r.Turn)
			}
		}
		lastEnds = append(lastEnds, last.End)
		spans = append(spans, span{rs[0].Start, last.End})
	}
	if failed != 1 {
		t.Errorf("%d calls ended with a failure, want the one whose request was refused", failed)
	}
	for call := 3; call <= 5; call++ {
		due, freed := byCall[call][0].Scheduled, false
		for _, e := range lastEnds {
			freed = freed || e == due
		}
		if !freed {
			t.Errorf("call %d due at %v, which is no call's end (%v)", call, due, lastEnds)
		}
	}
	for _, a := range spans {
		at := 0
		for _, b := range spans {
			if b.from <= a.from && a.from < b.to {
				at++
			}
		}
		if at > 2 {
			t.Errorf("%d calls in progress at %v, want at most 2", at, a.from)
		}
	}
}

// TestOpenLoopDueTimesAreTheSchedule: the due times of an open loop's
// calls are Plan.Arrivals, run after run for the same seed.
func TestOpenLoopDueTimesAreTheSchedule(t *testing.T) {
	url := startServer(t, &sseServer{pieces: 2, gap: time.Millisecond})
	plan := Plan{Rate: 400, Arrival: Poisson, Seed: 5, Calls: 30}
	want := plan.Arrivals(30)
	for run := 1; run <= 2; run++ {
		out := collect(t, plan, fixed(url, 1000))
		if len(out) != 30 {
			t.Fatalf("run %d: %d results", run, len(out))
		}
		for _, r := range out {
			if r.Scheduled != want[r.Call-1] {
				t.Errorf("run %d: call %d due at %v, the schedule says %v", run, r.Call, r.Scheduled, want[r.Call-1])
			}
		}
	}
}

// TestStopsWhenCallsAreOver: with Calls set, the loop ends after them
// without asking for more.
func TestStopsWhenCallsAreOver(t *testing.T) {
	url := startServer(t, &sseServer{pieces: 2, gap: time.Millisecond})
	asked := 0
	l, _ := New(Plan{Concurrency: 3, Calls: 4, Turns: 2})
	err := l.Run(context.Background(), Hooks{Next: func(t Turn) (Job, Status, error) {
		asked++
		return Job{Request: stream.Request{URL: url, Body: body}}, Ready, nil
	}})
	if err != nil || asked != 8 {
		t.Errorf("asked for %d requests (%v), want 4 calls of 2 turns", asked, err)
	}
}

// TestBeforeSpeaksTheTurn: a job's Before runs on the request's
// goroutine before its stream and may change the request (the server
// refuses the body the job was built with, and answers the one Before
// set); its turn began when Before began, the stream starting only after
// Before returned (Start - Began holds the 20 ms it slept). Before's
// error fails the turn without a stream, ends its call, and the other
// calls go on. Without Before, Began is Start.
func TestBeforeSpeaksTheTurn(t *testing.T) {
	s := &sseServer{pieces: 2, gap: time.Millisecond}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if bytes.Contains(b, []byte("placeholder")) {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		s.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	const speaking = 20 * time.Millisecond
	plan := Plan{Concurrency: 2, Calls: 3, Turns: 2}
	out := collect(t, plan, func(tn Turn) (Job, Status, error) {
		job := Job{Request: stream.Request{URL: srv.URL, Body: []byte(`{"placeholder":true}`)}}
		if tn.Call == 3 {
			job.Request.Body = body
			return job, Ready, nil // no Before
		}
		job.Before = func(ctx context.Context, req *stream.Request) error {
			time.Sleep(speaking) // the caller speaks
			if tn.Call == 2 && tn.Turn == 1 {
				return errors.New("no transcript")
			}
			req.Body = body
			return nil
		}
		return job, Ready, nil
	})
	calls := map[int]int{}
	for _, r := range out {
		calls[r.Call]++
		switch {
		case r.Call == 2:
			if r.BeforeErr == nil || !r.Failed() || r.Result != nil || r.Err != nil {
				t.Errorf("call 2: a failed Before gave %+v", r)
			}
		case r.Call == 3:
			if r.Began != r.Start || r.Failed() {
				t.Errorf("call 3 (no Before): began %v, started %v, %v", r.Began, r.Start, r.Err)
			}
		default:
			if r.Failed() || r.Start-r.Began < speaking || r.Began < r.Scheduled {
				t.Errorf("call %d turn %d: due %v, began %v, started %v (want %v later at least), %v", r.Call, r.Turn, r.Scheduled, r.Began, r.Start, speaking, r.Err)
			}
		}
	}
	if calls[1] != 2 || calls[2] != 1 || calls[3] != 2 {
		t.Errorf("turns by call %v, want 2, 1 (its first failed) and 2", calls)
	}
	if n := s.served.Load(); n != 4 {
		t.Errorf("the server got %d requests, want 4 (none for the turn whose Before failed)", n)
	}
}
