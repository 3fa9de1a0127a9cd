package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// signals is the process's one signal set-up, made by Main. The first
// SIGINT, SIGTERM or SIGHUP cancels the command's context (the command
// stops what it does and cleans up); a second one exits at once, after the
// hard-exit hooks have stopped what the command started. The REPL takes
// the signals over while it runs, since there Ctrl-C stops one statement.
type signals struct {
	ch   chan os.Signal
	errw io.Writer
	done chan struct{}

	mu      sync.Mutex
	cancel  context.CancelFunc
	what    string           // what the first signal stops, for its message
	count   int              // signals seen
	forward chan<- os.Signal // set while the REPL takes the signals
	hooks   []func()
}

func watchSignals(errw io.Writer) *signals {
	s := &signals{ch: make(chan os.Signal, 4), errw: errw, done: make(chan struct{})}
	signal.Notify(s.ch, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go s.loop()
	return s
}

// context is the command's context: cancelled by the first signal.
func (s *signals) context(parent context.Context) context.Context {
	ctx, cancel := context.WithCancel(parent)
	s.mu.Lock()
	s.cancel = cancel
	s.mu.Unlock()
	return ctx
}

// describe sets what the first signal stops, e.g. "stopping the script";
// "" prints nothing.
func (s *signals) describe(what string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.what = what
}

// takeOver sends every signal to ch until restore is called.
func (s *signals) takeOver(ch chan<- os.Signal) (restore func()) {
	s.mu.Lock()
	s.forward = ch
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		s.forward = nil
		s.mu.Unlock()
	}
}

// onHardExit adds a hook that runs before a second signal exits at once.
func (s *signals) onHardExit(f func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hooks = append(s.hooks, f)
}

// hardExit runs the hooks and ends the process with code.
func (s *signals) hardExit(code int) {
	s.mu.Lock()
	hooks := s.hooks
	s.mu.Unlock()
	for _, f := range hooks {
		f()
	}
	os.Exit(code)
}

// fired reports whether a signal arrived (outside the REPL).
func (s *signals) fired() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.count > 0
}

func (s *signals) stop() {
	signal.Stop(s.ch)
	close(s.done)
}

func (s *signals) loop() {
	for {
		select {
		case sig := <-s.ch:
			s.handle(sig)
		case <-s.done:
			return
		}
	}
}

func (s *signals) handle(sig os.Signal) {
	s.mu.Lock()
	if s.forward != nil {
		fwd := s.forward
		s.mu.Unlock()
		select {
		case fwd <- sig:
		default: // the REPL has signals waiting already
		}
		return
	}
	s.count++
	n, what, cancel := s.count, s.what, s.cancel
	s.mu.Unlock()
	if n == 1 {
		if what != "" {
			fmt.Fprintf(s.errw, "\nttftlab: %v: %s (again to exit at once)\n", sig, what)
		}
		if cancel != nil {
			cancel()
		}
		return
	}
	fmt.Fprintln(s.errw, "ttftlab: exiting at once")
	s.hardExit(exitInterrupted)
}
