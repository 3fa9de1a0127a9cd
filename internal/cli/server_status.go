package cli

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"ttftlab/internal/endpoint"
	"ttftlab/internal/llamaserver"
)

// serverStatusCmd is `ttftlab server status [--port N]`.
type serverStatusCmd struct{ env *env }

func newServerStatus(e *env) runner { return &serverStatusCmd{env: e} }

// Exit codes of server status besides 0 (healthy).
const (
	statusDown  = 1
	statusStale = 3
)

func (c *serverStatusCmd) Run(ctx context.Context, args []string) error {
	fs := c.env.flags("[--port N]", "Says whether the server answers; exit 0 healthy, 1 down, 3 stale state (PID gone).\n"+
		"Without --port and with several servers tracked, lists them all (the worst state decides the exit code).")
	reg, p, err := parsePort(fs, args)
	if err != nil {
		return err
	}
	if ports, err := reg.Ports(); err == nil && len(ports) > 1 && !fs.isSet("port") {
		code, err := listTracked(ctx, reg, c.env.Out)
		if err != nil || code == 0 {
			return err
		}
		return exitCode(code)
	}
	st, err := reg.Load(p)
	if err != nil {
		return err
	}
	out := c.env.Out
	url := fmt.Sprintf("http://127.0.0.1:%d", p)
	if st != nil {
		url = st.URL
		alive := st.Alive()
		fmt.Fprintf(out, "PID:     %d (%s)\nURL:     %s\nlog:     %s\nmodel:   %s\nstarted: %s\n",
			st.PID, map[bool]string{true: "alive", false: "gone"}[alive], st.URL, st.LogPath, st.Model,
			st.Started.Format(time.RFC3339))
		if !alive {
			fmt.Fprintf(out, "state is stale: PID %d no longer runs llama-server; `ttftlab server down --port %d` clears it\n", st.PID, p)
			return exitCode(statusStale)
		}
	} else {
		fmt.Fprintf(out, "no server started by ttftlab on port %d; asking %s\n", p, url)
	}
	info := llamaserver.Ask(ctx, &endpoint.Endpoint{Base: url})
	printProbe(out, info)
	if !info.Healthy {
		return exitCode(statusDown)
	}
	return nil
}

func printProbe(w io.Writer, p llamaserver.Probe) {
	fmt.Fprintf(w, "health:  %s\n", p.Health)
	if !p.Healthy {
		return
	}
	if p.PropsStatus != 0 {
		why := ""
		if p.PropsStatus == http.StatusUnauthorized || p.PropsStatus == http.StatusForbidden {
			why = "; the server wants an API key (started with --api-key?), which server status does not send"
		}
		fmt.Fprintf(w, "props:   GET /props answered %d: %s%s, so its model, context and slots are not known\n",
			p.PropsStatus, serverMessage(p.PropsBody), why)
		return
	}
	fmt.Fprintf(w, "served:  %s\nn_ctx:   %d per slot\nslots:   %d (%d processing)\n", p.Model, p.NCtx, p.Slots, p.Processing)
}
