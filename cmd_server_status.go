package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"time"

	"ttftlab/llamaserver"
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

func serverStatus(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("server status", "ttftlab server status [--port N]", stderr)
	port := portFlag(fs)
	if err := fs.Parse(args); err != nil {
		return parseErrCode(err)
	}
	p := choosePort(*port)
	st, err := llamaserver.LoadState(p)
	if err != nil {
		fmt.Fprintf(stderr, "ttftlab server status: %v\n", err)
		return 1
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
	info := Probe(url)
	info.print(stdout)
	if !info.Healthy {
		return 1
	}
	return 0
}

// ServerProbe is what /health, /props and /slots tell about a server.
type ServerProbe struct {
	Healthy    bool
	Health     string
	Model      string
	NCtx       int
	Slots      int
	Processing int
}

// Probe asks a server for its health, model, context and slots.
func Probe(url string) ServerProbe {
	var p ServerProbe
	status, ok := llamaserver.Health(context.Background(), url)
	p.Healthy, p.Health = ok, status
	if !ok {
		return p
	}
	var props struct {
		ModelPath  string `json:"model_path"`
		TotalSlots int    `json:"total_slots"`
		Gen        struct {
			NCtx int `json:"n_ctx"`
		} `json:"default_generation_settings"`
	}
	if getJSON(url+"/props", &props) == nil {
		p.Model, p.Slots, p.NCtx = props.ModelPath, props.TotalSlots, props.Gen.NCtx
	}
	var slots []struct {
		IsProcessing bool `json:"is_processing"`
	}
	if getJSON(url+"/slots", &slots) == nil {
		for _, s := range slots {
			if s.IsProcessing {
				p.Processing++
			}
		}
	}
	return p
}

func (p ServerProbe) print(w io.Writer) {
	fmt.Fprintf(w, "health:  %s\n", p.Health)
	if !p.Healthy {
		return
	}
	fmt.Fprintf(w, "served:  %s\nn_ctx:   %d per slot\nslots:   %d (%d processing)\n", p.Model, p.NCtx, p.Slots, p.Processing)
}

var probeClient = &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}}

func getJSON(url string, v any) error {
	resp, err := probeClient.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: HTTP %d", url, resp.StatusCode)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}
