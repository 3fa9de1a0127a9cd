// Package reporttest makes the report's test runs: a load run of ttftlab's
// own load script against a fake llama-server, and a lab run of the lab
// against the real llama-server with the test model. The report's tests
// read nothing else, so every file they see is one ttftlab wrote.
package reporttest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"ttftlab/internal/artifact"
	"ttftlab/internal/atomicfile"
	"ttftlab/internal/endpoint"
	"ttftlab/internal/llamaserver/llamatest"
	"ttftlab/internal/load"
	"ttftlab/internal/servers"
	"ttftlab/internal/stream/streamtest"
	"ttftlab/internal/tts"
	"ttftlab/runtime"
	"ttftlab/scripts"
)

// The load run: levels of 1, 2, 4 and 8 calls at once, LoadCalls calls
// each, on a fake server of LoadSlots slots (a request beyond them waits,
// deferred, as llama-server queues it). The request FailedRequest (from 1,
// the first of the level of 8) is answered 503. The SLO's limit is far
// above what the fake's schedule takes, so the levels 1 to 4 meet it on
// any machine and the level of 8 misses it for its failed request: the
// capacity is 4 because of the fake, not of the machine's speed.
const (
	LoadCalls     = 6
	LoadSlots     = 4
	FailedRequest = 3*LoadCalls + 2
	SLOLimitMs    = 10000
)

// LoadLevels are the levels of the load run.
var LoadLevels = []float64{1, 2, 4, 8}

// Load runs the load with scripts/load.lua's requests, as `ttftlab load
// --concurrency 1,2,4,8` does (load.Sweep with the runtime's runner),
// against a fake llama-server, writing load.json, requests.jsonl,
// requests.csv and server.jsonl into out.
func Load(t testing.TB, out string) {
	t.Helper()
	url := loadServer(t)
	set := artifact.LoadSettings{Mode: "concurrency", Levels: LoadLevels, Arrival: "constant", Seed: 7, Calls: LoadCalls,
		Requests: LoadCalls, Turns: 1, Docs: 4, MaxTokens: 64,
		SLO: []artifact.SLO{
			{Metric: "first_sentence_ms", Percentile: 95, LimitMs: SLOLimitMs, Text: fmt.Sprintf("first_sentence_ms<=%d@p95", SLOLimitMs)},
			{Metric: "ttft_ms", Percentile: 95, LimitMs: SLOLimitMs, Text: fmt.Sprintf("ttft_ms<=%d@p95", SLOLimitMs)},
		}}
	var stdout, stderr bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	vm, err := runtime.New(ctx, runtime.Config{Server: url, Out: out, Command: "ttftlab test", Stdout: &stdout, Stderr: &stderr,
		Kind: servers.Detection{Kind: servers.LlamaCpp, Evidence: "GET /props answered with default_generation_settings"}})
	if err != nil {
		t.Fatal(err)
	}
	defer vm.Close()
	exp, err := vm.ExperimentFS(scripts.FS, "load.lua")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := vm.LoadHead(ctx, set, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	save := func(d artifact.Load) error {
		data, err := json.MarshalIndent(d, "", "  ")
		if err != nil {
			return err
		}
		return atomicfile.Write(filepath.Join(out, "load.json"), append(data, '\n'), 0o644)
	}
	if _, err := load.Sweep(ctx, doc, vm.LoadRunner(exp, doc.Settings), save, &stdout, out); err != nil {
		t.Fatalf("load: %v\n%s%s", err, stdout.String(), stderr.String())
	}
}

// Lab runs the whole lab (scripts/lab.lua) against the real llama-server
// serving the test model with the lab's reference setup, into out. It
// skips t without llama-server or the model (fails with
// TTFTLAB_REQUIRE_LLAMA set). The server stops when t ends.
//
// The audio step speaks through Debian's espeak-ng, served on a test
// server, when there is one (.ci/run installs it; TTFTLAB_REQUIRE_TTS
// fails without it); without it the step is skipped.
func Lab(t testing.TB, out string) {
	t.Helper()
	srv := llamatest.Start(t)
	cfg := runtime.Config{Server: srv.URL, Out: out, ServerLog: srv.LogPath, Command: "ttftlab test"}
	if bin, err := tts.Find(); err == nil {
		speech := httptest.NewServer(&tts.Server{Bin: bin})
		t.Cleanup(speech.Close)
		cfg.TTS = &runtime.TTS{Endpoint: &endpoint.Endpoint{Base: speech.URL}, Model: tts.Model, Source: "--tts default", Engine: tts.Version(bin)}
	} else if os.Getenv("TTFTLAB_REQUIRE_TTS") != "" {
		t.Fatalf("TTFTLAB_REQUIRE_TTS is set: %v", err)
	}
	run(t, cfg, "lab.lua")
}

func run(t testing.TB, cfg runtime.Config, script string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cfg.Stdout, cfg.Stderr = &stdout, &stderr
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	vm, err := runtime.New(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer vm.Close()
	if err := vm.RunFS(scripts.FS, script); err != nil {
		t.Fatalf("%s: %v\n%s%s", script, err, stdout.String(), stderr.String())
	}
}

// loadServer is llama-server as load sees it: /health, /props, /slots and
// /metrics, and chat completions streamed by streamtest.FakeLlama, at
// most LoadSlots at once; a request beyond them is deferred until a slot
// frees. The request numbered FailedRequest is answered 503.
func loadServer(t testing.TB) string {
	t.Helper()
	answer := &streamtest.FakeLlama{Delay: 15 * time.Millisecond, Pieces: []string{
		"Yes,", " we", " open", " at", " nine", " on", " Saturday", " morning.", " The", " clinic",
		" closes", " at", " noon.", " Bye."}}
	slots := make(chan struct{}, LoadSlots)
	var n, deferred atomic.Int64
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/health":
			io.WriteString(w, `{"status":"ok"}`)
		case "/props":
			fmt.Fprintf(w, `{"default_generation_settings":{"n_ctx":4096},"total_slots":%d,"model_path":"/models/fake.gguf","build_info":"b1-fake"}`, LoadSlots)
		case "/slots":
			mu.Lock()
			busy := len(slots)
			mu.Unlock()
			var list []map[string]any
			for i := range LoadSlots {
				list = append(list, map[string]any{"id": i, "is_processing": i < busy})
			}
			json.NewEncoder(w).Encode(list)
		case "/metrics":
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprintf(w, "# TYPE llamacpp:requests_processing gauge\nllamacpp:requests_processing %d\n"+
				"# TYPE llamacpp:requests_deferred gauge\nllamacpp:requests_deferred %d\n", len(slots), deferred.Load())
		case "/v1/chat/completions":
			if n.Add(1) == FailedRequest {
				w.WriteHeader(http.StatusServiceUnavailable)
				io.WriteString(w, `{"error":{"code":503,"message":"Loading model","type":"unavailable_error"}}`)
				return
			}
			deferred.Add(1)
			select {
			case slots <- struct{}{}:
			case <-r.Context().Done():
				deferred.Add(-1)
				return
			}
			deferred.Add(-1)
			defer func() { <-slots }()
			answer.ServeHTTP(w, r)
		default:
			w.WriteHeader(http.StatusNotImplemented)
			io.WriteString(w, `{"error":{"code":501,"message":"not supported","type":"not_supported_error"}}`)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}
