package servers_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"ttftlab/internal/servers"
	"ttftlab/internal/stream"
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

// TestStalled: a probe stalled when the request was taken and no whole
// answer came (stream's Unanswered: a timeout, not a connect that timed
// out) and the deadline that passed is the round's.
func TestStalled(t *testing.T) {
	round, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	<-round.Done()
	held := fmt.Errorf("asking: %w", &stream.Error{Kind: stream.KindTimeout, Err: context.DeadlineExceeded})
	unreached := &stream.Error{Kind: stream.KindConnect, Err: context.DeadlineExceeded}
	if !servers.Stalled(round, held) {
		t.Error("a request taken and held past the round's deadline did not stall")
	}
	if servers.Stalled(round, unreached) || servers.Stalled(round, context.DeadlineExceeded) || servers.Stalled(round, nil) {
		t.Error("a probe that reached no server, or did not say it did, stalled")
	}
	open, cancelOpen := context.WithCancel(context.Background())
	defer cancelOpen()
	if servers.Stalled(open, held) {
		t.Error("a probe stalled in a round whose deadline had not passed")
	}
}

func short(t *testing.T) {
	timeout, note := servers.ProbeTimeout, servers.NoteAfter
	servers.ProbeTimeout, servers.NoteAfter = 800*time.Millisecond, 100*time.Millisecond
	t.Cleanup(func() { servers.ProbeTimeout, servers.NoteAfter = timeout, note })
}
