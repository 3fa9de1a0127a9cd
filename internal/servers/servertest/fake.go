// Package servertest serves fake LLM servers shaped like vLLM, SGLang,
// Ollama and a hosted OpenAI-compatible API (docs/servers.md), for tests
// of detection, capabilities, the lab and load on every kind. Each keeps a
// prefix cache over its own 4-byte "tokens", spends PerToken on every
// prompt token it did not reuse before the first token, streams one piece
// per token Delay apart, and keeps a running-requests count that drops
// when a client hangs up.
package servertest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Kinds of fake.
const (
	VLLM   = "vllm"
	SGLang = "sglang"
	Ollama = "ollama"
	Hosted = "hosted"
)

// Fake is one fake server.
type Fake struct {
	Kind string
	// Delay is the time between pieces (default 2 ms).
	Delay time.Duration
	// PerToken is the prefill time of each prompt token not served from the
	// cache (default 20 µs).
	PerToken time.Duration
	// RequireModel answers 400 to a request without "model" (Ollama and
	// hosted APIs do).
	RequireModel bool
	// Key, when set, is the API key every request but /health must bear as
	// "Authorization: Bearer KEY" (401 otherwise).
	Key string
	// NoCachedCount leaves prompt_tokens_details out of usage, as hosted
	// APIs that do not say what came from their cache do.
	NoCachedCount bool
	// DropSystem leaves the system message out of the prompt, as a chat
	// template without a place for it does (some of Ollama's models'):
	// the prompt is the same whatever the system message holds.
	DropSystem bool

	mu      sync.Mutex
	seen    [][]string // prompts the cache holds, in tokens
	running int
	gen     int
	bodies  []map[string]any
	flushes int
}

// Start serves f until the test ends and returns its base URL.
func (f *Fake) Start(t testing.TB) string {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return srv.URL
}

// Bodies returns the chat request bodies received so far.
func (f *Fake) Bodies() []map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]map[string]any(nil), f.bodies...)
}

// Flushes counts the cache flushes asked for.
func (f *Fake) Flushes() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.flushes
}

// Running is the number of requests being processed now.
func (f *Fake) Running() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.running
}

func (f *Fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if f.Key != "" && r.URL.Path != "/health" && r.Header.Get("Authorization") != "Bearer "+f.Key {
		fail(w, http.StatusUnauthorized, "authentication_error", "Incorrect API key provided")
		return
	}
	switch p := r.URL.Path; {
	case p == "/v1/chat/completions" && r.Method == http.MethodPost:
		f.chat(w, r)
	case p == "/v1/models":
		writeJSON(w, map[string]any{"object": "list", "data": []any{map[string]any{"id": "fake-" + f.Kind, "object": "model"}}})
	case p == "/health" && (f.Kind == VLLM || f.Kind == SGLang):
		w.WriteHeader(http.StatusOK) // an empty body, as vLLM answers
	case p == "/version" && f.Kind == VLLM:
		writeJSON(w, map[string]any{"version": "0.11.0"})
	case p == "/get_server_info" && f.Kind == SGLang:
		writeJSON(w, map[string]any{"version": "0.5.3", "model_path": "fake/sglang", "disable_radix_cache": false})
	case p == "/api/version" && f.Kind == Ollama:
		writeJSON(w, map[string]any{"version": "0.12.6"})
	case p == "/metrics" && (f.Kind == VLLM || f.Kind == SGLang):
		f.metrics(w)
	case (p == "/reset_prefix_cache" && f.Kind == VLLM || p == "/flush_cache" && f.Kind == SGLang) && r.Method == http.MethodPost:
		f.mu.Lock()
		f.seen, f.flushes = nil, f.flushes+1
		f.mu.Unlock()
		w.WriteHeader(http.StatusOK)
	default:
		fail(w, http.StatusNotFound, "not_found_error", "File Not Found")
	}
}

func (f *Fake) metrics(w http.ResponseWriter) {
	f.mu.Lock()
	running, gen := f.running, f.gen
	f.mu.Unlock()
	w.Header().Set("Content-Type", "text/plain; version=0.0.4")
	if f.Kind == VLLM {
		fmt.Fprintf(w, "# HELP vllm:num_requests_running Number of requests in model execution batches.\n# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{engine=\"0\",model_name=\"fake-vllm\"} %d\n", running)
		fmt.Fprintf(w, "# TYPE vllm:num_requests_waiting gauge\nvllm:num_requests_waiting{engine=\"0\",model_name=\"fake-vllm\"} 0\n")
		fmt.Fprintf(w, "# TYPE vllm:generation_tokens_total counter\nvllm:generation_tokens_total{engine=\"0\",model_name=\"fake-vllm\"} %d\n", gen)
		return
	}
	fmt.Fprintf(w, "# TYPE sglang:num_running_reqs gauge\nsglang:num_running_reqs{model_name=\"fake-sglang\"} %d\n", running)
	fmt.Fprintf(w, "# TYPE sglang:num_queue_reqs gauge\nsglang:num_queue_reqs{model_name=\"fake-sglang\"} 0\n")
	fmt.Fprintf(w, "# TYPE sglang:generation_tokens_total counter\nsglang:generation_tokens_total{model_name=\"fake-sglang\"} %d\n", gen)
}

// allowed are the request fields each kind takes; any other is refused, as
// strict servers refuse fields they do not know.
func (f *Fake) allowed(name string) bool {
	switch name {
	case "model", "messages", "stream", "stream_options", "temperature", "seed", "top_p", "stop":
		return true
	case "max_tokens":
		return f.Kind != Hosted
	case "max_completion_tokens":
		return f.Kind != Ollama
	case "ignore_eos":
		return f.Kind == VLLM || f.Kind == SGLang
	}
	return false
}

