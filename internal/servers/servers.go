// Package servers knows the kinds of LLM server ttftlab measures
// (llama.cpp's llama-server, vLLM, SGLang, Ollama, and any other
// OpenAI-compatible API, hosted ones included): how to tell which one
// answers at a URL, what each offers, and what ttftlab uses where one lacks
// something (docs/servers.md holds the same table for readers).
package servers

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"ttftlab/internal/metrics"
)

// Kind names a kind of server.
type Kind string

const (
	LlamaCpp Kind = "llama.cpp"
	VLLM     Kind = "vllm"
	SGLang   Kind = "sglang"
	Ollama   Kind = "ollama"
	// OpenAI is any other server of the OpenAI API, hosted ones included.
	OpenAI Kind = "openai-compatible"
)

// Kinds lists every kind, in the order Detect tries them.
var Kinds = []Kind{LlamaCpp, SGLang, VLLM, Ollama, OpenAI}

// Caps is what a kind of server offers, and what ttftlab does where it
// offers nothing.
type Caps struct {
	Kind Kind `json:"kind"`
	// Health is the path whose 200 says the server is ready.
	Health string `json:"health"`
	// LlamaFields is true when llama.cpp's own request fields
	// (cache_prompt, return_progress, n_probs, ...) may be sent; strict
	// servers reject fields they do not know, so they go to llama.cpp only.
	LlamaFields bool `json:"llama_fields"`
	// IgnoreEOS is true when the server takes ignore_eos (llama.cpp, vLLM,
	// SGLang).
	IgnoreEOS bool `json:"ignore_eos"`
	// TokenLimit is the request field of the answer's token limit for chat
	// and completions: max_tokens, or max_completion_tokens where the
	// server refuses max_tokens (OpenAI's API for its newer models).
	TokenLimit string `json:"token_limit"`
	// ColdPrompt is true when the server ignores cache_prompt: false, so a
	// request that must not reuse the cache starts with a line of its own.
	ColdPrompt bool `json:"cold_prompt"`
	// Timings is true when the last chunk carries llama.cpp's timings
	// (prompt_n, cache_n, prompt_ms: server-side prefill time).
	Timings bool `json:"timings"`
	// Usage is true when the server sends usage with
	// stream_options.include_usage (prompt_tokens).
	Usage bool `json:"usage"`
	// CachedTokens is true when usage says how many prompt tokens came from
	// the cache (prompt_tokens_details.cached_tokens).
	CachedTokens bool `json:"cached_tokens"`
	// Flush is the POST path that empties the prompt cache, "" when the
	// server offers none. llama.cpp has none either: its lab steps replace
	// the slot's cache with a short unrelated request (Evict).
	Flush string `json:"flush"`
	// Evict is true when a short unrelated request empties the cache
	// (llama.cpp's slot keeps one prompt).
	Evict bool `json:"evict"`
	// Slots is true when /slots says which slot is processing.
	Slots bool `json:"slots"`
	// Running is the Prometheus gauge of running requests at /metrics, ""
	// when the kind serves none.
	Running string `json:"running_metric"`
}

// CanFlush is true when the prompt cache can be emptied on demand.
func (c Caps) CanFlush() bool { return c.Flush != "" || c.Evict }

// CapsOf returns what a kind offers. An unknown kind is treated as
// OpenAI-compatible.
func CapsOf(k Kind) Caps {
	names, _ := metrics.For(string(k))
	c := Caps{Kind: k, Health: "/health", TokenLimit: "max_tokens", Running: names.Running, ColdPrompt: true, Usage: true}
	switch k {
	case LlamaCpp:
		c.LlamaFields, c.IgnoreEOS, c.ColdPrompt, c.Timings, c.Evict, c.Slots = true, true, false, true, true, true
		c.CachedTokens = true // timings.cache_n
	case VLLM:
		c.IgnoreEOS, c.CachedTokens, c.Flush = true, true, "/reset_prefix_cache"
	case SGLang:
		c.IgnoreEOS, c.CachedTokens, c.Flush = true, true, "/flush_cache"
	case Ollama:
		c.Health = "/api/version"
	default:
		c.Kind, c.Health, c.TokenLimit, c.CachedTokens = OpenAI, "/v1/models", "max_completion_tokens", true
	}
	return c
}

// llamaFields are llama.cpp's own request fields, which no other kind is
// sent (a strict server answers 400 to a field it does not know).
var llamaFields = []string{
	"cache_prompt", "return_progress", "n_probs", "id_slot", "n_cache_reuse", "timings_per_token",
	"n_predict", "n_keep", "n_indent", "t_max_predict_ms", "t_max_prompt_ms", "samplers", "dynatemp_range",
	"dynatemp_exponent", "mirostat", "mirostat_tau", "mirostat_eta", "dry_multiplier", "dry_base",
	"dry_allowed_length", "dry_penalty_last_n", "dry_sequence_breakers", "xtc_probability", "xtc_threshold",
	"typical_p", "penalty_last_n", "post_sampling_probs", "return_tokens", "lora",
}

