package cli

import (
	"context"
	"fmt"
	"strings"

	"ttftlab/internal/llamaserver"
)

// serverUpCmd is `ttftlab server up`.
type serverUpCmd struct {
	env   *env
	start startFlags
	host  string
	port  int
}

func newServerUp(e *env) runner { return &serverUpCmd{env: e} }

func (c *serverUpCmd) Run(ctx context.Context, args []string) error {
	fs := c.env.flags("--model FILE [flags] [-- extra llama-server args]",
		"Starts llama-server in the background, waits until /health answers ok and records it.")
	c.start.register(fs)
	fs.StringVar(&c.host, "host", "127.0.0.1", "address llama-server listens on")
	fs.intVar(&c.port, "port", 8080, 1, 65535, "port llama-server listens on")
	if err := fs.parse(args); err != nil {
		return err
	}
	if c.start.model == "" {
		return fs.usageErrf("--model FILE is required")
	}
	reg, err := llamaserver.OpenRegistry()
	if err != nil {
		return err
	}
	c.env.signals.describe("stopping the server start-up")
	o := c.start.options()
	o.Host, o.Port, o.Extra = c.host, c.port, fs.Args()
	t, err := reg.Start(ctx, o, c.env.Out)
	if err != nil {
		return startHint(err, "choose another --port")
	}
	fmt.Fprintf(c.env.Out, "llama-server is up: %s (PID %d)\n  command: %s\n  log: %s\n  stop it with: ttftlab server down --port %d\n",
		t.URL, t.PID, strings.Join(t.Args, " "), t.LogPath, c.port)
	return nil
}
