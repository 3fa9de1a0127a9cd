package runtime

import (
	"errors"
	"fmt"
	"strings"

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

// WriteError is a file a binding could not write (a full disk, too many
// open files); its message names the file and why. It is no fault of the
// script: a run it ends ends as one hostError ends, without a Lua stack
// traceback, and the run's *ScriptError wraps it (errors.As), so the
// caller can finish what the run left (load completes load.json).
type WriteError struct{ Err error }

func (e *WriteError) Error() string { return e.Err.Error() }
func (e *WriteError) Unwrap() error { return e.Err }
