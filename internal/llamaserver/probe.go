package llamaserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"ttftlab/internal/servers"
	"ttftlab/internal/stream"
)

// Health asks url/health once through stream.Get (and its timeout
// policy); ok is true for 200 {"status":"ok"}. status describes what was
// seen: "ok", "loading model", "not answering", "HTTP 404 ...".
func Health(ctx context.Context, url string) (status string, ok bool) {
	r := CheckHealth(ctx, url)
	return r.Summary, r.OK
}

// HealthReport is what one GET /health found.
type HealthReport struct {
	// OK is a 200 {"status":"ok"}: a ready llama-server.
	OK bool
	// Answered is true when any HTTP answer came, OK or not.
	Answered bool
	// Loading is llama-server's 503 while it loads its model.
	Loading     bool
	Status      int
	ContentType string
	// Summary is "ok", "loading model", "not answering" or
	// "HTTP 404 (text/html): <start of the body>".
	Summary string
}

// CheckHealth asks url/health once through stream.Get; when that is not
// llama-server's ready answer, servers.Health asks as other kinds answer.
func CheckHealth(ctx context.Context, url string) HealthReport {
	code, body, header, err := stream.GetHeader(ctx, url+"/health")
	if err != nil {
		return HealthReport{Summary: "not answering"}
	}
	r := HealthReport{Answered: true, Status: code, ContentType: header.Get("Content-Type")}
	var h struct {
		Status string `json:"status"`
	}
	switch {
	case code == http.StatusOK && json.Unmarshal(body, &h) == nil && h.Status == "ok":
		r.OK, r.Summary = true, "ok"
	case code == http.StatusServiceUnavailable:
		r.Loading, r.Summary = true, "loading model"
	case servers.Health(ctx, getter(url)).OK:
		// Another kind of server (vLLM's empty 200, Ollama's
		// /api/version, a hosted API's /v1/models): ready too.
		r.OK, r.Summary = true, "ok"
	default:
		ct := r.ContentType
		if ct == "" {
			ct = "no Content-Type"
		}
		r.Summary = fmt.Sprintf("HTTP %d (%s): %q", code, ct, bytes.TrimSpace(firstBytes(body, 120)))
	}
	return r
}

// getter GETs paths of the server at url, for the servers probes.
func getter(url string) servers.Getter {
	return func(ctx context.Context, path string) (int, []byte, error) { return stream.Get(ctx, url+path) }
}

func firstBytes(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}

// Probe is what /health, /props and /slots tell about a server.
type Probe struct {
	Healthy    bool
	Health     string // as Health reports it
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

func getJSON(ctx context.Context, url string, v any) error {
	code, body, err := stream.Get(ctx, url)
	if err != nil {
		return err
	}
	if code != http.StatusOK {
		return fmt.Errorf("GET %s: HTTP %d", url, code)
	}
	return json.Unmarshal(body, v)
}
