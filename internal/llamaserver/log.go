package llamaserver

import (
	"errors"
	"fmt"
	"os"
)

// serverLog is the file a starting server writes to (see
// Options.RotateLog).
type serverLog struct {
	f            *os.File
	path, staged string // staged: where f is until place; "" when appending to path
}

// openLog opens the log a server is about to write. Without rotate, it
// appends to path. With rotate, the server writes to a new file beside
// it, which place makes the log once the process runs: the previous log
// is kept as path.1, so evidence (a "cancel task" line, the last lines
// after a failed start) is never taken from an earlier run, and a start
// that never launched changes nothing.
func openLog(path string, rotate bool) (*serverLog, error) {
	l := &serverLog{path: path}
	name, flags := path, os.O_CREATE|os.O_WRONLY|os.O_APPEND
	if rotate {
		l.staged = path + ".new"
		name, flags = l.staged, os.O_CREATE|os.O_WRONLY|os.O_TRUNC
	}
	f, err := os.OpenFile(name, flags, 0o644)
	if err != nil {
		return nil, fmt.Errorf("llama-server log: %w", err)
	}
	l.f = f
	return l, nil
}

// place moves the previous log to path.1 and the new one to path; the
// running server keeps writing to it under its new name.
func (l *serverLog) place() error {
	if l.staged == "" {
		return nil
	}
	if err := os.Rename(l.path, l.path+".1"); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("keeping the previous log as %s.1: %w", l.path, err)
	}
	if err := os.Rename(l.staged, l.path); err != nil {
		return fmt.Errorf("llama-server log: %w", err)
	}
	return nil
}

// discard removes the new log of a server that did not launch.
func (l *serverLog) discard() {
	if l.staged != "" {
		os.Remove(l.staged)
	}
}
