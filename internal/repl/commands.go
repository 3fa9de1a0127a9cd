package repl

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// commandNames are the :commands, for completion and error messages.
var commandNames = []string{":help", ":load", ":reload", ":trace", ":quit"}

// command runs a line that starts with ':'.
func (s *session) command(line string) {
	name, arg, _ := strings.Cut(line, " ")
	arg = strings.TrimSpace(arg)
	switch name {
	case ":help", ":h", ":?":
		s.help(arg)
	case ":load", ":l":
		if arg == "" {
			s.errorf(":load needs a file name, e.g. :load scripts/mine.lua")
			s.failed = true
			return
		}
		s.load(arg)
	case ":reload", ":r":
		s.reload()
	case ":trace", ":t":
		if s.lastTrace == "" {
			s.notef("no traceback: the last statement raised no error in Lua code (a host function's failure, such as a refused stream(), has none)")
			return
		}
		fmt.Fprintln(s.cfg.Out, s.lastTrace)
	case ":quit", ":q", ":exit":
		code := s.endCode()
		s.exitCode = &code
	default:
		s.errorf("unknown command %s; the commands are %s (:help for more)", name, strings.Join(commandNames, " "))
		s.failed = true
	}
}

// load runs a file in the session and remembers it for :reload. A file
// that fails is remembered too, so it can be fixed and reloaded.
func (s *session) load(path string) {
	if _, err := os.Stat(path); err != nil {
		s.errorf("cannot load %s: %v", path, err)
		s.failed = true
		return
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	known := false
	for _, f := range s.loaded {
		known = known || f == abs
	}
	if !known {
		s.loaded = append(s.loaded, abs)
	}
	s.runFile(path)
}

// reload runs every loaded file again, in order, picking up edits.
func (s *session) reload() {
	if len(s.loaded) == 0 {
		s.errorf("nothing to reload: load a file with :load FILE or -l FILE first")
		s.failed = true
		return
	}
	for _, f := range s.loaded {
		s.notef("reloading %s", f)
		s.runFile(f)
		if s.exitCode != nil {
			return
		}
	}
}

func (s *session) runFile(path string) {
	err := s.interruptible(func(ctx context.Context) error {
		return s.vm.RunFileContext(ctx, path)
	})
	s.report(err)
}

// helpCommands describes the :commands for :help.
var helpCommands = [][2]string{
	{":help [NAME]", "list the bindings, modules and commands; with NAME, one of them in full"},
	{":load FILE", "run a Lua file in this session and remember it for :reload"},
	{":reload", "run the loaded files again, in order, picking up edits"},
	{":trace", "show the stack traceback of the last error"},
	{":quit", "leave (Ctrl-D does the same)"},
}

func (s *session) help(name string) {
	if name == "" {
		fmt.Fprint(s.cfg.Out, s.helpIndex())
		return
	}
	text, ok := s.helpTopic(name)
	if !ok {
		s.errorf("no help for %q; :help lists what there is", name)
		return
	}
	fmt.Fprintln(s.cfg.Out, strings.TrimRight(text, "\n"))
}
