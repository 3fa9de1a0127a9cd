package servers_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"ttftlab/internal/servers"
)

// TestDetectAsksAtOnce: a server that answers only once every detection
// path is in flight (llama.cpp's /props among them) is found: the paths
// are asked at once, not one after another, each waiting for the last.
// Fails before this change: /props waited for the others, which were
// asked only after it had timed out, so the server was taken for an
// OpenAI-compatible one.
func TestDetectAsksAtOnce(t *testing.T) {
	short(t)
	var mu sync.Mutex
	inFlight := map[string]bool{}
	all := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		inFlight[r.URL.Path] = true
		if len(inFlight) == 4 {
			close(all)
		}
		mu.Unlock()
		select {
		case <-all:
		case <-r.Context().Done():
			return
		}
		if r.URL.Path == "/props" {
			w.Write([]byte(`{"default_generation_settings": {"n_ctx": 512}}`))
			return
		}
		http.NotFound(w, r)
	}))
	defer srv.Close()
	if d := servers.Detect(context.Background(), at(srv.URL)); d.Kind != servers.LlamaCpp {
		t.Errorf("detected %s (%s), want llama.cpp", d.Kind, d.Evidence)
	}
}

// TestHealthStalled: a server that takes the request and never answers is
// Stalled after one round, and the round's waiting note names the path it
// waited for.
func TestHealthStalled(t *testing.T) {
	short(t)
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
	h := servers.Health(ctx, at(srv.URL))
	if !h.Stalled || !h.Answered || h.OK || !strings.Contains(h.Summary, "never answered GET /health within") {
		t.Errorf("health %+v, want stalled at /health", h)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(noted, []string{"/health"}) {
		t.Errorf("waiting note named %q, want /health", noted)
	}
}

func short(t *testing.T) {
	timeout, note := servers.ProbeTimeout, servers.NoteAfter
	servers.ProbeTimeout, servers.NoteAfter = 800*time.Millisecond, 100*time.Millisecond
	t.Cleanup(func() { servers.ProbeTimeout, servers.NoteAfter = timeout, note })
}
