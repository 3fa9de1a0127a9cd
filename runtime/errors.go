package runtime

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	lua "github.com/yuin/gopher-lua"
)

// ExitError reports that the script called os.exit(Code). The host decides
// what to do with the code (usually: clean up, then exit with it).
type ExitError struct{ Code int }

func (e *ExitError) Error() string { return fmt.Sprintf("script called os.exit(%d)", e.Code) }

// ScriptError is a Lua error that ended a run.
type ScriptError struct {
	// Message starts with "file:line:" when Lua knows the position.
	Message string
	// Traceback is a short Lua stack traceback, "" when none.
	Traceback string
	// Err is the cause when it is a Go error: context.Canceled or
	// context.DeadlineExceeded when the run was stopped from outside.
	Err error
}

func (e *ScriptError) Error() string {
	if e.Traceback == "" {
		return e.Message
	}
	return e.Message + "\n" + e.Traceback
}

func (e *ScriptError) Unwrap() error { return e.Err }

// maxTraceFrames keeps tracebacks short: the interesting frames are the
// innermost ones.
const maxTraceFrames = 8

// scriptError converts what PCall returned.
func scriptError(err error, cause error) error {
	var ae *lua.ApiError
	if !errors.As(err, &ae) {
		return &ScriptError{Message: err.Error(), Err: cause}
	}
	msg := ae.Object.String()
	if ae.Type == lua.ApiErrorPanic {
		msg = "internal error: " + msg
	}
	return &ScriptError{Message: msg, Traceback: shortTrace(ae.StackTrace), Err: cause}
}

// shortTrace drops the uninformative "[G]: ?" bottom frame and limits the
// number of frames.
func shortTrace(trace string) string {
	lines := strings.Split(strings.TrimSpace(trace), "\n")
	var kept []string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || t == "[G]: ?" || t == "stack traceback:" {
			continue
		}
		kept = append(kept, "\t"+t)
	}
	if len(kept) == 0 {
		return ""
	}
	if len(kept) > maxTraceFrames {
		kept = append(kept[:maxTraceFrames], "\t...")
	}
	return "stack traceback:\n" + strings.Join(kept, "\n")
}

// hostError raises a host function's failure that is not the Lua code's:
// the user's input (a --kb folder that does not exist) or the world's
// answer (a server that refused the connection, an answer that is not an
// LLM server's). The message says what to fix, so the run ends with it
// and the script's position but no Lua stack traceback; tracebacks are
// for errors in the Lua code itself (a nil index, a bad call).
func (vm *VM) hostError(L *lua.LState, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	vm.hostErr, vm.writeErr = msg, nil
	L.RaiseError("%s", msg)
}

// WriteError is a file a binding could not write (a full disk, too many
// open files); its message names the file and why. It is no fault of the
// script: a run it ends ends as one hostError ends, without a Lua stack
// traceback, and the run's *ScriptError wraps it (errors.As), so the
// caller can finish what the run left (load completes load.json).
type WriteError struct{ Err error }

func (e *WriteError) Error() string { return e.Err.Error() }
func (e *WriteError) Unwrap() error { return e.Err }

// writeError raises a failed write, prefix (the binding) before the
// error's own message (see WriteError).
func (vm *VM) writeError(L *lua.LState, prefix string, err error) {
	msg := prefix + err.Error()
	vm.hostErr, vm.writeErr = msg, &WriteError{Err: err}
	L.RaiseError("%s", msg)
}

// dropHostTrace removes the traceback of an error that hostError (or
// writeError) raised and that left the script unchanged or with words put
// in front (a pcall that raised it again), and of any error of a preflight
// run: that run only checks the inputs (the --kb folder, the steps named),
// so what stops it is an input to fix, named with its line. An error that
// writeError raised is wrapped as the run's cause, unless the run was
// stopped from outside.
func (vm *VM) dropHostTrace(err error) error {
	var se *ScriptError
	if !errors.As(err, &se) {
		return err
	}
	mine := vm.hostErr != "" && strings.HasSuffix(se.Message, vm.hostErr)
	if vm.cfg.Preflight || mine {
		se.Traceback = ""
	}
	if mine && vm.writeErr != nil && se.Err == nil {
		se.Err = vm.writeErr
	}
	return err
}

// warned holds the warnings printed so far by this process: a command
// runs a script in more than one VM (the lab's preflight, then the lab),
// and each warning shows once.
var warned sync.Map

// warnOnce prints a warning on the script's standard error the first
// time it comes up in this process.
func (vm *VM) warnOnce(msg string) {
	if _, seen := warned.LoadOrStore(msg, true); seen {
		return
	}
	fmt.Fprintf(vm.cfg.Stderr, "ttftlab: warning: %s\n", msg)
}
