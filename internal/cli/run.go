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
		"Runs a Lua script with ttftlab's bindings. ttftlab's flags may stand before or after SCRIPT;\n"+
			"the other arguments go to the script as arg[1], arg[2], ..., and so does everything after --\n"+
			"(ttftlab run exp.lua 2 3 --out X -- --verbose gives the script 2, 3, --verbose).")
	c.flags.register(fs)
	c.flags.registerRealtime(fs)
	if err := fs.parse(args); err != nil {
		return err
	}
	if err := c.flags.check(fs); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return fs.usageErrf("missing SCRIPT")
	}
	path := fs.Arg(0)
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("script %s: %w", path, err)
	}
	return c.env.runScript(ctx, script{flags: c.flags, need: anyServer, args: fs.Args()[1:],
		exec: func(vm *runtime.VM) error { return vm.RunFile(path) }})
}
