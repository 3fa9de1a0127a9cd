package calibrate

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// alive reports whether pid is a process that has not exited (a zombie
// counts as gone).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	return err != nil || !strings.Contains(string(stat), ") Z ")
}

// The spinners run while the schedules do, really burn CPU, and are gone
// when Run returns, also when it is cancelled halfway (Ctrl-C). No time
// of this run is held to a constant: a spinner's CPU time must grow over
// half a second of the run (a sleeping process's does not), and Run must
// end because of the cancel, inside a schedule far longer than the test.
func TestContentionStartsAndStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := Steady(200, 600)
	started, grew := make(chan []int, 1), make(chan []time.Duration, 1)
	go func() {
		pids := <-started
		before := make([]time.Duration, len(pids))
		for i, pid := range pids {
			before[i] = processCPU(pid)
		}
		time.Sleep(500 * time.Millisecond)
		growth := make([]time.Duration, len(pids))
		for i, pid := range pids {
			growth[i] = processCPU(pid) - before[i]
		}
		grew <- growth
		cancel()
	}()
	var pids []int
	o := Options{Schedules: []Schedule{s}, Contend: 2, StampsPath: filepath.Join(t.TempDir(), "s.tsv"),
		Spinning: func(c *Contention) { pids = c.Pids(); started <- pids }}
	rep, err := Run(ctx, o)
	if err != nil && !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	if rep == nil || ctx.Err() == nil {
		t.Fatalf("Run returned (%v) before the cancel", err)
	}
	for _, sr := range rep.Schedules {
		for _, c := range sr.Clients {
			if c.Received >= s.Chunks {
				t.Errorf("%s received all %d chunks of a %v schedule: Run did not stop on the cancel", c.Client, c.Received, s.Duration())
			}
		}
	}
	if len(pids) != 2 || rep.ContendedBy != 2 {
		t.Fatalf("pids %v, report says %d", pids, rep.ContendedBy)
	}
	for _, pid := range pids {
		if alive(pid) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("spinner %d outlived Run", pid)
		}
	}
	for i, g := range <-grew {
		if g <= 0 {
			t.Errorf("spinner %d used no CPU over half a second of the run: not spinning", pids[i])
		}
	}
}

// processCPU is a process's user+system time from /proc (0 if gone).
func processCPU(pid int) time.Duration {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	utime, _ := strconv.Atoi(f[11])
	stime, _ := strconv.Atoi(f[12])
	return time.Duration(utime+stime) * 10 * time.Millisecond // USER_HZ is 100 on Linux
}
