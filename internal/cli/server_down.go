package cli

import (
	"context"
	"fmt"
	"time"
)

// serverDownCmd is `ttftlab server down [--port N]`.
type serverDownCmd struct{ env *env }

func newServerDown(e *env) runner { return &serverDownCmd{env: e} }

func (c *serverDownCmd) Run(_ context.Context, args []string) error {
	fs := c.env.flags("[--port N]", "Stops a server ttftlab started: SIGTERM, up to 10 s, then SIGKILL.")
	reg, p, err := parsePort(fs, args)
	if err != nil {
		return err
	}
	res, err := reg.Stop(p, 10*time.Second)
	out := c.env.Out
	switch {
	case err != nil:
		return err
	case res.State == nil:
		fmt.Fprintf(out, "no server started by ttftlab on port %d: nothing to stop\n", p)
	case res.Stale:
		fmt.Fprintf(out, "PID %d no longer runs llama-server; removed the stale state for port %d\n", res.State.PID, p)
	default:
		how := "SIGTERM"
		if res.Killed {
			how = "SIGKILL (it ignored SIGTERM for 10 s)"
		}
		fmt.Fprintf(out, "stopped llama-server on port %d (PID %d) with %s; its log stays at %s\n", p, res.State.PID, how, res.State.LogPath)
	}
	return nil
}
