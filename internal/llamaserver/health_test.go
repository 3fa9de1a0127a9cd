package llamaserver

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"ttftlab/internal/endpoint"
	"ttftlab/internal/servers"
	"ttftlab/internal/servers/servertest"
)

func parsed(t *testing.T, url string) *endpoint.Endpoint {
	t.Helper()
	ep, err := endpoint.Parse(url)
	if err != nil {
		t.Fatal(err)
	}
	return ep
}

// TestCheckHealthPerKind: each kind is ready by the path it answers
// (vLLM's empty 200 and SGLang's at /health, Ollama's /api/version, a
// hosted API's /v1/models), the path its capabilities name; a hosted
// API that wants a key is there but not ready, the 401 of its /v1/models
// kept for the caller to name the key refused.
func TestCheckHealthPerKind(t *testing.T) {
	for _, c := range []struct {
		fake   string
		kind   servers.Kind
		health string
	}{
		{servertest.VLLM, servers.VLLM, "/health"},
		{servertest.SGLang, servers.SGLang, "/health"},
		{servertest.Ollama, servers.Ollama, "/api/version"},
		{servertest.Hosted, servers.OpenAI, "/v1/models"},
	} {
		t.Run(c.fake, func(t *testing.T) {
			h := CheckHealth(context.Background(), parsed(t, (&servertest.Fake{Kind: c.fake}).Start(t)))
			if !h.OK || h.Path != c.health {
				t.Errorf("health %+v, want ok from %s", h, c.health)
			}
			if servers.CapsOf(c.kind).Health != c.health {
				t.Errorf("caps say health %s, the probe used %s", servers.CapsOf(c.kind).Health, c.health)
			}
		})
	}
	h := CheckHealth(context.Background(), parsed(t, (&servertest.Fake{Kind: servertest.Hosted, Key: "K"}).Start(t)))
	if m := h.AnswerOf("/v1/models"); h.OK || !h.Answered || m == nil || m.Status != 401 {
		t.Errorf("health %+v: want a server there, not ready, its /v1/models answering 401", h)
	}
}

func TestCheckHealthClosedPortIsNotAnswering(t *testing.T) {
	h := CheckHealth(context.Background(), parsed(t, "http://127.0.0.1:1"))
	if h.OK || h.Answered || h.Stalled || h.Summary != "not answering" {
		t.Errorf("health %+v", h)
	}
}

// TestCheckHealthStalled: a server that takes the request and never
// answers is Stalled after one round (servers.Stalled), and the round's
// waiting note names the path it waited for.
func TestCheckHealthStalled(t *testing.T) {
	timeout, note := servers.ProbeTimeout, servers.NoteAfter
	servers.ProbeTimeout, servers.NoteAfter = 800*time.Millisecond, 100*time.Millisecond
	t.Cleanup(func() { servers.ProbeTimeout, servers.NoteAfter = timeout, note })
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	var noted []string
	var mu sync.Mutex
	ctx := servers.WithWaiting(context.Background(), func(p []string) {
		mu.Lock()
		noted = append(noted, p...)
		mu.Unlock()
	})
	h := CheckHealth(ctx, parsed(t, srv.URL))
	if !h.Stalled || !h.Answered || h.OK || !strings.Contains(h.Summary, "never answered GET /health within") {
		t.Errorf("health %+v, want stalled at /health", h)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(noted, []string{"/health"}) {
		t.Errorf("waiting note named %q, want /health", noted)
	}
}
