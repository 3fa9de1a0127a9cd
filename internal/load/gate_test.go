package load

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"ttftlab/internal/stream"
)

// blockedSends offers n requests whose Sent hook waits for release: a
// request that has written stays in the start gate (the hook runs before
// the gate lets go) unless gateHold lets the next one in.
func blockedSends(url string, n int, sent *atomic.Int32, release <-chan struct{}) func(Turn) (Job, Status, error) {
	return func(t Turn) (Job, Status, error) {
		if t.Index > n {
			return Job{}, Done, nil
		}
		req := stream.Request{URL: url, Body: body, Sent: func() {
			sent.Add(1)
			<-release
		}}
		return Job{Request: req}, Ready, nil
	}
}

// TestStartGateLetsFewStartAtOnce: with every start held at its first
// write, only gateSize() requests get that far; once let go, all run, and
// the wait at the gate shows in their start (queue_ms), not in their
// ttft.
func TestStartGateLetsFewStartAtOnce(t *testing.T) {
	defer func(h time.Duration) { gateHold = h }(gateHold)
	gateHold = time.Hour
	url := startServer(t, &sseServer{pieces: 2, gap: time.Millisecond})
	var sent atomic.Int32
	release := make(chan struct{})
	const n = 20
	done := runAsync(Plan{Concurrency: n}, blockedSends(url, n, &sent, release))
	deadline := time.Now().Add(5 * time.Second)
	for int(sent.Load()) < gateSize() && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	// Time for any more to get through, if the gate leaked. It is also
	// the least every request behind the gate waits: all were due at the
	// run's start and none could write before the release below.
	const held = 100 * time.Millisecond
	time.Sleep(held)
	if got := int(sent.Load()); got != gateSize() {
		t.Errorf("%d requests wrote while the first ones held the gate, want the gate's %d", got, gateSize())
	}
	close(release)
	out := (<-done).results
	if len(out) != n {
		t.Fatalf("%d results, want %d", len(out), n)
	}
	late := 0
	for _, r := range out {
		if r.Err != nil {
			t.Errorf("request %d: %v", r.Index, r.Err)
		}
		if r.Start-r.Scheduled >= held {
			late++
		}
	}
	if late < n-gateSize() {
		t.Errorf("%d requests show the wait at the gate (at least the %v it was held) in Start - Scheduled, want at least %d", late, held, n-gateSize())
	}
}

// TestStartGateHoldsBriefly: a request that has not written within
// gateHold (a connection waiting on the network) no longer holds the
// others back.
func TestStartGateHoldsBriefly(t *testing.T) {
	defer func(h time.Duration) { gateHold = h }(gateHold)
	gateHold = 5 * time.Millisecond
	url := startServer(t, &sseServer{pieces: 2, gap: time.Millisecond})
	var sent atomic.Int32
	release := make(chan struct{})
	const n = 20
	done := runAsync(Plan{Concurrency: n}, blockedSends(url, n, &sent, release))
	deadline := time.Now().Add(5 * time.Second)
	for sent.Load() < n && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if got := sent.Load(); got != n {
		t.Errorf("%d of %d requests wrote while earlier ones were held past gateHold", got, n)
	}
	close(release)
	if got := <-done; got.err != nil || len(got.results) != n {
		t.Errorf("%d results (%v), want %d", len(got.results), got.err, n)
	}
}

type runOutcome struct {
	results []Result
	err     error
}

// runAsync runs a plan on its own goroutine (which must not call t.Fatal).
func runAsync(plan Plan, next func(Turn) (Job, Status, error)) <-chan runOutcome {
	done := make(chan runOutcome, 1)
	go func() {
		l, err := New(plan)
		if err != nil {
			done <- runOutcome{err: err}
			return
		}
		var out []Result
		err = l.Run(context.Background(), Hooks{Next: next, Finished: func(r Result) (bool, error) {
			out = append(out, r)
			return true, nil
		}})
		done <- runOutcome{out, err}
	}()
	return done
}
