package cli

import (
	"context"
	"errors"
	"fmt"
	"regexp"

	"ttftlab/runtime"
)

// Exit codes.
const (
	exitOK          = 0
	exitFailure     = 1
	exitUsage       = 2
	exitInterrupted = 130
)

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
	switch {
	case err == nil, errors.Is(err, errHelp):
		return exitOK
	case errors.As(err, &code):
		return int(code)
	case errors.As(err, &scriptExit):
		return scriptExit.Code
	case errors.As(err, &usage):
		fmt.Fprintf(e.Err, "%s: %v\n\n%s", label(usage.cmd), usage.err, usage.usage)
		return exitUsage
	case errors.Is(err, context.Canceled) || e.signals.fired():
		fmt.Fprintf(e.Err, "%s: interrupted%s\n", label(e.cmd), stoppedAt(err))
		return exitInterrupted
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
