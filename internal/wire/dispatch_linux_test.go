package wire

import (
	"context"
	"fmt"
	"net"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// parked reports whether h's caller goroutine waits in take.
func parked(h *Handoff) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.waiting
}

// waitParked waits until every goroutine of hs waits in take.
func waitParked(t *testing.T, hs []*Handoff) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for i := 0; i < len(hs); {
		if parked(hs[i]) {
			i++
			continue
		}
		if time.Now().After(deadline) {
			t.Fatalf("goroutine %d never parked", i)
		}
		time.Sleep(100 * time.Microsecond)
	}
}

// One post wakes every goroutine of a batch: 200 goroutines, each parked
// on a hand-off of its own, are handed one read each and woken by a single
// post, round after round; each gets every read, in order, with the stamp
// it was pushed with, and the dispatcher writes its eventfd at most once a
// round.
func TestDispatcherWakesAWholeBatch(t *testing.T) {
	const streams, rounds = 200, 30
	d, err := newDispatcher()
	if err != nil {
		t.Fatal(err)
	}
	defer d.shutdown()
	hs := make([]*Handoff, streams)
	for i := range hs {
		hs[i] = NewHandoff()
	}
	errs := make(chan error, streams)
	var wg sync.WaitGroup
	for i, h := range hs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				m := h.Next()
				want := fmt.Sprintf("%d/%d", i, r)
				if string(m.Data) != want || m.St.At != time.Duration(i*rounds+r) {
					errs <- fmt.Errorf("stream %d, round %d: got %q stamped %v, want %q stamped %v",
						i, r, m.Data, m.St.At, want, time.Duration(i*rounds+r))
					return
				}
			}
		}()
	}
	for r := range rounds {
		waitParked(t, hs)
		batch := make([]*Handoff, 0, streams)
		for i, h := range hs {
			h.Push(Msg{Data: fmt.Appendf(nil, "%d/%d", i, r), St: Stamp{At: time.Duration(i*rounds + r)}})
			if !h.claim() {
				t.Fatalf("round %d: stream %d parked with a read queued, but not claimed", r, i)
			}
			batch = append(batch, h)
		}
		d.post(batch)
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case err := <-errs:
		t.Fatal(err)
	case <-time.After(20 * time.Second):
		t.Fatal("reads posted to the dispatcher were never delivered")
	}
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if w := d.writes.Load(); w > rounds {
		t.Errorf("%d eventfd writes for %d posts of %d wake-ups each", w, rounds, streams)
	}
}

// openFDs counts this process's descriptors.
func openFDs(t *testing.T) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(fds)
}

// pollerStreams is a listener and n poller-mode connections to it, with
// the server's ends.
type pollerStreams struct {
	clk     Clock
	clients []*Conn
	servers []net.Conn
}

func openPollerStreams(t *testing.T, ln net.Listener, n int) *pollerStreams {
	t.Helper()
	ps := &pollerStreams{clk: NewClock()}
	for range n {
		c, err := Dial(context.Background(), ln.Addr().String(), Options{Clock: ps.clk})
		if err != nil {
			t.Fatal(err)
		}
		s, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Start(ModeEpoll, -1); err != nil {
			t.Fatal(err)
		}
		ps.clients, ps.servers = append(ps.clients, c), append(ps.servers, s)
	}
	return ps
}

func (ps *pollerStreams) close() {
	for i, c := range ps.clients {
		c.Close()
		c.Release()
		ps.servers[i].Close()
	}
}

