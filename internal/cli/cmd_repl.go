package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"ttftlab/internal/llamaserver"
	"ttftlab/internal/repl"
	"ttftlab/runtime"
)

// historyFileName is the prompt's history, in the state folder next to the
// server records.
const historyFileName = "repl_history"

const replUsage = `ttftlab repl [flags] [-l SCRIPT]...

An interactive Lua prompt with the same globals, bindings and modules as
'ttftlab run'. On a terminal it edits lines, completes names (Tab) and keeps
a history; otherwise it reads statements from standard input without
prompts. :help lists the bindings and commands.`

// stdinIsTerminal decides what plain 'ttftlab' does: a prompt for a person
// at a terminal, the usage text otherwise.
func stdinIsTerminal() bool { return repl.IsTerminal(os.Stdin) }

func cmdRepl(args []string, stdout, stderr io.Writer) int {
	var f scriptFlags
	var loads []string
	fs := newFlagSet("repl", replUsage, stderr)
	f.register(fs)
	fs.Func("l", "run `SCRIPT` before the first prompt (repeatable); :reload runs it again", func(v string) error {
		loads = append(loads, v)
		return nil
	})
	if err := fs.Parse(args); err != nil {
		return parseErrCode(err)
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "ttftlab repl: unexpected argument %q (load files with -l FILE)\n", fs.Arg(0))
		fs.Usage()
		return 2
	}
	out, ok := makeOut(f.out, stderr)
	if !ok {
		return 1
	}
	// A prompt works without a server (scripts, files, help): only --model
	// starts one.
	startCtx, stopStart := interruptContext(stderr, "stopping the server start")
	err := f.auto.ensure(startCtx, &f, false, stdout)
	stopStart()
	if err != nil {
		fmt.Fprintf(stderr, "ttftlab: %v\n", err)
		return 1
	}
	defer f.auto.stop(stdout)
	vm, err := runtime.New(context.Background(), runtime.Config{
		Server: f.server, Out: out, KBDir: f.kb, ServerLog: f.serverLog,
		Stdout: stdout, Stderr: stderr,
	})
	if err != nil {
		fmt.Fprintf(stderr, "ttftlab: %v\n", err)
		return 1
	}
	defer vm.Close()
	return runRepl(vm, loads, stdout, stderr, f.server)
}

// runRepl runs the session with signal handling. Line editing needs the
// process's own terminal on both ends; a caller that captures output
// (tests) gets the plain mode.
func runRepl(vm *runtime.VM, loads []string, stdout, stderr io.Writer, server string) int {
	terminal := stdout == io.Writer(os.Stdout) && repl.IsTerminal(os.Stdin) && repl.IsTerminal(os.Stdout)
	cfg := repl.Config{
		VM: vm, Terminal: terminal, In: os.Stdin, Out: stdout, Err: stderr, Load: loads,
		HardExit: func(code int) {
			runHardExitHooks()
			os.Exit(code)
		},
	}
	if terminal {
		if dir, err := llamaserver.StateDir(); err != nil {
			fmt.Fprintf(stderr, "ttftlab repl: no history: %v\n", err)
		} else {
			cfg.HistoryFile = filepath.Join(dir, historyFileName)
		}
		fmt.Fprintf(stdout, "ttftlab %s: Lua prompt for %s. :help lists the bindings, Tab completes, Ctrl-C stops a statement, Ctrl-D leaves.\n",
			buildVersion(), server)
		if status, ok := llamaserver.Health(context.Background(), server); !ok {
			fmt.Fprintf(stdout, "note: %s/health: %s. stream() fails until a server answers there: start one with 'ttftlab server up --model FILE.gguf', or restart with --model FILE.gguf.\n",
				server, status)
		}
	}
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sig)
	cfg.Signals = sig
	return repl.Run(cfg)
}
