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
// when Run returns, also when it is cancelled halfway (Ctrl-C).
func TestContentionStartsAndStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := Steady(200, 5)
	started, burnt := make(chan []int, 1), make(chan time.Duration, 1)
	go func() {
		pids := <-started
		time.Sleep(500 * time.Millisecond)
		var cpu time.Duration
		for _, pid := range pids {
			cpu += processCPU(pid)
		}
		burnt <- cpu
		cancel()
	}()
	var pids []int
	o := Options{Schedules: []Schedule{s}, Contend: 2, StampsPath: filepath.Join(t.TempDir(), "s.tsv"),
		Spinning: func(c *Contention) { pids = c.Pids(); started <- pids }}
	start := time.Now()
	rep, err := Run(ctx, o)
	if took := time.Since(start); (err != nil && !errors.Is(err, context.Canceled)) || took > s.Duration()/2 {
		t.Fatalf("err %v after %v: want a prompt stop on the cancel", err, took)
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
	if spinCPU := <-burnt; spinCPU < 100*time.Millisecond {
		t.Errorf("the spinners used %v of CPU in their first half second: not spinning", spinCPU)
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
