package stream

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// resources counts what a stream could leave behind. Go keeps idle threads
// for later, so threads are counted by what they wait in: the readers'
// threads block in epoll_pwait2 (the poller) or recvmsg (WireThread),
// which neither Go's runtime (its netpoller uses epoll_pwait, its idle
// threads futex) nor the test servers (read) ever do.
// sysEpollPwait2 is the system call the poller waits in (wire's
// epollWait).
const sysEpollPwait2 = 441

type resources struct{ goroutines, readerThreads, fds int }

func countResources(t *testing.T) resources {
	t.Helper()
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	readers := 0
	for _, task := range tasks {
		b, err := os.ReadFile("/proc/self/task/" + task.Name() + "/syscall")
		if err != nil {
			continue // the thread is gone
		}
		nr, err := strconv.Atoi(strings.Fields(string(b) + " x")[0])
		if err == nil && (nr == sysEpollPwait2 || nr == unix.SYS_RECVMSG) {
			readers++
		}
	}
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return resources{runtime.NumGoroutine(), readers, len(fds)}
}

// No goroutine, reader thread or file descriptor outlives a stream,
// however it ends: finished, cut by time or by the callback, failed, or
// cancelled (Ctrl-C). The count after four rounds of every way must be
// back to the count before them, and with no stream open no reader thread
// waits. Servers of this process finish their side of a connection a
// moment after the client, so the count may take a moment to come back.
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
	if after := settle(t, before); after.goroutines > before.goroutines || after.readerThreads > before.readerThreads || after.fds > before.fds {
		t.Fatalf("after %d streams: %+v, before them %+v", 3*len(wires)*len(scenarios), after, before)
	}
	// With no stream open the poller is gone too.
	if after := settle(t, first); after.goroutines > first.goroutines || after.fds > first.fds || after.readerThreads != 0 {
		t.Fatalf("with no stream open: %+v; before the first stream %+v", after, first)
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
		if want != (resources{}) && now.goroutines <= want.goroutines && now.readerThreads <= want.readerThreads && now.fds <= want.fds {
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
	tlsServer := func(h http.Handler) *httptest.Server {
		srv := httptest.NewUnstartedServer(h)
		srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused certificate's handshake errors
		srv.StartTLS()
		t.Cleanup(srv.Close)
		return srv
	}
	secure := tlsServer(&scripted{parts: []string{roleEvent(), contentEvent("a"), finalEvent("stop"), doneEvent}})
	secureEndless := tlsServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		newEndless(time.Millisecond).ServeHTTP(w, r)
	}))
	conf := secure.Client().Transport.(*http.Transport).TLSClientConfig // httptest's one certificate
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
		"https finished": func(w Wire) error {
			res, err := do(context.Background(), Request{URL: secure.URL, Wire: w, TLS: conf})
			return want(res, err, func(r *Result, err error) bool { return err == nil && r.Info.Done })
		},
		"https cut after": func(w Wire) error {
			res, err := do(context.Background(), Request{URL: secureEndless.URL, Wire: w, TLS: conf, CutAfter: 20 * time.Millisecond})
			return want(res, err, func(r *Result, err error) bool { return err == nil && r.Info.Cut })
		},
		"https certificate refused": func(w Wire) error {
			res, err := do(context.Background(), Request{URL: secure.URL, Wire: w})
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
