package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"

	"ttftlab/runtime"
	"ttftlab/scripts"
)

// scriptFlags are the flags shared by run and lab.
type scriptFlags struct {
	server, out, kb, serverLog string
	auto                       autoServer
	// globals are boolean flags handed to the script as globals.
	globals map[string]bool
}

func (f *scriptFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.server, "server", envOr("TTFTLAB_SERVER", "http://127.0.0.1:8080"), "base URL of the LLM server (env TTFTLAB_SERVER)")
	fs.StringVar(&f.out, "out", envOr("TTFTLAB_OUT", "./out"), "folder for artifacts, created if missing (env TTFTLAB_OUT)")
	fs.StringVar(&f.kb, "kb", "", "folder of *.md knowledge-base documents (default: the bundled KB)")
	fs.StringVar(&f.serverLog, "server-log", "", "llama-server's log file, searched for cancellation evidence")
	f.auto.up.register(fs, false)
	fs.BoolVar(&f.auto.keep, "keep-server", false, "with --model: leave the started llama-server running afterwards")
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

func newFlagSet(name, usage string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: %s\n\nFlags:\n", usage)
		fs.PrintDefaults()
	}
	return fs
}

// parseErrCode maps a flag parsing error to an exit code: -h is success.
func parseErrCode(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	return 2
}

func cmdRun(args []string, stdout, stderr io.Writer) int {
	var f scriptFlags
	fs := newFlagSet("run", "ttftlab run SCRIPT [flags] [-- args]", stderr)
	f.register(fs)
	if err := fs.Parse(args); err != nil {
		return parseErrCode(err)
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "ttftlab run: missing SCRIPT")
		fs.Usage()
		return 2
	}
	script := fs.Arg(0)
	// Flags may also follow the script name; what remains goes to the script.
	if err := fs.Parse(fs.Args()[1:]); err != nil {
		return parseErrCode(err)
	}
	if _, err := os.Stat(script); err != nil {
		fmt.Fprintf(stderr, "ttftlab run: script %s: %v\n", script, err)
		return 1
	}
	return runScript(f, false, script, fs.Args(), stdout, stderr, func(vm *runtime.VM) error {
		return vm.RunFile(script)
	})
}

func cmdLab(args []string, stdout, stderr io.Writer) int {
	var f scriptFlags
	fs := newFlagSet("lab", "ttftlab lab [flags] [-- STEP...]\n\nRuns scripts/lab.lua from the working tree when it exists, else the copy built into ttftlab.\nSTEP names (server, stream, ttft, prefill, cache, sentence, cancel, report) run only those steps.", stderr)
	f.register(fs)
	f.auto.registerSynth(fs)
	keepGoing := fs.Bool("keep-going", true, "after a failed step, run the steps that do not depend on it (false: stop at the first failure)")
	if err := fs.Parse(args); err != nil {
		return parseErrCode(err)
	}
	f.globals = map[string]bool{"KEEP_GOING": *keepGoing}
	const tree = "scripts/lab.lua"
	if _, err := os.Stat(tree); err == nil {
		return runScript(f, true, tree, fs.Args(), stdout, stderr, func(vm *runtime.VM) error {
			return vm.RunFile(tree)
		})
	}
	return runScript(f, true, "lab.lua", fs.Args(), stdout, stderr, func(vm *runtime.VM) error {
		return vm.RunFS(scripts.FS, "lab.lua")
	})
}

// makeOut creates the --out folder and returns its absolute path; ok is
// false (the reason printed) when it cannot be created.
func makeOut(dir string, stderr io.Writer) (out string, ok bool) {
	out, err := filepath.Abs(dir)
	if err == nil {
		err = os.MkdirAll(out, 0o755)
	}
	if err != nil {
		fmt.Fprintf(stderr, "ttftlab: cannot create output folder %s: %v (choose another with --out)\n", dir, err)
		return "", false
	}
	return out, true
}

// runScript builds a VM from the flags, runs one script in it and turns the
// outcome into an exit code. needServer makes an unreachable server an error
// up front (unless --model starts one).
func runScript(f scriptFlags, needServer bool, name string, scriptArgs []string, stdout, stderr io.Writer, exec func(*runtime.VM) error) int {
	out, ok := makeOut(f.out, stderr)
	if !ok {
		return 1
	}
	// Signals are handled from here on, so a Ctrl-C while a server starts or
	// stops is seen, and a second one can still stop that server.
	ctx, stop := interruptContext(stderr, "stopping the script and closing open streams")
	defer stop()
	if err := f.auto.ensure(ctx, &f, needServer, stdout); err != nil {
		fmt.Fprintf(stderr, "ttftlab: %v\n", err)
		return 1
	}
	defer f.auto.stop(stdout)
	vm, err := runtime.New(ctx, runtime.Config{
		Server: f.server, Out: out, KBDir: f.kb, ServerLog: f.serverLog,
		Args: scriptArgs, Flags: f.globals, Stdout: stdout, Stderr: stderr,
	})
	if err != nil {
		fmt.Fprintf(stderr, "ttftlab: %v\n", err)
		return 1
	}
	defer vm.Close()
	err = exec(vm)
	var exit *runtime.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exit):
		return exit.Code
	case ctx.Err() != nil:
		fmt.Fprintf(stderr, "ttftlab: interrupted: %v\n", err)
		return 130
	default:
		fmt.Fprintf(stderr, "ttftlab: %v\n", err)
		return 1
	}
}

// interruptContext is cancelled by the first Ctrl-C (SIGINT) or SIGTERM, which
// stops the script and closes any open stream; a second one exits at once.
// what says what the first signal stops.
func interruptContext(stderr io.Writer, what string) (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-sig:
			fmt.Fprintf(stderr, "\nttftlab: %v: %s (again to exit at once)\n", s, what)
			cancel()
		case <-done:
			return
		}
		select {
		case <-sig:
			fmt.Fprintln(stderr, "ttftlab: exiting at once")
			runHardExitHooks()
			os.Exit(130)
		case <-done:
		}
	}()
	return ctx, func() { signal.Stop(sig); close(done); cancel() }
}

// hardExitHooks run before a second Ctrl-C exits at once, skipping defers:
// they stop what this process started (a llama-server from --model).
var (
	hardExitMu    sync.Mutex
	hardExitHooks []func()
)

func onHardExit(f func()) {
	hardExitMu.Lock()
	defer hardExitMu.Unlock()
	hardExitHooks = append(hardExitHooks, f)
}

func runHardExitHooks() {
	hardExitMu.Lock()
	defer hardExitMu.Unlock()
	for _, f := range hardExitHooks {
		f()
	}
}
