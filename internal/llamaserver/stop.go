package llamaserver

import (
	"fmt"
	"syscall"
	"time"
)

// StopPID ends a llama-server that another ttftlab process started: SIGTERM,
// up to grace for it to exit, then SIGKILL. It refuses a PID that no longer
// runs llama-server, so a recycled PID is never signalled. killed reports
// whether SIGKILL was needed.
func StopPID(pid int, grace time.Duration) (killed bool, err error) {
	if !ProcessRuns(pid, "llama-server") {
		return false, fmt.Errorf("PID %d does not run llama-server", pid)
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		return false, fmt.Errorf("SIGTERM to PID %d: %w", pid, err)
	}
	if waitGone(pid, grace) {
		return false, nil
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		return true, fmt.Errorf("SIGKILL to PID %d: %w", pid, err)
	}
	if !waitGone(pid, 5*time.Second) {
		return true, fmt.Errorf("PID %d survived SIGKILL", pid)
	}
	return true, nil
}

func waitGone(pid int, limit time.Duration) bool {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if !ProcessRuns(pid, "llama-server") {
			return true
		}
		time.Sleep(50 * time.Millisecond)
	}
	return !ProcessRuns(pid, "llama-server")
}
