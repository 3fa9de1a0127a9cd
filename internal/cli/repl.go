package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"ttftlab/internal/llamaserver"
	"ttftlab/internal/repl"
	"ttftlab/runtime"
)

// historyFileName is the prompt's history, in the state folder next to the
// server records.
const historyFileName = "repl_history"

// replCmd is `ttftlab repl [flags] [-l SCRIPT]...`.
type replCmd struct {
	env   *env
	flags hostFlags
	loads []string
}

func newRepl(e *env) runner { return &replCmd{env: e} }

func (c *replCmd) Run(ctx context.Context, args []string) error {
	fs := c.env.flags("[flags] [-l SCRIPT]...", `An interactive Lua prompt with the same globals, bindings and modules as
'ttftlab run'. On a terminal it edits lines, completes names (Tab) and keeps
a history; otherwise it reads statements from standard input without
prompts. :help lists the bindings and commands.`)
	c.flags.register(fs)
	c.flags.registerRealtime(fs)
	fs.Func("l", "run `SCRIPT` before the first prompt (repeatable); :reload runs it again", func(v string) error {
		c.loads = append(c.loads, v)
		return nil
	})
	if err := fs.parse(args); err != nil {
		return err
	}
	if err := c.flags.check(fs); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fs.usageErrf("unexpected argument %q (load files with -l FILE)", fs.Arg(0))
	}
	out, err := checkOut(c.flags.out)
	if err != nil {
		return err
	}
	// A prompt works without a server (scripts, files, help): only --model
	// starts one.
	c.env.signals.describe("stopping the server start")
	lease, err := c.env.lease(ctx, &c.flags, anyServer)
	if err != nil {
		return err
	}
	defer c.env.release(lease, &c.flags)
	kind := c.env.serverKind(ctx, lease)
	speech, stopSpeech, err := c.flags.tts.start(ctx, lease.Endpoint, c.env.Out, c.env.Err)
	if err != nil {
		return err
	}
	defer stopSpeech()
	caller, stopCaller, err := c.flags.stt.start(ctx, lease.Endpoint, c.env.Out, c.env.Err)
	if err != nil {
		return err
	}
	defer stopCaller()
	rt, err := c.flags.realtime.start(ctx, lease.Endpoint, c.flags.stt.voice, c.env.Err)
	if err != nil {
		return err
	}
	// Statements run under their own contexts, which the session cancels.
	vm, err := runtime.New(context.WithoutCancel(ctx), runtime.Config{
		Kind: kind, NotLLM: lease.NotLLM(),
		Server: c.flags.server, Endpoint: lease.Endpoint, Out: out, KBDir: c.flags.kb, ServerLog: serverLog(lease, &c.flags),
		Sources: c.flags.sources(), Command: invokedAs(), Stdout: c.env.Out, Stderr: c.env.Err,
		RequestTimeout: c.flags.requestTimeout, API: c.flags.api, TTS: speech, STT: caller, Realtime: rt,
	})
	if err != nil {
		return err
	}
	defer vm.Close()
	if code := c.session(ctx, vm); code != 0 {
		return exitCode(code)
	}
	return nil
}

// session runs the prompt with the signals taken over. Line editing needs
// the process's own terminal on both ends; a caller that captures output
// (tests) gets the plain mode.
func (c *replCmd) session(ctx context.Context, vm *runtime.VM) int {
	e := c.env
	terminal := fileOf(e.Out) == os.Stdout && e.In == io.Reader(os.Stdin) &&
		repl.IsTerminal(os.Stdin) && repl.IsTerminal(os.Stdout)
	cfg := repl.Config{VM: vm, Terminal: terminal, In: e.In, Out: e.Out, Err: e.Err, Load: c.loads,
		HardExit: e.signals.hardExit}
	if terminal {
		if dir, err := llamaserver.StateDir(); err != nil {
			fmt.Fprintf(e.Err, "ttftlab repl: no history: %v\n", err)
		} else {
			cfg.HistoryFile = filepath.Join(dir, historyFileName)
		}
		fmt.Fprintf(e.Out, "ttftlab %s: Lua prompt for %s. :help lists the bindings, Tab completes, Ctrl-C stops a statement, Ctrl-D leaves.\n",
			buildVersion(), c.flags.server)
		if status, ok := llamaserver.Health(ctx, c.flags.ep); !ok {
			fmt.Fprintf(e.Out, "note: %s/health: %s. stream() fails until a server answers there: start one with 'ttftlab server up --model FILE.gguf', or restart with --model FILE.gguf.\n",
				c.flags.server, status)
		}
	}
	sig := make(chan os.Signal, 2)
	restore := e.signals.takeOver(sig)
	defer restore()
	cfg.Signals = sig
	return repl.Run(cfg)
}