// Dropped lists the request fields a kind must not be sent, the
// llama.cpp-only ones for every kind but llama.cpp, ignore_eos where the
// server does not take it.
func Dropped(k Kind) []string {
	c := CapsOf(k)
	if c.LlamaFields {
		return nil
	}
	out := append([]string(nil), llamaFields...)
	if !c.IgnoreEOS {
		out = append(out, "ignore_eos")
	}
	return out
}

// Getter sends one GET of a path of the server ("/health", "/v1/models")
// and returns any HTTP status as an answer; err is for no answer at all.
// The probes here decide which paths to ask; the caller decides how a
// request is sent: the URL join, headers, keys and TLS.
type Getter func(ctx context.Context, path string) (status int, body []byte, err error)

// get is the one request the probes make.
func get(ctx context.Context, g Getter, path string) (int, []byte, error) {
	return g(ctx, path)
}

// Detection is what Detect found.
type Detection struct {
	Kind Kind `json:"kind"`
	// Evidence names the answer that told the kind, e.g.
	// "GET /version answered {\"version\": ...} and /metrics has vllm: names".
	Evidence string `json:"evidence"`
	// Version is the server's version or build when it said one.
	Version string `json:"version,omitempty"`
}

// Detect asks the server which kind it is: llama.cpp answers
// /props with default_generation_settings, SGLang /get_server_info, vLLM
// /version (and vllm: metrics when it serves them), Ollama /api/version;
// any other server is OpenAI-compatible. The paths are asked at once, in
// one Round; requests that fail only rule a kind out.
func Detect(ctx context.Context, g Getter) Detection {
	ctx, cancel := Round(ctx)
	defer cancel()
	paths := []string{"/props", "/get_server_info", "/version", "/api/version"}
	got := askAll(ctx, g, paths...)
	var props struct {
		Settings  map[string]any `json:"default_generation_settings"`
		BuildInfo string         `json:"build_info"`
	}
	if object(got["/props"], &props) && props.Settings != nil {
		return Detection{Kind: LlamaCpp, Evidence: "GET /props answered with default_generation_settings", Version: props.BuildInfo}
	}
	var sg map[string]any
	if object(got["/get_server_info"], &sg) {
		v, _ := sg["version"].(string)
		return Detection{Kind: SGLang, Evidence: "GET /get_server_info answered a JSON object", Version: v}
	}
	var ver struct {
		Version string `json:"version"`
	}
	if object(got["/version"], &ver) && ver.Version != "" {
		d := Detection{Kind: VLLM, Evidence: "GET /version answered {\"version\": ...}", Version: ver.Version}
		if code, body, err := get(ctx, g, "/metrics"); err == nil && code == http.StatusOK {
			if f, err := metrics.Families(body); err == nil && metrics.HasPrefix(f, "vllm:") {
				d.Evidence += " and /metrics has vllm: names"
			}
		}
		return d
	}
	var ol struct {
		Version string `json:"version"`
	}
	if object(got["/api/version"], &ol) && ol.Version != "" {
		return Detection{Kind: Ollama, Evidence: "GET /api/version answered {\"version\": ...}", Version: ol.Version}
	}
	d := Detection{Kind: OpenAI, Evidence: "none of /props, /get_server_info, /version, /api/version answered as its server does"}
	var stalled []string
	for _, p := range paths {
		if Stalled(ctx, got[p].err) {
			stalled = append(stalled, p)
		}
	}
	switch {
	case len(stalled) == len(paths):
		d.Evidence = fmt.Sprintf("none of %s answered within %v", strings.Join(paths, ", "), ProbeTimeout)
	case len(stalled) > 0:
		d.Evidence += fmt.Sprintf("; %s never answered within %v", strings.Join(stalled, ", "), ProbeTimeout)
	}
	return d
}

// object decodes a 200 JSON object answer into v.
func object(a reply, v any) bool {
	if a.err != nil || a.status != http.StatusOK {
		return false
	}
	b := strings.TrimSpace(string(a.body))
	if !strings.HasPrefix(b, "{") {
		return false
	}
	return json.Unmarshal([]byte(b), v) == nil
}

// AnswerError is a server's answer that could not be read; the caller,
// who knows the server's URL, names it.
type AnswerError struct {
	Path string
	Err  error
}

func (e *AnswerError) Error() string { return "the " + e.Path + " answer: " + e.Err.Error() }
func (e *AnswerError) Unwrap() error { return e.Err }

// Running reads the kind's running-requests gauge from /metrics; ok is
// false when the kind has no such gauge or the server does not serve it
// (llama-server without --metrics, SGLang without --enable-metrics).
func Running(ctx context.Context, g Getter, k Kind) (v float64, ok bool, err error) {
	names, known := metrics.For(string(k))
	if !known {
		return 0, false, nil
	}
	code, body, err := get(ctx, g, "/metrics")
	if err != nil {
		return 0, false, err
	}
	if code != http.StatusOK {
		return 0, false, nil
	}
	s, err := metrics.Read(body, names)
	if err != nil {
		return 0, false, &AnswerError{Path: "/metrics", Err: err}
	}
	if s.Running == nil {
		return 0, false, nil
	}
	return *s.Running, true, nil
}
