package cli

import (
	"context"
	"os"

	"ttftlab/runtime"
	"ttftlab/scripts"
)

// labCmd is `ttftlab lab [flags] [-- STEP...]`.
type labCmd struct {
	env   *env
	flags hostFlags
}

func newLab(e *env) runner { return &labCmd{env: e} }

// workingTreeLab is run instead of the built-in lab when it exists, so
// edits take effect without rebuilding.
const workingTreeLab = "scripts/lab.lua"

func (c *labCmd) Run(ctx context.Context, args []string) error {
	fs := c.env.flags("[flags] [-- STEP...]",
		"Runs scripts/lab.lua from the working tree when it exists, else the copy built into ttftlab.\n"+
			"STEP names (server, stream, ttft, prefill, cache, sentence, cancel, bargein, prefix, report) run only those steps.")
	c.flags.register(fs)
	c.flags.registerSynth(fs)
	keepGoing := fs.Bool("keep-going", true, "after a failed step, run the steps that do not depend on it (false: stop at the first failure)")
	if err := fs.parse(args); err != nil {
		return err
	}
	if err := c.flags.check(fs); err != nil {
		return err
	}
	s := script{flags: c.flags, need: serverOrSynth, args: fs.Args(), stopOnFailure: !*keepGoing, preflight: true}
	if _, err := os.Stat(workingTreeLab); err == nil {
		s.exec = func(vm *runtime.VM) error { return vm.RunFile(workingTreeLab) }
	} else {
		s.exec = func(vm *runtime.VM) error { return vm.RunFS(scripts.FS, "lab.lua") }
	}
	return c.env.runScript(ctx, s)
}
