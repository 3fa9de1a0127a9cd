package llamaserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// Probe is what /health, /props and /slots tell about a server.
type Probe struct {
	Healthy    bool
	Health     string // "ok", "loading model", "not answering", ...
	Model      string // model_path from /props
	NCtx       int    // per-slot context
	Slots      int
	Processing int // slots with is_processing true
}

// Ask queries a server's health, model, context and slots. Fields it could
// not read stay zero.
func Ask(ctx context.Context, url string) Probe {
	var p Probe
	p.Health, p.Healthy = Health(ctx, url)
	if !p.Healthy {
		return p
	}
	var props struct {
		ModelPath  string `json:"model_path"`
		TotalSlots int    `json:"total_slots"`
		Gen        struct {
			NCtx int `json:"n_ctx"`
		} `json:"default_generation_settings"`
	}
	if getJSON(ctx, url+"/props", &props) == nil {
		p.Model, p.Slots, p.NCtx = props.ModelPath, props.TotalSlots, props.Gen.NCtx
	}
	var slots []struct {
		IsProcessing bool `json:"is_processing"`
	}
	if getJSON(ctx, url+"/slots", &slots) == nil {
		for _, s := range slots {
			if s.IsProcessing {
				p.Processing++
			}
		}
	}
	return p
}

var probeClient = &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}}

func getJSON(ctx context.Context, url string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := probeClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: HTTP %d", url, resp.StatusCode)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

// StateForURL returns the recorded server whose URL is url, or nil.
func StateForURL(url string) *State {
	ports, err := TrackedPorts()
	if err != nil {
		return nil
	}
	for _, port := range ports {
		if st, err := LoadState(port); err == nil && st != nil && st.URL == url {
			return st
		}
	}
	return nil
}