func (f *Fake) chat(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		fail(w, http.StatusBadRequest, "invalid_request_error", "the body is not JSON")
		return
	}
	f.mu.Lock()
	f.bodies = append(f.bodies, body)
	f.mu.Unlock()
	for name := range body {
		if !f.allowed(name) {
			if name == "max_tokens" {
				fail(w, http.StatusBadRequest, "invalid_request_error", "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.")
			} else {
				fail(w, http.StatusBadRequest, "invalid_request_error", fmt.Sprintf("Unrecognized request argument supplied: %s", name))
			}
			return
		}
	}
	if _, ok := body["model"]; f.RequireModel && !ok {
		fail(w, http.StatusBadRequest, "invalid_request_error", "model is required")
		return
	}
	limit := 16
	for _, k := range []string{"max_tokens", "max_completion_tokens"} {
		if v, ok := body[k].(float64); ok {
			limit = int(v)
		}
	}
	usage := false
	if so, ok := body["stream_options"].(map[string]any); ok {
		usage, _ = so["include_usage"].(bool)
	}
	tokens := tokenize(body["messages"], f.DropSystem)
	f.mu.Lock()
	cached := f.lookup(tokens)
	f.running++
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		f.running--
		f.mu.Unlock()
	}()

	w.Header().Set("Content-Type", "text/event-stream")
	flush := func(s string) bool {
		if _, err := io.WriteString(w, "data: "+s+"\n\n"); err != nil {
			return false
		}
		w.(http.Flusher).Flush()
		return true
	}
	wait := func(d time.Duration) bool {
		select {
		case <-r.Context().Done():
			return false
		case <-time.After(d):
			return true
		}
	}
	perToken, delay := f.PerToken, f.Delay
	if perToken == 0 {
		perToken = 20 * time.Microsecond
	}
	if delay == 0 {
		delay = 2 * time.Millisecond
	}
	if !wait(time.Millisecond + time.Duration(len(tokens)-cached)*perToken) {
		return
	}
	usageNull := ""
	if usage && f.Kind == VLLM {
		usageNull = `,"usage":null`
	}
	chunk := func(delta string, finish string) string {
		fr := "null"
		if finish != "" {
			fr = `"` + finish + `"`
		}
		return `{"id":"chatcmpl-1","object":"chat.completion.chunk","model":"fake-` + f.Kind + `","choices":[{"index":0,"delta":` + delta + `,"finish_reason":` + fr + `}]` + usageNull + `}`
	}
	role := ""
	switch f.Kind {
	case Ollama:
		role = `"role":"assistant",` // in every chunk, no prelude
	default:
		if !flush(chunk(`{"role":"assistant","content":""}`, "")) {
			return
		}
	}
	if f.Kind == VLLM && !flush(chunk(`{"reasoning":"Thinking."}`, "")) {
		return
	}
	for i := 0; i < limit; i++ {
		if i > 0 && !wait(delay) {
			return
		}
		q, _ := json.Marshal(script[i%len(script)])
		if !flush(chunk(`{`+role+`"content":`+string(q)+`}`, "")) {
			return
		}
		f.mu.Lock()
		f.gen++
		f.mu.Unlock()
	}
	final := `{}`
	if f.Kind == Ollama {
		final = `{"role":"assistant","content":""}` // a content field in every chunk
	}
	if !flush(chunk(final, "length")) {
		return
	}
	if usage {
		u := map[string]any{"prompt_tokens": len(tokens), "completion_tokens": limit, "total_tokens": len(tokens) + limit}
		if f.Kind != Ollama && !f.NoCachedCount {
			u["prompt_tokens_details"] = map[string]any{"cached_tokens": cached}
		}
		b, _ := json.Marshal(map[string]any{"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "fake-" + f.Kind, "choices": []any{}, "usage": u})
		flush(string(b))
	}
	flush("[DONE]")
}

// lookup returns how many leading tokens the cache holds and keeps the
// prompt. A prompt found whole still evaluates its last token.
func (f *Fake) lookup(tokens []string) int {
	best := 0
	for _, s := range f.seen {
		n := 0
		for n < len(s) && n < len(tokens) && s[n] == tokens[n] {
			n++
		}
		best = max(best, n)
	}
	if best == len(tokens) && best > 0 {
		best--
	}
	f.seen = append(f.seen, tokens)
	if len(f.seen) > 32 {
		f.seen = f.seen[1:]
	}
	return best
}

// tokenize renders the messages as one text and cuts it into 4-byte
// tokens; dropSystem leaves system messages out.
func tokenize(messages any, dropSystem bool) []string {
	var b strings.Builder
	list, _ := messages.([]any)
	for _, m := range list {
		mm, _ := m.(map[string]any)
		if dropSystem && mm["role"] == "system" {
			continue
		}
		fmt.Fprintf(&b, "<%v>%v\n", mm["role"], mm["content"])
	}
	s := b.String()
	var out []string
	for len(s) > 4 {
		out = append(out, s[:4])
		s = s[4:]
	}
	return append(out, s)
}

var script = []string{"The", " clinic", " opens", " at", " nine.", " Bring", " your", " card", " and", " a", " list", " of", " your", " medicines.", " We", " close", " at", " noon."}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

func fail(w http.ResponseWriter, code int, typ, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": typ, "code": code}})
}
