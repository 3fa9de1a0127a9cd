package runtime

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"ttftlab/internal/servers"
	"ttftlab/internal/servers/servertest"
	"ttftlab/internal/stream/streamtest"
)

// Fails before this change: every body carried cache_prompt, which strict
// servers refuse, and max_tokens, which OpenAI's newer models refuse.
func TestBodiesFitTheKind(t *testing.T) {
	cases := []struct {
		fake, kind  string
		limit       string
		ignoreEOS   bool
		usageAsked  bool
		llamaFields bool
	}{
		{servertest.VLLM, "vllm", "max_tokens", true, true, false},
		{servertest.SGLang, "sglang", "max_tokens", true, true, false},
		{servertest.Ollama, "ollama", "max_tokens", false, true, false},
		{servertest.Hosted, "openai-compatible", "max_completion_tokens", false, true, false},
	}
	for _, c := range cases {
		t.Run(c.fake, func(t *testing.T) {
			fake := &servertest.Fake{Kind: c.fake}
			url := fake.Start(t)
			vm, out := testVM(t, Config{Server: url, Kind: servers.Detection{Kind: servers.Kind(c.kind)}})
			err := vm.RunString(`
				local chunks, _, _, info = stream("hi", {max_tokens = 5, cache_prompt = false,
					body = {return_progress = true, n_probs = 2, ignore_eos = true}})
				print(#chunks, info.usage.prompt_tokens > 0, server_caps().kind)`, "k.lua")
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if got := out.String(); got != "5\ttrue\t"+c.kind+"\n" {
				t.Errorf("printed %q", got)
			}
			b := fake.Bodies()[0]
			for _, f := range []string{"cache_prompt", "return_progress", "n_probs"} {
				if _, ok := b[f]; ok != c.llamaFields {
					t.Errorf("%s sent: %v", f, ok)
				}
			}
			if _, ok := b["ignore_eos"]; ok != c.ignoreEOS {
				t.Errorf("ignore_eos sent: %v, want %v", ok, c.ignoreEOS)
			}
			if b[c.limit] != float64(5) {
				t.Errorf("body %v lacks %s = 5", b, c.limit)
			}
			if so, _ := b["stream_options"].(map[string]any); (so["include_usage"] == true) != c.usageAsked {
				t.Errorf("stream_options %v", b["stream_options"])
			}
		})
	}
}

// llama.cpp keeps its own fields, and a VM whose kind nobody detected
// sends the body as the script built it.
func TestBodiesOfLlamaAndUnknownKindUnchanged(t *testing.T) {
	for _, kind := range []string{"llama.cpp", ""} {
		fake := &streamtest.FakeLlama{Pieces: []string{"a"}}
		url := fake.Start(t)
		vm, out := testVM(t, Config{Server: url, Kind: servers.Detection{Kind: servers.Kind(kind)}})
		if err := vm.RunString(`stream("hi", {cache_prompt = false, body = {n_probs = 2}})`, "k.lua"); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		b := fake.LastBody(t)
		if b["cache_prompt"] != false || b["n_probs"] != float64(2) || b["max_tokens"] != float64(64) || b["stream_options"] != nil {
			t.Errorf("kind %q: body %v changed", kind, b)
		}
	}
}

// A 429 is a failure of its own kind, counted, never retried. Fails
// before this change: it was an "http" failure like any other status.
func TestRateLimitedIsItsOwnKind(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTooManyRequests)
		w.Write([]byte(`{"error":{"message":"Rate limit reached for requests","type":"requests","code":"rate_limit_exceeded"}}`))
	}))
	t.Cleanup(srv.Close)
	vm, out := testVM(t, Config{Server: srv.URL})
	err := vm.RunString(`
		local results, summary = stream_many(function(i)
			if i > 5 then return nil end
			return "q"
		end, {concurrency = 2})
		local f = summary.failures[1]
		print(summary.failed, #summary.failures, f.kind, f.n, f.status)
		local _, _, _, info = stream("q", {errors = "return"})
		print(info.error)`, "r.lua")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	lines := strings.Split(out.String(), "\n")
	if lines[0] != "5\t1\trate_limited\t5\t429" {
		t.Errorf("summary line %q, want 5 failures of kind rate_limited with status 429", lines[0])
	}
	if !strings.Contains(lines[1], "429") || !strings.Contains(lines[1], "does not retry") {
		t.Errorf("error %q lacks the status and the no-retry hint", lines[1])
	}
	if n := hits.Load(); n != 6 {
		t.Errorf("the server saw %d requests for 6 sent: a 429 was retried", n)
	}
}

// The Responses API takes no stream_options: a body to /v1/responses is
// not given one.
func TestResponsesBodyGetsNoStreamOptions(t *testing.T) {
	fake := &streamtest.FakeLlama{Pieces: []string{"a"}}
	url := fake.Start(t)
	vm, out := testVM(t, Config{Server: url, Kind: servers.Detection{Kind: servers.VLLM}})
	if err := vm.RunString(`stream("hi", {path = "/v1/responses", errors = "return"})`, "k.lua"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if b := fake.LastBody(t); b["stream_options"] != nil || b["cache_prompt"] != nil {
		t.Errorf("body %v", b)
	}
}

// TestResponsesBodyHasNoStreamOptions: with --api responses a vLLM-kind
// server gets no stream_options (the Responses API sends usage in
// response.completed and takes none; a strict server refuses the field),
// while a chat request to it asks for usage. Fails before this change:
// only a script's opts.path ending in /responses left it out, so every
// --api responses request carried it.
func TestResponsesBodyHasNoStreamOptions(t *testing.T) {
	var bodies []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		bodies = append(bodies, r.URL.Path+" "+string(b))
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: [DONE]\n\n")
	}))
	defer srv.Close()
	vm, out := testVM(t, Config{Server: srv.URL, Kind: servers.Detection{Kind: servers.VLLM}})
	if err := vm.RunString(`
		pcall(stream, "hi", {api = "responses", max_tokens = 5})
		pcall(stream, "hi", {max_tokens = 5})`, "r.lua"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(bodies) != 2 || !strings.HasPrefix(bodies[0], "/v1/responses ") || strings.Contains(bodies[0], "stream_options") ||
		!strings.HasPrefix(bodies[1], "/v1/chat/completions ") || !strings.Contains(bodies[1], `"stream_options":{"include_usage":true}`) {
		t.Errorf("bodies:\n%s", strings.Join(bodies, "\n"))
	}
}
