package load

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestBarrierStartsTogether: shards that arrive at different moments all
// get the same start, a whole second at least a second after the last
// one's ready time; a shard that never comes is named when the wait is
// given up.
func TestBarrierStartsTogether(t *testing.T) {
	dir := t.TempDir()
	const n = 3
	starts := make([]time.Time, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	var lastReady time.Time
	var mu sync.Mutex
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(time.Duration(i) * 30 * time.Millisecond)
			mu.Lock()
			if now := time.Now(); now.After(lastReady) {
				lastReady = now
			}
			mu.Unlock()
			b := Barrier{Dir: dir, Index: i, Count: n, Poll: 5 * time.Millisecond}
			starts[i], errs[i] = b.Wait(context.Background(), nil)
		}()
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("shard %d: %v", i, errs[i])
		}
		if !starts[i].Equal(starts[0]) {
			t.Errorf("shard %d starts at %v, shard 0 at %v", i, starts[i], starts[0])
		}
	}
	if starts[0].Nanosecond() != 0 || starts[0].Sub(lastReady) < barrierLead {
		t.Errorf("start %v: want a whole second at least %v after the last shard was ready (%v)", starts[0], barrierLead, lastReady)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := Barrier{Dir: t.TempDir(), Index: 0, Count: 3, Poll: 5 * time.Millisecond}.Wait(ctx, nil)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "[1 2]") {
		t.Errorf("a barrier shards 1 and 2 never reach: %v", err)
	}
}
