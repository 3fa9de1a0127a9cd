package load

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"ttftlab/internal/stream"
)

var body = []byte(`{"messages":[{"role":"user","content":"hi"}],"stream":true}`)

// sseServer answers every request with pieces content events, gap apart,
// and counts the requests in flight.
type sseServer struct {
	pieces   int
	gap      time.Duration
	inFlight atomic.Int32
	maxIn    atomic.Int32
	served   atomic.Int32
	// fault, when set, decides per request: "" to stream, "reset" to drop
	// the connection mid-stream, "400" to refuse.
	fault func(n int) string
}

func (s *sseServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := int(s.served.Add(1))
	in := s.inFlight.Add(1)
	defer s.inFlight.Add(-1)
	for m := s.maxIn.Load(); in > m && !s.maxIn.CompareAndSwap(m, in); m = s.maxIn.Load() {
	}
	fault := ""
	if s.fault != nil {
		fault = s.fault(n)
	}
	if fault == "400" {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(`{"error":{"code":400,"message":"bad","type":"invalid_request_error"}}`))
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	f := w.(http.Flusher)
	for i := 0; i < s.pieces; i++ {
		if fault == "reset" && i == s.pieces/2 {
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.(*net.TCPConn).SetLinger(0)
			conn.Close()
			return
		}
		select {
		case <-r.Context().Done():
			return
		case <-time.After(s.gap):
		}
		fmt.Fprintf(w, "data: {\"choices\":[{\"delta\":{\"content\":\"w%d \"},\"finish_reason\":null,\"index\":0}]}\n\n", i)
		f.Flush()
	}
	fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\",\"index\":0}],\"timings\":{\"prompt_n\":5,\"cache_n\":0,\"predicted_n\":3}}\n\ndata: [DONE]\n\n")
}

func startServer(t *testing.T, s *sseServer) string {
	t.Helper()
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return srv.URL
}

// fixed offers n requests to url.
func fixed(url string, n int) func(Turn) (Job, Status, error) {
	return func(t Turn) (Job, Status, error) {
		if t.Index > n {
			return Job{}, Done, nil
		}
		return Job{Request: stream.Request{URL: url, Body: body}}, Ready, nil
	}
}

