package cli

import (
	"context"
	"fmt"
	"os"

	"ttftlab/internal/llamaserver"
)

// serverLogCmd is `ttftlab server log [--port N] [-n 50] [-f]`.
type serverLogCmd struct{ env *env }

func newServerLog(e *env) runner { return &serverLogCmd{env: e} }

func (c *serverLogCmd) Run(ctx context.Context, args []string) error {
	fs := c.env.flags("[--port N] [-n 50] [-f]", "Prints the last lines of a server's log; -f keeps printing new ones until Ctrl-C.")
	n := fs.intFlag("n", 50, 0, 1000000, "how many lines to print")
	follow := fs.Bool("f", false, "keep printing new lines until interrupted")
	reg, p, err := parsePort(fs, args)
	if err != nil {
		return err
	}
	path := reg.LogPath(p)
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("no log for port %d (%v); start a server with `ttftlab server up`", p, err)
	}
	tail, size := llamaserver.Tail(path, *n)
	if tail != "" {
		fmt.Fprintln(c.env.Out, tail)
	}
	if !*follow {
		return nil
	}
	return llamaserver.Follow(ctx, path, size, c.env.Out)
}
