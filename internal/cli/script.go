package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"ttftlab/runtime"
)

// script is one Lua run of run or lab: the flags, the arguments the script
// sees, and how the VM loads it.
type script struct {
	flags hostFlags
	need  need
	args  []string
	// stopOnFailure is lab's --keep-going=false.
	stopOnFailure bool
	// repeat is lab's --repeat: REPEAT in the script (0: nil).
	repeat int
	// turn, when set, is take_turn's (runtime.Config.Turn).
	turn func(step string) error
	// preflight runs the script with PREFLIGHT set before any server
	// starts, so it can refuse its inputs at once (the lab does), and say
	// what its run needs: {tts = true} (the lab's speech steps) implies
	// --tts default when no --tts was given.
	preflight bool
	exec      func(vm *runtime.VM) error
	// finish, when set, runs after the script and before a server it
	// started stops (lab's report, which reads the server's log). Its
	// error is the command's when the script's is nil.
	finish func(ctx context.Context, out, serverLog string) error
	// runs, when set, is --runs (runs.go): the script runs that many
	// times against the one server, and runs.json pools the runs.
	runs *runsPlan
	// before, when set, runs once the server answers, right before the
	// script (a shard's barrier); its error is the command's.
	before func(ctx context.Context) error
}

// runScript checks --out, makes sure of the server, runs the script and
// stops a server it started.
func (e *env) runScript(ctx context.Context, s script) error {
	out, err := checkOut(s.flags.out)
	if err != nil {
		return err
	}
	e.signals.describe("stopping the script and closing open streams")
	if s.preflight {
		needs, err := e.execScriptNeeds(ctx, s, runtime.Config{Out: out, ServerLog: s.flags.serverLog, Preflight: true})
		if err != nil {
			return err
		}
		if needs.TTS && s.flags.tts.url == "" {
			// A step speaks: through the default engine unless --tts
			// names another speech server.
			s.flags.tts.url, s.flags.tts.implied = ttsDefault, true
		}
		if needs.STT && s.flags.stt.url == "" {
			// A step listens to a caller: through the default engine unless
			// --stt names another speech-to-text server.
			s.flags.stt.url, s.flags.stt.implied = sttDefault, true
		}
	}
	lease, err := e.lease(ctx, &s.flags, s.need)
	if err != nil {
		return err
	}
	defer e.release(lease, &s.flags)
	log := serverLog(lease, &s.flags)
	kind := e.serverKind(ctx, lease)
	speech, stopSpeech, err := s.flags.tts.start(ctx, lease.Endpoint, e.Out, e.Err)
	if err != nil {
		return err
	}
	defer stopSpeech()
	caller, stopCaller, err := s.flags.stt.start(ctx, lease.Endpoint, e.Out, e.Err)
	if err != nil {
		return err
	}
	defer stopCaller()
	rt, err := s.flags.realtime.start(ctx, lease.Endpoint, s.flags.stt.voice, e.Err)
	if err != nil {
		return err
	}
	cfg := runtime.Config{Out: out, ServerLog: log, Endpoint: lease.Endpoint,
		Kind: kind, TTS: speech, STT: caller, Realtime: rt, NotLLM: lease.NotLLM()}
	if s.before != nil {
		if err := s.before(ctx); err != nil {
			return err
		}
	}
	if s.runs != nil {
		return e.runRepeated(ctx, s, s.runs, out, log, cfg)
	}
	err = e.execScript(ctx, s, cfg)
	if s.finish == nil {
		return err
	}
	if ferr := s.finish(ctx, out, log); ferr != nil {
		if err == nil {
			return ferr
		}
		// The script's own failure decides the exit code; say this one here.
		fmt.Fprintf(e.Err, "%s: %v\n", label(e.cmd), ferr)
	}
	return err
}

// execScript runs the script once in a new VM made from the flags and cfg.
func (e *env) execScript(ctx context.Context, s script, cfg runtime.Config) error {
	_, err := e.execScriptNeeds(ctx, s, cfg)
	return err
}

// execScriptNeeds is execScript that also returns what the script said it
// needs (runtime.VM.Needs: only a run with cfg.Preflight says it).
func (e *env) execScriptNeeds(ctx context.Context, s script, cfg runtime.Config) (runtime.Needs, error) {
	cfg.Server, cfg.KBDir, cfg.Args, cfg.StopOnFailure = s.flags.server, s.flags.kb, s.args, s.stopOnFailure
	cfg.Repeat, cfg.Turn = s.repeat, s.turn
	if cfg.Endpoint == nil {
		cfg.Endpoint = s.flags.ep
	}
	cfg.Sources, cfg.Command, cfg.Stdout, cfg.Stderr = s.flags.sources(), invokedAs(), e.Out, e.Err
	cfg.RequestTimeout, cfg.API = s.flags.requestTimeout, s.flags.api
	vm, err := runtime.New(ctx, cfg)
	if err != nil {
		return runtime.Needs{}, err
	}
	defer vm.Close()
	err = s.exec(vm)
	return vm.Needs(), err
}

// invokedAs is how the user ran ttftlab, for messages that suggest the
// next command: "go run ." for a binary go run built, "ttftlab" when found
// on PATH, else the path as typed (./ttftlab).
func invokedAs() string {
	arg0 := os.Args[0]
	switch {
	case strings.Contains(arg0, string(filepath.Separator)+"go-build"):
		return "go run ."
	case !strings.ContainsRune(arg0, filepath.Separator):
		return "ttftlab"
	}
	return arg0
}

// checkOut returns --out as an absolute path once it is sure the folder
// can be made: it is a folder, or its nearest existing parent is a folder
// in which this process could make one. Permission bits do not say that
// (root passes every access check, and /proc or a read-only mount refuse
// what the bits allow), so it makes and removes a probe folder there. The
// folder itself is made by the first write, so a run that writes nothing
// leaves none.
func checkOut(dir string) (string, error) {
	out, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("cannot create output folder %s: %w (choose another with --out)", dir, err)
	}
	for p := out; ; p = filepath.Dir(p) {
		st, err := os.Stat(p)
		switch {
		case err == nil && !st.IsDir():
			return "", fmt.Errorf("cannot create output folder %s: %s is a file (choose another with --out)", dir, p)
		case err == nil && unix.Access(p, unix.W_OK) != nil:
			return "", fmt.Errorf("cannot create output folder %s: %s is not writable (choose another with --out)", dir, p)
		case err == nil:
			if err := probeDir(p); err != nil {
				return "", fmt.Errorf("cannot create output folder %s: %s refuses new files: %v (choose another with --out)", dir, p, err)
			}
			return out, nil
		case !errors.Is(err, fs.ErrNotExist):
			return "", fmt.Errorf("cannot create output folder %s: %w (choose another with --out)", dir, err)
		case filepath.Dir(p) == p:
			return out, nil
		}
	}
}

// probeDir makes a folder in dir, a file in it, and removes both: what
// the run's first write will do.
func probeDir(dir string) error {
	probe, err := os.MkdirTemp(dir, ".ttftlab-probe-")
	if err != nil {
		return unwrapPath(err)
	}
	defer os.RemoveAll(probe)
	f, err := os.CreateTemp(probe, "w")
	if err != nil {
		return unwrapPath(err)
	}
	return f.Close()
}

// unwrapPath drops the *PathError's path, which names the probe.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
