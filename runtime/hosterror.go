package runtime

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	lua "github.com/yuin/gopher-lua"
)

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
