package repl

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/runtime"
	"ttftlab/stdlib"
)

// chunkName names statements typed at the prompt in error messages
// ("stdin:1: ..."), as the standalone lua interpreter does.
const chunkName = "stdin"

// session is one REPL run. Everything but the signal goroutine's fields
// (under mu) is used from the goroutine that called Run.
type session struct {
	cfg   Config
	vm    *runtime.VM
	L     *lua.LState
	input input
	color bool
	// loaded are the files run so far (-l, :load), for :reload.
	loaded []string
	// failed is set when a statement failed (the exit code without a
	// terminal).
	failed bool
	// exitCode ends the session when set (:quit, os.exit).
	exitCode *int
	// linesRead counts the input's lines; chunkLine is the line the chunk
	// being read started on.
	linesRead, chunkLine int
	// lastTrace is the traceback of the last error, for :trace.
	lastTrace string

	mu sync.Mutex
	// cancel stops the statement running now; nil at the prompt.
	cancel context.CancelFunc
	// interrupts counts Ctrl-Cs during the running statement.
	interrupts int
}

func newSession(cfg Config) *session {
	// Colours only on a terminal, and not when NO_COLOR asks for none.
	color := cfg.Terminal && os.Getenv("NO_COLOR") == ""
	return &session{cfg: cfg, vm: cfg.VM, L: cfg.VM.State(), color: color}
}

// setup makes the stdlib modules globals (stats.median at the prompt
// without a require) and runs the -l files.
func (s *session) setup() {
	for _, name := range moduleNames() {
		if s.L.GetGlobal(name) != lua.LNil {
			continue
		}
		if _, err := s.vm.Eval(context.Background(), fmt.Sprintf("%s = require(%q)", name, name), "setup"); err != nil {
			s.errorf("loading module %s: %v", name, err)
		}
	}
	for _, f := range s.cfg.Load {
		s.load(f)
	}
}

// moduleNames are the modules built into the binary, sorted.
func moduleNames() []string { return stdlib.Names() }

// handle runs one complete chunk: a :command or Lua.
func (s *session) handle(chunk string) {
	trimmed := strings.TrimSpace(chunk)
	if trimmed == "" {
		return
	}
	if strings.HasPrefix(trimmed, ":") {
		s.command(trimmed)
		return
	}
	code, err := compileForm(chunk)
	if err != nil {
		// Report the error as the runtime words it ("stdin:1: ... near").
		_, err = s.vm.Eval(context.Background(), chunk, chunkName)
		s.report(err)
		return
	}
	first := 1
	if !s.cfg.Terminal {
		first = s.chunkLine // positions count from the start of the input
	}
	stmts, err := sessionChunk(code, first)
	if err != nil {
		_, err = s.vm.Eval(context.Background(), chunk, chunkName)
		s.report(err)
		return
	}
	var values []lua.LValue
	err = s.interruptible(func(ctx context.Context) error {
		var err error
		values, err = s.vm.EvalStatements(ctx, stmts, chunkName)
		return err
	})
	if err != nil {
		s.report(err)
		return
	}
	s.show(values)
}

// interruptible runs f with a context that Ctrl-C cancels.
func (s *session) interruptible(f func(ctx context.Context) error) error {
	ctx, cancel := context.WithCancel(context.Background())
	s.mu.Lock()
	s.cancel, s.interrupts = cancel, 0
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.cancel = nil
		s.mu.Unlock()
		cancel()
	}()
	return f(ctx)
}

// report prints what ended a statement: an interrupt (with what a cut
// stream had received), os.exit (which ends the session) or an error.
func (s *session) report(err error) {
	var exit *runtime.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		code := exit.Code
		s.exitCode = &code
	case errors.Is(err, context.Canceled):
		s.failed = true
		// On a terminal Ctrl-C is not echoed and may come in the middle
		// of a line of output: start a new one.
		if s.cfg.Terminal {
			fmt.Fprintln(s.cfg.Err)
		}
		s.notef("interrupted (Ctrl-C)")
		s.showInterrupted()
	default:
		s.failed = true
		s.errorf("%s", s.errorText(err))
	}
}

// errorText is what an error prints: at a terminal its message (the
// traceback waits for :trace), elsewhere the message and the traceback,
// as `ttftlab run` prints them.
func (s *session) errorText(err error) string {
	var se *runtime.ScriptError
	if !errors.As(err, &se) {
		s.lastTrace = ""
		return err.Error()
	}
	s.lastTrace = se.Traceback
	if s.cfg.Terminal || !saysMore(se.Traceback) {
		return se.Message
	}
	return se.Error()
}

// saysMore reports whether a traceback names more than the chunk typed.
func saysMore(trace string) bool {
	for _, line := range strings.Split(trace, "\n") {
		l := strings.TrimSpace(line)
		if l == "" || l == "stack traceback:" || l == "[G]: in function 'error'" || l == "(tailcall): ?" ||
			(strings.HasPrefix(l, chunkName+":") && strings.HasSuffix(l, "in main chunk")) {
			continue
		}
		return true
	}
	return false
}
