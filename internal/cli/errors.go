package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"syscall"

	"ttftlab/runtime"
)

// Exit codes. A command that a signal stopped exits with signalExit.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
	// exitGate is a CI gate that failed (load's --fail-below,
	// --max-error-rate): the run itself went well.
	exitGate = 3
)

// gateError is a CI gate that failed: exit 3 and its message.
type gateError struct{ msg string }

func (e *gateError) Error() string { return e.msg }

// signalExit is the exit code of a command that sig stopped: 128 plus the
// signal's number, as a shell reports a process the signal killed: 129
// SIGHUP, 130 SIGINT (Ctrl-C, and a context cancelled from outside: nil),
// 141 SIGPIPE (the reader of the output has gone), 143 SIGTERM.
func signalExit(sig os.Signal) int {
	if n, ok := sig.(syscall.Signal); ok {
		return 128 + int(n)
	}
	return 128 + int(syscall.SIGINT)
}

// stoppedBy is how the message of a stopped command says what stopped it.
func stoppedBy(sig os.Signal) string {
	switch sig {
	case syscall.SIGTERM:
		return "terminated (SIGTERM)"
	case syscall.SIGHUP:
		return "hung up (SIGHUP)"
	}
	return "interrupted"
}

// usageError is a command line that cannot run: exit 2, the message, then
// the command's usage.
type usageError struct {
	cmd   string
	usage string
	err   error
}

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// exitCode ends a command with a code and nothing more to say: what
// happened was already printed (check's failed checks, a lab step that
// failed, a server that is down).
type exitCode int

func (c exitCode) Error() string { return fmt.Sprintf("exit status %d", int(c)) }

// exit prints a command's error once and returns the exit code for it.
func (e *env) exit(err error) int {
	var usage *usageError
	var code exitCode
	var scriptExit *runtime.ExitError
	var gate *gateError
	stop := e.signals.stopped()
	if stop == syscall.SIGPIPE {
		// The output's reader has gone: whatever the command says next
		// cannot reach it, and its output is cut short.
		return signalExit(stop)
	}
	switch {
	case err == nil, errors.Is(err, errHelp):
		return exitOK
	case errors.As(err, &code):
		return int(code)
	case errors.As(err, &scriptExit):
		return scriptExit.Code
	case errors.As(err, &gate):
		fmt.Fprintf(e.Err, "%s: %v\n", label(e.cmd), gate)
		return exitGate
	case errors.As(err, &usage):
		fmt.Fprintf(e.Err, "%s: %v\n\n%s", label(usage.cmd), usage.err, usage.usage)
		return exitUsage
	case errors.Is(err, context.Canceled) || stop != nil:
		at := ""
		if e.cmd == "run" {
			// Only run's script is the user's; a line of the lab's or
			// load's own scripts says nothing to who pressed Ctrl-C.
			at = stoppedAt(err)
		}
		fmt.Fprintf(e.Err, "%s: %s%s\n", label(e.cmd), stoppedBy(stop), at)
		return signalExit(stop)
	}
	fmt.Fprintf(e.Err, "%s: %v\n", label(e.cmd), err)
	return exitFailure
}

// label is how messages name a command: "ttftlab server up".
func label(cmd string) string {
	if cmd == "" {
		return "ttftlab"
	}
	return "ttftlab " + cmd
}

// scriptPosition is the "file:line" a Lua error message starts with.
var scriptPosition = regexp.MustCompile(`^([^\s:]+:\d+):`)

// stoppedAt says where an interrupted script stopped (" at file:line"),
// "" when that is not known; the cancel's own message and traceback say
// nothing more to the user who pressed Ctrl-C.
func stoppedAt(err error) string {
	var se *runtime.ScriptError
	if errors.As(err, &se) {
		if m := scriptPosition.FindStringSubmatch(se.Message); m != nil {
			return " at " + m[1]
		}
	}
	return ""
}
