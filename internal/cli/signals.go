package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// signals is the process's one signal set-up, made by Main. The first
// SIGINT, SIGTERM or SIGHUP cancels the command's context (the command
// stops what it does and cleans up: a llama-server it started is stopped);
// a second one exits at once, after the hard-exit hooks have stopped what
// the command started. A broken standard output (`ttftlab lab | head -1`)
// stops the command as the first signal does, without a word: Go would
// otherwise end the process at the first write with SIGPIPE and leave a
// started llama-server behind. The exit code names what stopped the
// command (signalExit). The REPL takes the signals over while it runs,
// since there Ctrl-C stops one statement.
type signals struct {
	ch   chan os.Signal
	errw io.Writer
	done chan struct{}

	mu     sync.Mutex
	cancel context.CancelFunc
	what   string // what the first signal stops, for its message
	// stop is what stopped the command: the first signal, or SIGPIPE for
	// an output whose reader has gone; nil while nothing has.
	stop    os.Signal
	forward chan<- os.Signal // set while the REPL takes the signals
	hooks   []func()
}

// watchSignals sets the signals up for a command run with stdio, whose
// Out and Err it wraps to notice a reader that has gone (watchPipe).
func watchSignals(stdio *Stdio) *signals {
	s := &signals{ch: make(chan os.Signal, 4), done: make(chan struct{})}
	stdio.Out, stdio.Err = s.watchPipe(stdio.Out), s.watchPipe(stdio.Err)
	s.errw = stdio.Err
	// Notifying SIGPIPE turns a write to a broken pipe on standard output
	// or error, which would kill the process, into an EPIPE error and a
	// signal here.
	signal.Notify(s.ch, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGPIPE)
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

// takeOver sends every signal but SIGPIPE to ch until restore is called.
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

// stopped is what stopped the command (outside the REPL): a signal,
// SIGPIPE for a broken output, nil when nothing did.
func (s *signals) stopped() os.Signal {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stop
}

func (s *signals) stopWatching() {
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
	if sig == syscall.SIGPIPE {
		// A write to a socket whose peer has gone raises SIGPIPE too; that
		// write fails with EPIPE and its caller handles it.
		if outputBroken() {
			s.outputGone()
		}
		return
	}
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
	first := s.stop == nil
	if first {
		s.stop = sig
	}
	what, cancel := s.what, s.cancel
	s.mu.Unlock()
	if first {
		if what != "" {
			fmt.Fprintf(s.errw, "\nttftlab: %v: %s (again to exit at once)\n", sig, what)
		}
		if cancel != nil {
			cancel()
		}
		return
	}
	fmt.Fprintln(s.errw, "ttftlab: exiting at once")
	s.hardExit(signalExit(sig))
}

// outputGone stops the command as a first signal does, silently: the
// reader of its output has gone, so nothing more can be said there. A
// signal that came first keeps its exit code.
func (s *signals) outputGone() {
	s.mu.Lock()
	first := s.stop == nil
	if first {
		s.stop = syscall.SIGPIPE
	}
	cancel := s.cancel
	s.mu.Unlock()
	if first && cancel != nil {
		cancel()
	}
}

// outputBroken reports whether standard output or standard error is a
// pipe or socket whose reader has gone (poll says POLLERR or POLLHUP;
// a terminal or a file never does while writable).
func outputBroken() bool {
	fds := []unix.PollFd{{Fd: 1, Events: unix.POLLOUT}, {Fd: 2, Events: unix.POLLOUT}}
	if _, err := unix.Poll(fds, 0); err != nil {
		return false
	}
	for _, f := range fds {
		if f.Revents&(unix.POLLERR|unix.POLLHUP) != 0 {
			return true
		}
	}
	return false
}

// pipeWriter is standard output or error for the commands: a write that
// fails because the reader has gone (EPIPE) stops the command at once,
// before the failed write returns, so the exit code says so however the
// command goes on.
type pipeWriter struct {
	f *os.File
	s *signals
}

func (w pipeWriter) Write(p []byte) (int, error) {
	n, err := w.f.Write(p)
	if errors.Is(err, syscall.EPIPE) {
		w.s.outputGone()
	}
	return n, err
}

// watchPipe wraps the process's own standard output or error in a
// pipeWriter; other writers (a test's buffer) are returned as they are.
func (s *signals) watchPipe(w io.Writer) io.Writer {
	if f, ok := w.(*os.File); ok {
		return pipeWriter{f: f, s: s}
	}
	return w
}

// fileOf is the file under w: the process's own stream behind a
// pipeWriter, else w itself when it is a file, else nil.
func fileOf(w io.Writer) *os.File {
	switch w := w.(type) {
	case pipeWriter:
		return w.f
	case *os.File:
		return w
	}
	return nil
}
