package load

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"ttftlab/internal/atomicfile"
)

// Barrier lets the shards of a run start together through a folder they
// all can write (a shared volume) and nothing else: each writes a ready
// file holding the wall-clock time it was ready, waits until all Count
// files are there, and starts at the same moment, computed from the files
// alone, so every shard finds the same one.
type Barrier struct {
	Dir          string // the run's folder of ready files
	Index, Count int
	Poll         time.Duration // how often to look for the others' files
}

// barrierLead is the least time between the last shard's ready time and
// the start: room for every shard to see the last file.
const barrierLead = time.Second

// readyFile is shard i's ready file in the barrier's folder.
func (b Barrier) readyFile(i int) string { return filepath.Join(b.Dir, fmt.Sprintf("ready-%d", i)) }

// Wait writes this shard's ready file, waits for every shard's and
// returns the start: the first whole second at least barrierLead after
// the latest ready time. waiting is told, about every 5 s, which shards
// have not written theirs yet. A start already past when the last file
// appears is returned as it is: the shard starts at once, late, and its
// level's started_unix_ms says by how much.
func (b Barrier) Wait(ctx context.Context, waiting func(missing []int)) (time.Time, error) {
	if err := os.MkdirAll(b.Dir, 0o755); err != nil {
		return time.Time{}, err
	}
	now := time.Now().UTC()
	if err := atomicfile.Write(b.readyFile(b.Index), []byte(now.Format(time.RFC3339Nano)+"\n"), 0o644); err != nil {
		return time.Time{}, err
	}
	poll := b.Poll
	if poll <= 0 {
		poll = 100 * time.Millisecond
	}
	tick := time.NewTicker(poll)
	defer tick.Stop()
	told := time.Now()
	for {
		latest, missing, err := b.look()
		if err != nil {
			return time.Time{}, err
		}
		if len(missing) == 0 {
			return latest.Add(barrierLead).Truncate(time.Second).Add(time.Second), nil
		}
		if waiting != nil && time.Since(told) >= 5*time.Second {
			waiting(missing)
			told = time.Now()
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			return time.Time{}, fmt.Errorf("%w while waiting for shard(s) %v", ctx.Err(), missing)
		}
	}
}

// look reads the ready files: the latest time among them and the shards
// without one.
func (b Barrier) look() (latest time.Time, missing []int, err error) {
	for i := 0; i < b.Count; i++ {
		data, err := os.ReadFile(b.readyFile(i))
		if os.IsNotExist(err) {
			missing = append(missing, i)
			continue
		}
		if err != nil {
			return time.Time{}, nil, err
		}
		t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(string(data)))
		if err != nil {
			return time.Time{}, nil, fmt.Errorf("%s holds %q, not a time: a file of another program, or of a shard of another version", b.readyFile(i), string(data))
		}
		if t.After(latest) {
			latest = t
		}
	}
	return latest, missing, nil
}
