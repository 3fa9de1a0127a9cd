package servers_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"ttftlab/internal/servers"
	"ttftlab/internal/servers/servertest"
	"ttftlab/internal/stream"
	"ttftlab/internal/stream/streamtest"
)

// Fails before this change: there was no detection, and vLLM's empty 200,
// Ollama's missing /health and a hosted API's 404 were "not an LLM server".
// (llamaserver's TestCheckHealthPerKind probes the same fakes' health.)
func TestDetectPerKind(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		fake string
		kind servers.Kind
	}{
		{servertest.VLLM, servers.VLLM},
		{servertest.SGLang, servers.SGLang},
		{servertest.Ollama, servers.Ollama},
		{servertest.Hosted, servers.OpenAI},
	}
	for _, c := range cases {
		t.Run(c.fake, func(t *testing.T) {
			url := (&servertest.Fake{Kind: c.fake}).Start(t)
			d := servers.Detect(ctx, at(url))
			if d.Kind != c.kind {
				t.Fatalf("detected %s (%s), want %s", d.Kind, d.Evidence, c.kind)
			}
			if d.Evidence == "" {
				t.Error("no evidence")
			}
		})
	}
}

func TestVLLMEvidenceIncludesMetrics(t *testing.T) {
	url := (&servertest.Fake{Kind: servertest.VLLM}).Start(t)
	if d := servers.Detect(context.Background(), at(url)); d.Version != "0.11.0" || !strings.Contains(d.Evidence, "vllm:") {
		t.Errorf("detection %+v: want version 0.11.0 and the vllm: metrics named", d)
	}
}

// A server that answers every path with an event stream (the llama-shaped
// fake) is none of the known kinds.
func TestDetectOther(t *testing.T) {
	url := (&streamtest.FakeLlama{Pieces: []string{"a"}}).Start(t)
	if d := servers.Detect(context.Background(), at(url)); d.Kind != servers.OpenAI {
		t.Errorf("detected %s (%s), want openai-compatible", d.Kind, d.Evidence)
	}
}

func TestRunningGauge(t *testing.T) {
	for _, k := range []servers.Kind{servers.VLLM, servers.SGLang} {
		url := (&servertest.Fake{Kind: string(k)}).Start(t)
		v, ok, err := servers.Running(context.Background(), at(url), k)
		if err != nil || !ok || v != 0 {
			t.Errorf("%s: running %v %v %v, want 0 read", k, v, ok, err)
		}
	}
	url := (&servertest.Fake{Kind: servertest.Ollama}).Start(t)
	if _, ok, _ := servers.Running(context.Background(), at(url), servers.Ollama); ok {
		t.Error("ollama has no gauge, yet one was read")
	}
}

func TestDropped(t *testing.T) {
	if servers.Dropped(servers.LlamaCpp) != nil {
		t.Error("llama.cpp must be sent its own fields")
	}
	for _, k := range []servers.Kind{servers.VLLM, servers.SGLang, servers.Ollama, servers.OpenAI} {
		d := servers.Dropped(k)
		if !slices.Contains(d, "cache_prompt") || !slices.Contains(d, "return_progress") || !slices.Contains(d, "n_probs") {
			t.Errorf("%s: %v lacks llama.cpp's fields", k, d)
		}
		if slices.Contains(d, "ignore_eos") != !servers.CapsOf(k).IgnoreEOS {
			t.Errorf("%s: ignore_eos dropped %v but taken %v", k, slices.Contains(d, "ignore_eos"), servers.CapsOf(k).IgnoreEOS)
		}
	}
}

// at GETs paths of the server at base.
func at(base string) servers.Getter {
	return func(ctx context.Context, path string) (int, []byte, error) { return stream.Get(ctx, base+path) }
}
