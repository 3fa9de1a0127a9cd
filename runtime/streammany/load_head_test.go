package streammany_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"ttftlab/internal/artifact"
	"ttftlab/internal/servers"
	"ttftlab/runtime"
)

// TestLoadHeadVocab: with a Mooncake trace, load.json's settings.trace
// .vocab is llama.cpp's n_vocab from GET /v1/models (the settings given
// left as they were); a call log, or another kind of server, has none
// (0); a llama.cpp that does not say is an error naming the field.
func TestLoadHeadVocab(t *testing.T) {
	var models atomic.Value
	models.Store(`{"object":"list","data":[{"id":"m","meta":{"vocab_type":1,"n_vocab":1536,"n_ctx":256}}]}`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/props":
			io.WriteString(w, `{"total_slots":1}`)
		case "/v1/models":
			io.WriteString(w, models.Load().(string))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	head := func(kind servers.Kind, format string) (*artifact.LoadTrace, *artifact.LoadTrace, error) {
		vm, _ := testVM(t, runtime.Config{Server: srv.URL, Kind: servers.Detection{Kind: kind}})
		given := &artifact.LoadTrace{File: "t.jsonl", Format: format, SHA256: "ab", Speed: 1}
		doc, err := vm.LoadHead(context.Background(), artifact.LoadSettings{Mode: "trace", Trace: given}, false)
		return given, doc.Settings.Trace, err
	}
	given, got, err := head(servers.LlamaCpp, "mooncake")
	if err != nil || got == nil || got.Vocab != 1536 || given.Vocab != 0 || got.SHA256 != "ab" {
		t.Errorf("llama.cpp, mooncake: %+v (given %+v), %v", got, given, err)
	}
	for _, c := range []struct {
		kind   servers.Kind
		format string
	}{{servers.LlamaCpp, "calls"}, {servers.VLLM, "mooncake"}} {
		if _, got, err := head(c.kind, c.format); err != nil || got == nil || got.Vocab != 0 {
			t.Errorf("%s, %s: %+v, %v", c.kind, c.format, got, err)
		}
	}
	models.Store(`{"object":"list","data":[{"id":"m"}]}`)
	if _, _, err := head(servers.LlamaCpp, "mooncake"); err == nil || !strings.Contains(err.Error(), "n_vocab") {
		t.Errorf("a llama.cpp without n_vocab: %v", err)
	}
}