// Many poller streams, their goroutines parked, are written to all at
// once, round after round: every stream gets every round's line, in order,
// in reads stamped after the write began and before the caller had them;
// none is lost when the poller wakes many goroutines from one batch.
func TestPollerStreamsGetEveryReadInOrder(t *testing.T) {
	const streams, rounds = 128, 40
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	ps := openPollerStreams(t, ln, streams)
	defer ps.close()
	hs := make([]*Handoff, streams)
	for i, c := range ps.clients {
		hs[i] = c.Handoff()
	}
	sent := make([]atomic.Int64, rounds) // just before round r's first write
	got := make(chan error, streams)     // errors only
	var roundDone, ended sync.WaitGroup
	ended.Add(streams)
	for i, h := range hs {
		go func() {
			defer ended.Done()
			var text strings.Builder
			for r := range rounds {
				want := fmt.Sprintf("%d/%d\n", i, r)
				for !strings.HasSuffix(text.String(), want) {
					m := h.Next()
					now := ps.clk.Now()
					if m.Err != nil {
						got <- fmt.Errorf("stream %d, round %d: %v", i, r, m.Err)
						return
					}
					if from := time.Duration(sent[r].Load()); m.St.At < from || m.St.At > now {
						got <- fmt.Errorf("stream %d, round %d: read stamped %v, written from %v, taken at %v", i, r, m.St.At, from, now)
						return
					}
					text.Write(m.Data)
				}
				roundDone.Done()
			}
			var all strings.Builder
			for r := range rounds {
				fmt.Fprintf(&all, "%d/%d\n", i, r)
			}
			if text.String() != all.String() {
				got <- fmt.Errorf("stream %d got %q, want %q", i, text.String(), all.String())
			}
		}()
	}
	for r := range rounds {
		waitParked(t, hs)
		roundDone.Add(streams)
		sent[r].Store(int64(ps.clk.Now()))
		for i, s := range ps.servers {
			if _, err := fmt.Fprintf(s, "%d/%d\n", i, r); err != nil {
				t.Fatal(err)
			}
		}
		done := make(chan struct{})
		go func() { roundDone.Wait(); close(done) }()
		select {
		case <-done:
		case err := <-got:
			t.Fatal(err)
		case <-time.After(20 * time.Second):
			t.Fatalf("round %d: a stream never got its line", r)
		}
	}
	ended.Wait()
	close(got)
	for err := range got {
		t.Fatal(err)
	}
}

// The poller's streams share the dispatcher's eventfd: a stream open adds
// its socket and nothing else (and the server's end, here).
func TestPollerStreamsHaveNoDescriptorOfTheirOwn(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	first := openPollerStreams(t, ln, 1) // the poller runs from here on
	defer first.close()
	const n = 64
	before := openFDs(t)
	ps := openPollerStreams(t, ln, n)
	defer ps.close()
	if added := openFDs(t) - before; added != 2*n {
		t.Errorf("%d streams with their server ends added %d descriptors, want %d", n, added, 2*n)
	}
}

// When the last stream is released, the poller and its dispatcher stop:
// no goroutine and no descriptor is left, and a poller started afterwards
// works as the first did.
func TestPollerShutdownLeavesNothing(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	settle := func(fds, goroutines int) (int, int) {
		deadline := time.Now().Add(10 * time.Second)
		for {
			f, g := openFDs(t), runtime.NumGoroutine()
			if (f <= fds && g <= goroutines) || time.Now().After(deadline) {
				return f, g
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	fds, goroutines := openFDs(t), runtime.NumGoroutine()
	for round := range 3 {
		ps := openPollerStreams(t, ln, 32)
		for i, s := range ps.servers {
			fmt.Fprintf(s, "%d\n", i)
		}
		for i, c := range ps.clients {
			if m := c.Handoff().Next(); string(m.Data) != fmt.Sprintf("%d\n", i) {
				t.Fatalf("round %d, stream %d: got %q", round, i, m.Data)
			}
		}
		pollers.mu.Lock()
		running := pollers.cur != nil
		pollers.mu.Unlock()
		if !running {
			t.Fatal("no poller while streams are open")
		}
		ps.close()
		pollers.mu.Lock()
		p := pollers.cur
		pollers.mu.Unlock()
		if p != nil {
			t.Fatalf("round %d: the poller still runs with no stream open", round)
		}
		if f, g := settle(fds, goroutines); f > fds || g > goroutines {
			t.Fatalf("round %d: %d descriptors and %d goroutines after, %d and %d before", round, f, g, fds, goroutines)
		}
	}
}