func collect(t *testing.T, plan Plan, next func(Turn) (Job, Status, error)) []Result {
	t.Helper()
	l, err := New(plan)
	if err != nil {
		t.Fatal(err)
	}
	var out []Result
	err = l.Run(context.Background(), Hooks{Next: next, Finished: func(r Result) (bool, error) {
		out = append(out, r)
		return true, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestClosedLoopKeepsTheCap(t *testing.T) {
	s := &sseServer{pieces: 4, gap: 5 * time.Millisecond}
	url := startServer(t, s)
	out := collect(t, Plan{Concurrency: 3}, fixed(url, 12))
	if len(out) != 12 {
		t.Fatalf("%d results, want 12", len(out))
	}
	seen := map[int]bool{}
	for _, r := range out {
		if r.Err != nil || !r.Result.Info.Done || len(r.Result.Chunks) != 4 {
			t.Errorf("request %d: %v, %+v", r.Index, r.Err, r.Result.Info)
		}
		if r.Start < r.Scheduled {
			t.Errorf("request %d started (%v) before it was due (%v)", r.Index, r.Start, r.Scheduled)
		}
		seen[r.Index] = true
	}
	if len(seen) != 12 {
		t.Errorf("indexes %v, want 1..12 once each", seen)
	}
	if m := s.maxIn.Load(); m != 3 {
		t.Errorf("at most %d requests were in flight at once, want exactly the cap 3", m)
	}
}

// TestOpenLoopReportsQueueing: starts due faster than a capped, slow
// server can take them queue up, and queue_ms shows it.
func TestOpenLoopReportsQueueing(t *testing.T) {
	s := &sseServer{pieces: 3, gap: 10 * time.Millisecond}
	url := startServer(t, s)
	out := collect(t, Plan{Rate: 200, Concurrency: 1}, fixed(url, 8))
	byIndex := map[int]Result{}
	for _, r := range out {
		byIndex[r.Index] = r
	}
	first, last := byIndex[1], byIndex[8]
	q1, q8 := first.Start-first.Scheduled, last.Start-last.Scheduled
	if !(q8 > q1) || !(q8 > 5*(last.Scheduled-byIndex[7].Scheduled)) {
		t.Errorf("queue of the first %v, of the last %v: want the queue to grow far beyond the gap between starts", q1, q8)
	}
	if byIndex[2].Scheduled-first.Scheduled != 5*time.Millisecond {
		t.Errorf("constant arrivals at 200/s are 5 ms apart, got %v", byIndex[2].Scheduled-first.Scheduled)
	}
}

// TestFaultsAreResults: resets and refusals under load are results with
// their kind; every request is accounted for, nothing is left behind.
func TestFaultsAreResults(t *testing.T) {
	s := &sseServer{pieces: 6, gap: time.Millisecond, fault: func(n int) string {
		switch {
		case n%10 == 3:
			return "reset"
		case n%20 == 7:
			return "400"
		}
		return ""
	}}
	url := startServer(t, s)
	collect(t, Plan{Concurrency: 4}, fixed(url, 4)) // warm the test's own pools
	goroutines, fds := settle(t, -1, 0), openFDs()
	out := collect(t, Plan{Concurrency: 8}, fixed(url, 100))
	kinds := map[stream.Kind]int{}
	for _, r := range out {
		var se *stream.Error
		switch {
		case r.Err == nil:
			kinds["ok"]++
		case errors.As(r.Err, &se):
			kinds[se.Kind]++
		default:
			t.Errorf("request %d: an error without a kind: %v", r.Index, r.Err)
		}
	}
	if len(out) != 100 || kinds[stream.KindHTTP] == 0 || kinds[stream.KindDropped]+kinds[stream.KindTruncated] == 0 || kinds["ok"] < 80 {
		t.Errorf("%d results, kinds %v", len(out), kinds)
	}
	if n := kinds["ok"] + kinds[stream.KindHTTP] + kinds[stream.KindDropped] + kinds[stream.KindTruncated]; n != 100 {
		t.Errorf("kinds %v do not add up to 100", kinds)
	}
	settle(t, goroutines, 0)
	if after := openFDs(); fds >= 0 && after > fds {
		t.Errorf("%d file descriptors open after the run, %d before", after, fds)
	}
	if n := settleReaders(); n > 0 {
		t.Errorf("%d reader threads still wait after the run, want none", n)
	}
}

// readerThreads counts the threads that wait where only the stream
// package's readers wait: epoll_pwait2 (its poller) or recvmsg (a
// WireThread reader). Go keeps idle threads for later, so threads are told
// apart by the system call they block in: Go's netpoller uses
// epoll_pwait, its idle threads futex. -1 when /proc cannot tell.
func readerThreads() int {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return -1
	}
	n := 0
	for _, task := range tasks {
		b, err := os.ReadFile("/proc/self/task/" + task.Name() + "/syscall")
		if err != nil {
			continue // the thread is gone
		}
		nr := strings.Fields(string(b) + " x")[0]
		if nr == "441" || nr == strconv.Itoa(syscall.SYS_RECVMSG) {
			n++
		}
	}
	return n
}

// settleReaders gives the last reader a moment to end (the poller stops
// once the last stream is released) and returns what is left.
func settleReaders() int {
	deadline := time.Now().Add(5 * time.Second)
	n := readerThreads()
	for n > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		n = readerThreads()
	}
	return n
}

func TestStopsAfterDurationAndOnRequest(t *testing.T) {
	s := &sseServer{pieces: 2, gap: 5 * time.Millisecond}
	url := startServer(t, s)
	out := collect(t, Plan{Rate: 100, Duration: 100 * time.Millisecond}, fixed(url, 1000))
	if len(out) < 5 || len(out) > 12 {
		t.Errorf("%d results in 100 ms at 100/s", len(out))
	}
	l, _ := New(Plan{Concurrency: 1})
	n := 0
	err := l.Run(context.Background(), Hooks{Next: fixed(url, 1000), Finished: func(Result) (bool, error) {
		n++
		return n < 3, nil
	}})
	if err != nil || n != 3 {
		t.Errorf("Finished returning false after 3: %d results, %v", n, err)
	}
}

func TestCancelCutsWhatRuns(t *testing.T) {
	s := &sseServer{pieces: 1000, gap: 5 * time.Millisecond}
	url := startServer(t, s)
	l, _ := New(Plan{Concurrency: 4})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	var out []Result
	l.Run(ctx, Hooks{Next: fixed(url, 100), Finished: func(r Result) (bool, error) {
		out = append(out, r)
		return true, nil
	}})
	if len(out) != 4 {
		t.Fatalf("%d results, want the 4 that were running", len(out))
	}
	for _, r := range out {
		var se *stream.Error
		if !errors.As(r.Err, &se) || se.Kind != stream.KindCanceled || !r.Result.Info.Cut || len(r.Result.Chunks) == 0 {
			t.Errorf("request %d: %v, cut %v, %d chunks", r.Index, r.Err, r.Result.Info.Cut, len(r.Result.Chunks))
		}
	}
}

// TestWait: a source can hold a turn until a running request ends; the
// turn stays due since its moment, so the wait is in its queue.
func TestWait(t *testing.T) {
	s := &sseServer{pieces: 2, gap: 10 * time.Millisecond}
	url := startServer(t, s)
	done := 0
	var results []Result
	l, _ := New(Plan{Concurrency: NoLimit, Calls: 3})
	err := l.Run(context.Background(), Hooks{
		Next: func(t Turn) (Job, Status, error) {
			if t.Index > done+1 {
				return Job{}, Wait, nil // one after the other
			}
			return Job{Request: stream.Request{URL: url, Body: body}}, Ready, nil
		},
		Finished: func(r Result) (bool, error) {
			done++
			results = append(results, r)
			return true, nil
		},
	})
	if err != nil || len(results) != 3 {
		t.Fatalf("%d results, %v", len(results), err)
	}
	for i, r := range results {
		if r.Index != i+1 || r.Call != i+1 || r.Scheduled != 0 {
			t.Errorf("request %d: call %d due at %v, want call %d due at the start (no cap)", r.Index, r.Call, r.Scheduled, i+1)
		}
		if i > 0 && r.Start < results[i-1].End {
			t.Errorf("request %d started at %v, before the one it waited for ended (%v)", r.Index, r.Start, results[i-1].End)
		}
		if i > 0 && r.Start-r.Scheduled < results[i-1].End {
			t.Errorf("request %d: queue %v hides its wait for request %d (ended at %v)", r.Index, r.Start-r.Scheduled, i, results[i-1].End)
		}
	}
}

// settle waits for the goroutine count to come down to want (-1: to take
// whatever it settles at) and returns it.
func settle(t *testing.T, want, slack int) int {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	n := runtime.NumGoroutine()
	for want >= 0 && n > want+slack && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		n = runtime.NumGoroutine()
	}
	if want >= 0 && n > want+slack {
		buf := make([]byte, 1<<16)
		t.Errorf("%d goroutines after the run, %d before:\n%s", n, want, buf[:runtime.Stack(buf, true)])
	}
	return n
}

func openFDs() int {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(entries)
}
