// Package repl is ttftlab's interactive prompt: it reads Lua statements,
// runs them in one runtime.VM, prints their values, and offers completion,
// history, continuation lines for incomplete input, :commands and Ctrl-C
// that stops the running statement (and any stream it has open) without
// ending the session.
//
// On a terminal it uses peterh/liner for line editing. Elsewhere (a pipe, a
// file) it reads statements without prompts or colours, so sessions can be
// scripted and tested.
package repl

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"

	"ttftlab/runtime"
)

// Config is what a session needs.
type Config struct {
	// VM runs the statements; the session adds the stdlib modules (and
	// ask) as globals.
	VM *runtime.VM
	// Terminal selects line editing on the process's own terminal
	// (os.Stdin, os.Stdout). Otherwise statements are read from In.
	Terminal bool
	// In is read when Terminal is false.
	In io.Reader
	// Out receives values and summaries, Err error messages. They should
	// be the VM's Stdout and Stderr, so output stays in order.
	Out, Err io.Writer
	// Load lists files to run before the first prompt (-l); :reload runs
	// them again.
	Load []string
	// HistoryFile keeps the terminal's history across sessions; "" keeps
	// none. Ignored without Terminal.
	HistoryFile string
	// Signals delivers SIGINT (cancels the running statement; a second one
	// while it still runs exits at once), SIGTERM and SIGHUP (exit at
	// once). nil: no signal handling.
	Signals <-chan os.Signal
	// HardExit ends the process at once with code, after the session has
	// restored the terminal. nil means os.Exit.
	HardExit func(code int)
}

// Run runs a session until end of input, :quit or os.exit in Lua and
// returns the exit code: the os.exit code, else 0, except that without a
// terminal a session in which a statement failed ends with 1.
func Run(cfg Config) int {
	if cfg.HardExit == nil {
		cfg.HardExit = os.Exit
	}
	s := newSession(cfg)
	in, err := s.openInput()
	if err != nil {
		fmt.Fprintf(cfg.Err, "ttftlab repl: %v\n", err)
		return 1
	}
	// Restore the terminal on every way out: return, panic, and (in the
	// signal goroutine) SIGTERM, SIGHUP and a second Ctrl-C.
	s.input = in
	defer in.Close()
	stop := s.watchSignals()
	defer stop()
	s.setup()
	return s.loop()
}

// loop reads and runs chunks until the session ends.
func (s *session) loop() int {
	for s.exitCode == nil {
		chunk, err := s.readChunk()
		switch {
		case errors.Is(err, io.EOF):
			if s.cfg.Terminal {
				fmt.Fprintln(s.cfg.Out)
			}
			return s.endCode()
		case errors.Is(err, errAborted):
			continue
		case err != nil:
			s.errorf("reading input: %v", err)
			return 1
		}
		s.handle(chunk)
	}
	return *s.exitCode
}

// endCode is the exit code at end of input.
func (s *session) endCode() int {
	if s.failed && !s.cfg.Terminal {
		return 1
	}
	return 0
}

// signalExitCode is the conventional 128+N exit code of a signal.
func signalExitCode(sig os.Signal) int {
	if n, ok := sig.(syscall.Signal); ok {
		return 128 + int(n)
	}
	return 130
}
