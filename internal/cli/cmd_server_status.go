package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"ttftlab/internal/llamaserver"
)

// portFlag registers --port; choosePort resolves it: the flag when given,
// else the only tracked server, else 8080.
func portFlag(fs *flag.FlagSet) *int {
	return fs.Int("port", 0, "which server (default: the only one ttftlab tracks, else 8080)")
}

func choosePort(p int) int {
	if p != 0 {
		return p
	}
	if ports, err := llamaserver.TrackedPorts(); err == nil && len(ports) == 1 {
		return ports[0]
	}
	return 8080
}

// portState parses a server subcommand's --port flag and loads that port's
// state (nil when none is recorded). code is an exit code to return at once,
// or -1 to go on.
func portState(cmd string, args []string, stderr io.Writer) (port int, st *llamaserver.State, code int) {
	fs := newFlagSet("server "+cmd, "ttftlab server "+cmd+" [--port N]", stderr)
	flagPort := portFlag(fs)
	if err := fs.Parse(args); err != nil {
		return 0, nil, parseErrCode(err)
	}
	port = choosePort(*flagPort)
	st, err := llamaserver.LoadState(port)
	if err != nil {
		fmt.Fprintf(stderr, "ttftlab server %s: %v\n", cmd, err)
		return port, nil, 1
	}
	return port, st, -1
}

func serverStatus(args []string, stdout, stderr io.Writer) int {
	p, st, code := portState("status", args, stderr)
	if code >= 0 {
		return code
	}
	url := fmt.Sprintf("http://127.0.0.1:%d", p)
	if st != nil {
		url = st.URL
		alive := st.Alive()
		fmt.Fprintf(stdout, "PID:     %d (%s)\nURL:     %s\nlog:     %s\nmodel:   %s\nstarted: %s\n",
			st.PID, map[bool]string{true: "alive", false: "gone"}[alive], st.URL, st.LogPath, st.Model,
			st.Started.Format(time.RFC3339))
		if !alive {
			fmt.Fprintf(stdout, "state is stale: PID %d no longer runs llama-server; `ttftlab server down --port %d` clears it\n", st.PID, p)
			return 3
		}
	} else {
		fmt.Fprintf(stdout, "no server started by ttftlab on port %d; asking %s\n", p, url)
	}
	info := llamaserver.Ask(context.Background(), url)
	printProbe(stdout, info)
	if !info.Healthy {
		return 1
	}
	return 0
}

func printProbe(w io.Writer, p llamaserver.Probe) {
	fmt.Fprintf(w, "health:  %s\n", p.Health)
	if !p.Healthy {
		return
	}
	fmt.Fprintf(w, "served:  %s\nn_ctx:   %d per slot\nslots:   %d (%d processing)\n", p.Model, p.NCtx, p.Slots, p.Processing)
}
