package stream

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"testing"
	"time"
)

// resources counts what a stream could leave behind.
type resources struct{ goroutines, threads, fds int }

func countResources(t *testing.T) resources {
	t.Helper()
	entries := func(dir string) int {
		es, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		return len(es)
	}
	return resources{runtime.NumGoroutine(), entries("/proc/self/task"), entries("/proc/self/fd")}
}

// No goroutine, OS thread or file descriptor outlives a stream, however it
// ends: finished, cut by time or by the callback, failed, or cancelled
// (Ctrl-C). A first round lets Go's scheduler grow its pool of idle
// threads, which it keeps; the count after three more rounds must then be
// back to the count before them. Servers of this process finish their side
// of a connection a moment after the client, so the count may take a
// moment to come back.
func TestNothingLeftBehind(t *testing.T) {
	scenarios := leakScenarios(t)
	round := func() {
		for _, w := range wires {
			for name, run := range scenarios {
				if err := run(w); err != nil {
					t.Fatalf("%s on %s: %v", name, w, err)
				}
			}
		}
	}
	// The first stream of the process also opens the socket that keeps the
	// kernel's receive stamps on (kstamp_linux.go), for good.
	if err := scenarios["finished"](WireEpoll); err != nil {
		t.Fatal(err)
	}
	first := settle(t, resources{})
	round()
	before := settle(t, resources{})
	for range 3 {
		round()
	}
	if after := settle(t, before); after.goroutines > before.goroutines || after.threads > before.threads || after.fds > before.fds {
		t.Fatalf("after %d streams: %+v, before them %+v", 3*len(wires)*len(scenarios), after, before)
	}
	// Goroutines and descriptors, unlike idle threads, are not pooled: with
	// no stream open the poller is gone too.
	if after := settle(t, resources{first.goroutines, 1 << 30, first.fds}); after.goroutines > first.goroutines || after.fds > first.fds {
		t.Fatalf("with no stream open: %d goroutines and %d descriptors, %d and %d before the first stream",
			after.goroutines, after.fds, first.goroutines, first.fds)
	}
}

// settle waits until the counts are at most want (or, with want zero, stop
// changing) and returns them.
func settle(t *testing.T, want resources) resources {
	deadline := time.Now().Add(5 * time.Second)
	prev := countResources(t)
	for time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		now := countResources(t)
		if want != (resources{}) && now.goroutines <= want.goroutines && now.threads <= want.threads && now.fds <= want.fds {
			return now
		}
		if want == (resources{}) && now == prev {
			return now
		}
		prev = now
	}
	return prev
}

func leakScenarios(t *testing.T) map[string]func(Wire) error {
	done := newServer(t, &scripted{parts: []string{roleEvent(), contentEvent("a"), finalEvent("stop"), doneEvent}}).URL
	endless := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		newEndless(time.Millisecond).ServeHTTP(w, r)
	})).URL
	failing := newServer(t, &scripted{parts: []string{contentEvent("a"), `data: {"error":{"message":"boom"}}` + "\n\n"}}).URL
	refused := closedPort(t)
	do := func(ctx context.Context, req Request) (*Result, error) {
		req.Body = chatBody()
		return Do(ctx, req)
	}
	want := func(res *Result, err error, ok func(*Result, error) bool) error {
		if !ok(res, err) {
			return fmt.Errorf("unexpected outcome: info %+v, err %v", res.Info, err)
		}
		return nil
	}
	return map[string]func(Wire) error{
		"finished": func(w Wire) error {
			res, err := do(context.Background(), Request{URL: done, Wire: w})
			return want(res, err, func(r *Result, err error) bool { return err == nil && r.Info.Done })
		},
		"cut after": func(w Wire) error {
			res, err := do(context.Background(), Request{URL: endless, Wire: w, CutAfter: 20 * time.Millisecond})
			return want(res, err, func(r *Result, err error) bool { return err == nil && r.Info.Cut })
		},
		"cut by the callback": func(w Wire) error {
			res, err := do(context.Background(), Request{URL: endless, Wire: w, OnChunk: func(c Chunk) (bool, error) { return c.Index < 3, nil }})
			return want(res, err, func(r *Result, err error) bool { return err == nil && r.Info.Cut })
		},
		"server error": func(w Wire) error {
			res, err := do(context.Background(), Request{URL: failing, Wire: w})
			return want(res, err, func(r *Result, err error) bool { return err != nil && len(r.Chunks) == 1 })
		},
		"refused": func(w Wire) error {
			res, err := do(context.Background(), Request{URL: refused, Wire: w})
			return want(res, err, func(r *Result, err error) bool { return err != nil })
		},
		"ctrl-c": func(w Wire) error {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			res, err := do(ctx, Request{URL: endless, Wire: w, OnChunk: func(c Chunk) (bool, error) {
				if c.Index == 2 {
					go cancel() // as a signal handler would, from elsewhere
				}
				return true, nil
			}})
			return want(res, err, func(r *Result, err error) bool { return err != nil && r.Info.Cut })
		},
	}
}
