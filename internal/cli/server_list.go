package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"ttftlab/internal/endpoint"
	"ttftlab/internal/llamaserver"
)

// serverListCmd is `ttftlab server list`: every server ttftlab tracks.
type serverListCmd struct{ env *env }

func newServerList(e *env) runner { return &serverListCmd{env: e} }

func (c *serverListCmd) Run(ctx context.Context, args []string) error {
	fs := c.env.flags("", "Lists every llama-server that ttftlab started and tracks, with its health; exit 0.")
	if err := fs.parse(args); err != nil {
		return err
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	reg, err := llamaserver.OpenRegistry()
	if err != nil {
		return err
	}
	_, err = listTracked(ctx, reg, c.env.Out)
	return err
}

// listTracked prints one line per tracked server (port, PID, health,
// model, when it started) and returns the worst status exit code among
// them: 0 all healthy, statusDown, or statusStale.
func listTracked(ctx context.Context, reg *llamaserver.Registry, out io.Writer) (int, error) {
	ports, err := reg.Ports()
	if err != nil {
		return 0, err
	}
	if len(ports) == 0 {
		fmt.Fprintf(out, "no server started by ttftlab is tracked (state in %s)\n", reg.Dir())
		return 0, nil
	}
	fmt.Fprintf(out, "%-6s %-8s %-7s %-9s %-20s %s\n", "port", "PID", "process", "health", "started", "model")
	worst := 0
	for _, p := range ports {
		st, err := reg.Load(p)
		if err != nil || st == nil {
			fmt.Fprintf(out, "%-6d unreadable state: %v\n", p, err)
			continue
		}
		health, proc := "-", "gone"
		code := statusStale
		if st.Alive() {
			proc, code = "alive", 0
			info := llamaserver.Ask(ctx, &endpoint.Endpoint{Base: st.URL})
			health = info.Health
			if !info.Healthy {
				code = statusDown
			}
		}
		if code == statusStale || (code == statusDown && worst != statusStale) {
			worst = code
		}
		fmt.Fprintf(out, "%-6d %-8d %-7s %-9s %-20s %s\n", p, st.PID, proc, health, st.Started.Format(time.DateTime), st.Model)
	}
	return worst, nil
}
