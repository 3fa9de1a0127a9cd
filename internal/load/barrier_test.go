package load

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
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
			var l *Lease
			starts[i], l, errs[i] = b.Wait(context.Background(), nil)
			l.Release()
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
	_, _, err := Barrier{Dir: t.TempDir(), Index: 0, Count: 3, Poll: 5 * time.Millisecond}.Wait(ctx, nil)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "[1 2]") {
		t.Errorf("a barrier shards 1 and 2 never reach: %v", err)
	}
}

// TestBarrierIgnoresStaleReadyFiles: a ready file that belongs to no live
// shard (its process has ended on this host, its lease was not renewed
// for longer than barrierLapse, or it holds a bare time as a ttftlab
// before leases wrote) does not let shard 1 start alone: it waits on,
// and when the wait is given up the error names shard 0 and why its file
// does not count; its own ready file is removed. A live shard 0's file
// (this process, renewed now) lets it start.
func TestBarrierIgnoresStaleReadyFiles(t *testing.T) {
	if pidNamespace() == "" {
		t.Skip("the system does not name pid namespaces: a pid is never looked up")
	}
	ended := exec.Command("true")
	if err := ended.Run(); err != nil {
		t.Skip("cannot run true:", err)
	}
	host, _ := os.Hostname()
	now := time.Now().UTC()
	write := func(dir string, v any) {
		data, ok := v.(string)
		if !ok {
			b, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			data = string(b)
		}
		if err := os.WriteFile(filepath.Join(dir, "ready-0"), []byte(data+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name string
		file any
		want string
	}{
		{"its process has ended", lease{Ready: now, Pid: ended.Process.Pid, Host: host, PidNS: pidNamespace(), Renewed: now},
			"which wrote it, has ended"},
		{"its lease lapsed", lease{Ready: now.Add(-time.Hour), Pid: 1, Host: "another-machine", Renewed: now.Add(-time.Hour)},
			"last renewed it 1h0m"},
		{"no lease", now.Add(-time.Minute).Format(time.RFC3339Nano), "holds a time but no lease"},
	} {
		dir := t.TempDir()
		write(dir, tc.file)
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		_, _, err := Barrier{Dir: dir, Index: 1, Count: 2, Poll: 5 * time.Millisecond}.Wait(ctx, nil)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "shard(s) [0]") ||
			!strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: shard 1 did not wait on, naming shard 0 and %q: %v", tc.name, tc.want, err)
		}
		if _, err := os.Stat(filepath.Join(dir, "ready-1")); !os.IsNotExist(err) {
			t.Errorf("%s: shard 1 left its ready file when it gave up the wait: %v", tc.name, err)
		}
	}
	dir := t.TempDir()
	write(dir, lease{Ready: now, Pid: os.Getpid(), Host: host, PidNS: pidNamespace(), Renewed: now})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, l, err := Barrier{Dir: dir, Index: 1, Count: 2, Poll: 5 * time.Millisecond}.Wait(ctx, nil)
	if err != nil {
		t.Errorf("a live shard 0's ready file: %v", err)
	}
	l.Release()
}
