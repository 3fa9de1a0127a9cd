package repl

import (
	"fmt"
	"os"
)

// watchSignals handles Config.Signals until the returned stop is called.
func (s *session) watchSignals() (stop func()) {
	if s.cfg.Signals == nil {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		for {
			select {
			case sig := <-s.cfg.Signals:
				s.onSignal(sig)
			case <-done:
				return
			}
		}
	}()
	return func() { close(done) }
}

// onSignal runs on the signal goroutine. Ctrl-C cancels the running
// statement: the VM stops between instructions, blocking bindings return,
// an open stream closes its connection. At a terminal's prompt Ctrl-C is a
// key, not a signal, so a SIGINT then comes from elsewhere and is ignored;
// reading a pipe it ends the session.
func (s *session) onSignal(sig os.Signal) {
	if sig != os.Interrupt {
		fmt.Fprintf(s.cfg.Err, "\nttftlab repl: %v: exiting\n", sig)
		s.exitNow(signalExitCode(sig))
		return
	}
	s.mu.Lock()
	cancel := s.cancel
	if cancel != nil {
		s.interrupts++
	}
	n := s.interrupts
	s.mu.Unlock()
	switch {
	case cancel == nil && s.cfg.Terminal:
	case cancel == nil:
		s.exitNow(130)
	case n == 1:
		cancel()
	default:
		fmt.Fprintln(s.cfg.Err, "\nttftlab repl: Ctrl-C again: exiting at once")
		s.exitNow(130)
	}
}

// exitNow restores the terminal and ends the process.
func (s *session) exitNow(code int) {
	if s.input != nil {
		s.input.Close()
	}
	s.cfg.HardExit(code)
}
