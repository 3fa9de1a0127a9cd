package servertest

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// The fakes refuse what their servers refuse, so a test that passes
// against them proves the request fitted the kind.
func TestFakesRefuseWhatTheirServersRefuse(t *testing.T) {
	cases := []struct {
		fake *Fake
		body string
		code int
		says string
	}{
		{&Fake{Kind: VLLM}, `{"messages":[{"role":"user","content":"hi"}],"stream":true,"cache_prompt":false}`, 400, "cache_prompt"},
		{&Fake{Kind: Hosted}, `{"messages":[{"role":"user","content":"hi"}],"stream":true,"max_tokens":4}`, 400, "max_completion_tokens"},
		{&Fake{Kind: Ollama}, `{"messages":[{"role":"user","content":"hi"}],"stream":true,"ignore_eos":true}`, 400, "ignore_eos"},
		{&Fake{Kind: Ollama, RequireModel: true}, `{"messages":[{"role":"user","content":"hi"}],"stream":true}`, 400, "model is required"},
		{&Fake{Kind: Hosted, Key: "K"}, `{"model":"m","messages":[{"role":"user","content":"hi"}],"stream":true}`, 401, "API key"},
		{&Fake{Kind: SGLang}, `{"messages":[{"role":"user","content":"hi"}],"stream":true,"max_tokens":2,"ignore_eos":true}`, 200, "[DONE]"},
	}
	for _, c := range cases {
		url := c.fake.Start(t)
		resp, err := http.Post(url+"/v1/chat/completions", "application/json", strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.code || !strings.Contains(string(b), c.says) {
			t.Errorf("%s %s: %d %s, want %d saying %q", c.fake.Kind, c.body, resp.StatusCode, b, c.code, c.says)
		}
	}
}

// Ollama's chunks carry the role in every chunk and have no role-only
// prelude; vLLM's start with one and send usage: null on every chunk
// when usage is asked for, then a choices: [] chunk with cached_tokens.
func TestFakeStreamShapes(t *testing.T) {
	get := func(f *Fake) string {
		url := f.Start(t)
		resp, err := http.Post(url+"/v1/chat/completions", "application/json",
			strings.NewReader(`{"messages":[{"role":"user","content":"hi"}],"stream":true,"max_tokens":2,"stream_options":{"include_usage":true}}`))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	o := get(&Fake{Kind: Ollama})
	if strings.Count(o, `"role":"assistant"`) != 3 || strings.Count(o, `"content":`) != 3 || strings.Contains(o, "cached_tokens") || !strings.Contains(o, `"choices":[]`) {
		t.Errorf("ollama stream:\n%s", o)
	}
	v := get(&Fake{Kind: VLLM})
	if strings.Count(v, `"role":"assistant"`) != 1 || !strings.Contains(v, `"usage":null`) || !strings.Contains(v, `"cached_tokens":0`) ||
		!strings.Contains(v, `"reasoning":`) {
		t.Errorf("vllm stream:\n%s", v)
	}
}
