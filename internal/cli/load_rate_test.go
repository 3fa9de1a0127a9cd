package cli

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// slotServer is llama-server as `ttftlab load` sees it with k slots: a
// request waits, sending nothing, until a slot is free, then holds it for
// hold (its first token after first), so it serves k/hold calls a second
// and an open loop faster than that queues without end.
type slotServer struct {
	k           int
	first, hold time.Duration
	// slower, when set, is added to first and hold for each request
	// served so far (a server that slows down over a level); the first
	// cold requests served have their first token after coldFirst instead
	// of first (a cold start).
	slower    time.Duration
	cold      int
	coldFirst time.Duration
	slots     chan struct{}
	served    chan struct{}

	mu sync.Mutex
	// held is the time requests held a slot, of n requests: the capacity
	// the server really had, k/(held/n) calls a second.
	held time.Duration
	n    int
}

// capacity is the calls a second the server served, from how long its
// requests really held a slot.
func (s *slotServer) capacity() float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return float64(s.k) / (s.held.Seconds() / float64(s.n))
}

func (s *slotServer) start(t *testing.T) string {
	t.Helper()
	s.slots = make(chan struct{}, s.k)
	s.served = make(chan struct{}, 1<<20)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/health":
			io.WriteString(w, `{"status":"ok"}`)
		case "/props":
			io.WriteString(w, `{"default_generation_settings":{"n_ctx":4096},"total_slots":8,"model_path":"/models/slot.gguf","build_info":"b1-slot"}`)
		case "/slots":
			io.WriteString(w, `[]`)
		case "/v1/chat/completions":
			io.ReadAll(r.Body)
			select {
			case s.slots <- struct{}{}:
			case <-r.Context().Done():
				return
			}
			began := time.Now()
			defer func() { <-s.slots }()
			n := len(s.served)
			s.served <- struct{}{}
			first, hold := s.first+time.Duration(n)*s.slower, s.hold+time.Duration(n)*s.slower
			if n < s.cold {
				first, hold = s.coldFirst, s.hold+s.coldFirst
			}
			w.Header().Set("Content-Type", "text/event-stream")
			chunk := func(text string) string {
				q, _ := json.Marshal(text)
				return `data: {"choices":[{"delta":{"content":` + string(q) + `},"finish_reason":null,"index":0}],"object":"chat.completion.chunk"}` + "\n\n"
			}
			time.Sleep(first)
			io.WriteString(w, chunk("Yes, we open on Saturday."))
			w.(http.Flusher).Flush()
			time.Sleep(hold - time.Since(began))
			io.WriteString(w, chunk(" Bye.")+`data: {"choices":[{"delta":{},"finish_reason":"stop","index":0}]}`+"\n\n"+"data: [DONE]\n\n")
			w.(http.Flusher).Flush()
			s.mu.Lock()
			s.held += time.Since(began)
			s.n++
			s.mu.Unlock()
		default:
			w.WriteHeader(http.StatusNotImplemented)
			io.WriteString(w, `{"error":{"code":501,"message":"not supported","type":"not_supported_error"}}`)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestLoadSearchRate: a server of 2 slots holding each call 100 ms
// serves 20 calls a second; below that rate an open loop never waits (a
// first token in 2 ms), above it each call waits longer than the one
// before. --search --rate 5 with ttft_ms<=25@p50 over 30 calls doubles
// from 5 calls/s, then bisects until the largest rate that held and the
// lowest that did not are within 5 % of each other, and the boundary lies
// within 5 % of the rate the server really served (20 calls/s, less the
// overrun of its sleeps).
// Fails before this change: --search refused --rate.
func TestLoadSearchRate(t *testing.T) {
	serverTestEnv(t)
	s := &slotServer{k: 2, first: 2 * time.Millisecond, hold: 100 * time.Millisecond}
	url := s.start(t)
	out := t.TempDir()
	code, stdout, stderr := runCLI("load", "--server", url, "--search", "--rate", "5", "--requests", "30",
		"--search-budget", "30", "--docs", "0", "--out", out, "--no-report", "--slo", "ttft_ms<=25@p50")
	t.Logf("%s%s", stdout, stderr)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	doc := strictLoad(t, out)
	c := doc.Capacity
	if doc.Settings.Mode != "rate" || doc.Settings.SearchStart != 5 || c == nil || len(c.Search) < 4 {
		t.Fatalf("settings %+v, capacity %+v: want a rate search from 5", doc.Settings, c)
	}
	if c.Search[0].Level != 5 || c.Search[1].Level != 10 || c.Search[2].Level != 20 {
		t.Errorf("path %+v: want doubling from 5", c.Search)
	}
	if c.Next == nil {
		t.Fatalf("no rate failed: %+v", c)
	}
	// The capacity is what the server really served: 2 slots over the
	// time each request really held one (100 ms and the sleep's overrun).
	lo, hi, capacity := c.Level, c.Next.Level, s.capacity()
	if lo <= 0 || hi/lo > 1.05 || lo > capacity*1.05 || hi < capacity/1.05 || capacity > 20 {
		t.Errorf("the boundary lies between %g and %g calls/s: want within 5 %% of each other and of %g", lo, hi, capacity)
	}
	over := map[float64]bool{}
	for _, lv := range doc.Levels {
		over[lv.Level] = lv.OverSaturated != nil
	}
	for _, st := range c.Search {
		if st.Round == 1 && st.OverSaturated != over[st.Level] {
			t.Errorf("step %+v: over-saturated %v, its level's record says %v", st, st.OverSaturated, over[st.Level])
		}
	}
	if !strings.Contains(stdout, "calls/s") {
		t.Errorf("the console does not speak of calls/s")
	}
}
