package cli

import (
	"context"
	"fmt"
	"os"

	"ttftlab/runtime"
)

// runCmd is `ttftlab run SCRIPT [flags] [-- args]`.
type runCmd struct {
	env   *env
	flags hostFlags
}

func newRun(e *env) runner { return &runCmd{env: e} }

func (c *runCmd) Run(ctx context.Context, args []string) error {
	fs := c.env.flags("SCRIPT [flags] [-- args]",
		"Runs a Lua script with ttftlab's bindings. Flags may come before or after SCRIPT;\nwhat follows goes to the script as arg[1], arg[2], ...")
	c.flags.register(fs)
	if err := fs.parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return fs.usageErrf("missing SCRIPT")
	}
	path := fs.Arg(0)
	// Flags may also follow the script name; what remains goes to the script.
	if err := fs.parse(fs.Args()[1:]); err != nil {
		return err
	}
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("script %s: %w", path, err)
	}
	return c.env.runScript(ctx, script{flags: c.flags, need: anyServer, args: fs.Args(),
		exec: func(vm *runtime.VM) error { return vm.RunFile(path) }})
}
