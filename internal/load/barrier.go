package load

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"ttftlab/internal/atomicfile"
)

// Barrier lets the shards of a run start together through a folder they
// all can write (a shared volume) and nothing else: each writes a ready
// file holding the wall-clock time it was ready, waits until all Count
// files are there, and starts at the same moment, computed from the files
// alone, so every shard finds the same one.
//
// A ready file is a lease: it names the process that holds it (pid and
// host) and when that process last renewed it, every barrierRenew for as
// long as the shard runs. A file whose lease has lapsed (not renewed for
// barrierLapse), whose process is gone (same host and pid namespace, no
// such pid), or that
// holds no lease (a ttftlab before leases) belongs to no live shard: the
// others wait on as if it were missing, and say why.
type Barrier struct {
	Dir          string // the run's folder of ready files
	Index, Count int
	Poll         time.Duration // how often to look for the others' files
	// Host names this machine in the lease; os.Hostname() when empty.
	Host string
	// Ready, when set, is called once this shard's ready file is written:
	// the shard is ready only then (a folder it cannot write fails
	// before).
	Ready func()
}

// barrierLead is the least time between the last shard's ready time and
// the start: room for every shard to see the last file.
const barrierLead = time.Second

// barrierRenew is how often a shard renews its ready file's lease, and
// barrierLapse how old a lease may be before it counts as lapsed: many
// renewals, so a slow shared volume does not make a live shard stale.
var (
	barrierRenew = time.Second
	barrierLapse = 15 * time.Second
)

// readyFile is shard i's ready file in the barrier's folder.
func (b Barrier) readyFile(i int) string { return filepath.Join(b.Dir, fmt.Sprintf("ready-%d", i)) }

// lease is a ready file's content.
type lease struct {
	Ready time.Time `json:"ready"`
	Pid   int       `json:"pid"`
	Host  string    `json:"host"`
	// PidNS names the holder's pid namespace (Linux), so that a pid is
	// looked up only where it means that process: containers of one pod
	// share a host name but not their pids.
	PidNS string `json:"pid_ns,omitempty"`
	// Renewed is when the holder last renewed the lease.
	Renewed time.Time `json:"renewed"`
}

// Lease is this shard's hold on its ready file; Release stops renewing
// it (the shard's run has ended).
type Lease struct {
	once sync.Once
	stop func()
}

// Release stops renewing the ready file; it may be called more than once.
func (l *Lease) Release() {
	if l != nil {
		l.once.Do(l.stop)
	}
}

// Wait writes this shard's ready file, waits for every shard's live one
// and returns the start: the first whole second at least barrierLead
// after the latest ready time, and the lease, which it renews until
// released. waiting is told, about every 5 s, which shards have no live
// file yet, and why a file there does not count (stale). A start already
// past when the last file appears is returned as it is: the shard starts
// at once, late, and its level's started_unix_ms says by how much. When
// the wait ends without a start (ctx), this shard's ready file is
// removed: no shard waits on a shard that has gone.
func (b Barrier) Wait(ctx context.Context, waiting func(missing []int, stale []string)) (time.Time, *Lease, error) {
	if err := os.MkdirAll(b.Dir, 0o755); err != nil {
		return time.Time{}, nil, err
	}
	if b.Host == "" {
		b.Host, _ = os.Hostname()
	}
	mine := lease{Ready: time.Now().UTC(), Pid: os.Getpid(), Host: b.Host, PidNS: pidNamespace()}
	renew := func() error {
		mine.Renewed = time.Now().UTC()
		data, err := json.Marshal(mine)
		if err != nil {
			return err
		}
		return atomicfile.Write(b.readyFile(b.Index), append(data, '\n'), 0o644)
	}
	if err := renew(); err != nil {
		return time.Time{}, nil, err
	}
	if b.Ready != nil {
		b.Ready()
	}
	done := make(chan struct{})
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		t := time.NewTicker(barrierRenew)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				renew() // a failed renewal is retried; only a lapse of many counts
			case <-done:
				return
			}
		}
	}()
	l := &Lease{stop: func() { close(done); <-ended }}
	start, err := b.wait(ctx, waiting)
	if err != nil {
		l.Release()
		os.Remove(b.readyFile(b.Index))
		return time.Time{}, nil, err
	}
	return start, l, nil
}

func (b Barrier) wait(ctx context.Context, waiting func(missing []int, stale []string)) (time.Time, error) {
	poll := b.Poll
	if poll <= 0 {
		poll = 100 * time.Millisecond
	}
	tick := time.NewTicker(poll)
	defer tick.Stop()
	told := time.Now()
	for {
		latest, missing, stale, err := b.look()
		if err != nil {
			return time.Time{}, err
		}
		if len(missing) == 0 {
			return latest.Add(barrierLead).Truncate(time.Second).Add(time.Second), nil
		}
		if waiting != nil && time.Since(told) >= 5*time.Second {
			waiting(missing, stale)
			told = time.Now()
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			why := ""
			if len(stale) > 0 {
				why = " (" + strings.Join(stale, "; ") + ")"
			}
			return time.Time{}, fmt.Errorf("%w while waiting for shard(s) %v%s", ctx.Err(), missing, why)
		}
	}
}

// look reads the ready files: the latest ready time among the live ones,
// the shards without a live one, and why each file there is not live.
func (b Barrier) look() (latest time.Time, missing []int, stale []string, err error) {
	now := time.Now()
	for i := 0; i < b.Count; i++ {
		path := b.readyFile(i)
		data, err := os.ReadFile(path)
		if os.IsNotExist(err) {
			missing = append(missing, i)
			continue
		}
		if err != nil {
			return time.Time{}, nil, nil, err
		}
		var l lease
		if jerr := json.Unmarshal(data, &l); jerr != nil || l.Ready.IsZero() {
			if _, terr := time.Parse(time.RFC3339Nano, strings.TrimSpace(string(data))); terr == nil {
				missing = append(missing, i)
				stale = append(stale, fmt.Sprintf("%s holds a time but no lease: left by an earlier ttftlab, it names no live shard", path))
				continue
			}
			return time.Time{}, nil, nil, fmt.Errorf("%s holds %q, not a ready file: a file of another program, or of a shard of another version", path, string(data))
		}
		if why := b.lapsed(l, now); why != "" {
			missing = append(missing, i)
			stale = append(stale, fmt.Sprintf("%s is stale: %s", path, why))
			continue
		}
		if l.Ready.After(latest) {
			latest = l.Ready
		}
	}
	return latest, missing, stale, nil
}

// lapsed says why a lease belongs to no live shard, "" when it does.
func (b Barrier) lapsed(l lease, now time.Time) string {
	if ns := pidNamespace(); l.Host == b.Host && ns != "" && l.PidNS == ns && l.Pid > 0 && !processAlive(l.Pid) {
		return fmt.Sprintf("process %d on %s, which wrote it, has ended", l.Pid, l.Host)
	}
	if age := now.Sub(l.Renewed); age > barrierLapse {
		return fmt.Sprintf("process %d on %s last renewed it %s ago (a live shard renews it every %s)", l.Pid, l.Host, age.Round(time.Second), barrierRenew)
	}
	return ""
}

// pidNamespace names this process's pid namespace, "" where the system
// does not say.
func pidNamespace() string {
	ns, _ := os.Readlink("/proc/self/ns/pid")
	return ns
}

// processAlive says whether a process of this pid runs on this machine
// (one of another user's counts: signal 0 is refused, not unknown).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
