package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

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
	exec          func(vm *runtime.VM) error
}

// runScript creates --out, makes sure of the server, runs the script and
// stops a server it started.
func (e *env) runScript(ctx context.Context, s script) error {
	out, err := makeOut(s.flags.out)
	if err != nil {
		return err
	}
	e.signals.describe("stopping the script and closing open streams")
	lease, err := e.lease(ctx, &s.flags, s.need)
	if err != nil {
		return err
	}
	defer e.release(lease, &s.flags)
	vm, err := runtime.New(ctx, runtime.Config{
		Server: s.flags.server, Out: out, KBDir: s.flags.kb, ServerLog: serverLog(lease, &s.flags),
		Args: s.args, StopOnFailure: s.stopOnFailure, Sources: s.flags.sources(),
		Stdout: e.Out, Stderr: e.Err,
	})
	if err != nil {
		return err
	}
	defer vm.Close()
	return s.exec(vm)
}

// makeOut creates the --out folder and returns its absolute path.
func makeOut(dir string) (string, error) {
	out, err := filepath.Abs(dir)
	if err == nil {
		err = os.MkdirAll(out, 0o755)
	}
	if err != nil {
		return "", fmt.Errorf("cannot create output folder %s: %w (choose another with --out)", dir, err)
	}
	return out, nil
}
