package runtime

import (
	"strings"
	"testing"

	"ttftlab/internal/endpoint"
	"ttftlab/internal/servers"
)

// TestModelOf: a synthetic model is named by its chat template, another
// by its alias (unless that is its path) or its file name, a server
// without /props by the model every request asks for.
func TestModelOf(t *testing.T) {
	ep := &endpoint.Endpoint{Base: "http://127.0.0.1:1", Model: "qwen3"}
	for _, c := range []struct {
		props     map[string]any
		name      string
		synthetic bool
	}{
		{map[string]any{"model_path": "/m/small.gguf", "chat_template": "{# ttftlab synthetic model tiny: 2 layers #}"}, "tiny", true},
		{map[string]any{"model_path": "/m/stories260K.gguf", "model_alias": "stories"}, "stories", false},
		{map[string]any{"model_path": "/m/stories260K.gguf", "model_alias": "/m/stories260K.gguf"}, "stories260K", false},
		{map[string]any{"model_path": "/m/weights.bin"}, "weights.bin", false},
		{map[string]any{}, "qwen3", false},
	} {
		m := ModelOf(c.props, ep)
		if m.Name == nil || *m.Name != c.name || m.Synthetic != c.synthetic {
			t.Errorf("%v: %+v, want %s (synthetic %v)", c.props, m, c.name, c.synthetic)
		}
		if _, has := c.props["model_path"]; has != (m.Path != nil) {
			t.Errorf("%v: path %v", c.props, m.Path)
		}
	}
	if m := ModelOf(nil, &endpoint.Endpoint{Base: "http://127.0.0.1:1"}); m.Name != nil || m.Path != nil {
		t.Errorf("nothing known: %+v", m)
	}
}

// TestServerOf: the context and slots from /props, threads and the
// host-memory cache from the command line of a server ttftlab started
// (none of a server it did not), the endpoint with its key only as where
// it was set.
func TestServerOf(t *testing.T) {
	props := map[string]any{"default_generation_settings": map[string]any{"n_ctx": 4096.0}, "total_slots": 4.0, "build_info": "b1"}
	ep := &endpoint.Endpoint{Base: "http://127.0.0.1:1", Key: "sk-secret", KeySource: "OPENAI_API_KEY"}
	s := ServerOf(props, []string{"-m", "x.gguf", "--threads", "2", "-cram", "512"}, ep, servers.LlamaCpp)
	if *s.NCtx != 4096 || *s.Slots != 4 || *s.Threads != 2 || *s.CacheRAM != 512 || *s.Build != "b1" || s.Kind != "llama.cpp" || len(s.Args) != 6 {
		t.Errorf("%+v", s)
	}
	if s.Endpoint == nil || s.Endpoint.URL != ep.Base || strings.Contains(s.Endpoint.APIKey, "sk-secret") || !strings.Contains(s.Endpoint.APIKey, "OPENAI_API_KEY") {
		t.Errorf("endpoint %+v", s.Endpoint)
	}
	s = ServerOf(nil, nil, ep, servers.VLLM)
	if s.NCtx != nil || s.Slots != nil || s.Threads != nil || s.CacheRAM != nil || s.Args != nil || s.Build != nil || s.Kind != "vllm" {
		t.Errorf("a server without /props that ttftlab did not start: %+v", s)
	}
}

// TestRunInfoBinding: run_info takes the lab's props.json as a table, an
// empty one (a server without /props, whose {} encodes as an array) or
// none, and gives the model and server records.
func TestRunInfoBinding(t *testing.T) {
	vm, _ := testVM(t, Config{Server: "http://127.0.0.1:1", Kind: servers.Detection{Kind: "vllm"}})
	for expr, want := range map[string]string{
		`run_info({model_path = "/m/stories260K.gguf", total_slots = 2}).model.name`:   "stories260K",
		`run_info({model_path = "/m/stories260K.gguf", total_slots = 2}).server.slots`: "2",
		`run_info({}).server.kind`:     "vllm",
		`run_info().server.kind`:       "vllm",
		`run_info({}).model.synthetic`: "false",
	} {
		if got := eval(t, vm, expr).String(); got != want {
			t.Errorf("%s = %s, want %s", expr, got, want)
		}
	}
	if err := vm.L.DoString(`run_info("props")`); err == nil || !strings.Contains(err.Error(), "want /props as a table") {
		t.Errorf("run_info of a string: %v", err)
	}
}
