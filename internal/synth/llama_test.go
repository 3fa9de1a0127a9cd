package synth

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"ttftlab/internal/gguf"
	"ttftlab/internal/llamaserver"
	"ttftlab/internal/llamaserver/llamatest"
	"ttftlab/internal/stream"
)

// llamaBinary returns llama-server's path, or skips the test (fails when
// TTFTLAB_REQUIRE_LLAMA is set, as in CI).
func llamaBinary(tb testing.TB) string {
	tb.Helper()
	return llamatest.Binary(tb)
}

// serve writes m to a temporary file and serves it with the real
// llama-server on a free port until the test ends.
func serve(tb testing.TB, m *Model) (srv *llamaserver.Server, path string) {
	tb.Helper()
	bin := llamaBinary(tb)
	dir := tb.TempDir()
	path = filepath.Join(dir, m.Info().Name+".gguf")
	if err := m.WriteFile(path); err != nil {
		tb.Fatal(err)
	}
	port, err := llamaserver.FreePort()
	if err != nil {
		tb.Fatal(err)
	}
	logPath := filepath.Join(dir, "llama-server.log")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	srv, err = llamaserver.Start(ctx, llamaserver.Options{Binary: bin, Model: path, Port: port, LogPath: logPath,
		Timeout: 4 * time.Minute})
	if err != nil {
		tb.Fatalf("starting llama-server with %s: %v", path, err)
	}
	tb.Cleanup(func() {
		if err := srv.Stop(10 * time.Second); err != nil {
			tb.Errorf("stopping llama-server: %v", err)
		}
		if tb.Failed() {
			tb.Logf("llama-server log tail:\n%s", llamaserver.TailFile(logPath, 30))
		}
	})
	return srv, path
}

// ask streams one chat completion at temperature 0 and returns the result
// with the answer's text.
func ask(tb testing.TB, url, system, user string, maxTokens int, cache bool) (*stream.Result, string) {
	tb.Helper()
	body, err := stream.EncodeBody(map[string]any{
		"messages": []map[string]string{{"role": "system", "content": system}, {"role": "user", "content": user}},
		"stream":   true, "max_tokens": maxTokens, "temperature": 0, "seed": 7, "cache_prompt": cache,
	})
	if err != nil {
		tb.Fatal(err)
	}
	res, err := stream.Do(context.Background(), stream.Request{URL: url, Body: body, Timeout: 2 * time.Minute})
	if err != nil {
		tb.Fatalf("streaming from %s: %v", url, err)
	}
	var text strings.Builder
	for _, c := range res.Chunks {
		text.WriteString(c.Text)
	}
	return res, text.String()
}

func timing(tb testing.TB, res *stream.Result, key string) float64 {
	tb.Helper()
	v, ok := res.Timings[key].(float64)
	if !ok {
		tb.Fatalf("timings lack %s: %v", key, res.Timings)
	}
	return v
}

func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("%s: %v", url, err)
	}
}

// TestServedAnswerIsTheScript: llama-server loads the tiny model in every
// quantisation, reports it as ours, and at temperature 0 streams exactly
// the script, twice round, whatever the question.
func TestServedAnswerIsTheScript(t *testing.T) {
	for _, q := range []string{"q4_0", "f16", "f32"} {
		t.Run(q, func(t *testing.T) {
			quant, err := gguf.ParseTensorType(q)
			if err != nil {
				t.Fatal(err)
			}
			m := buildPreset(t, "tiny", func(c *Config) { c.Quant = quant })
			srv, path := serve(t, m)
			checkServedModel(t, srv.URL, m, path)
			n := 2*m.Info().ScriptTokens + 3
			want := m.Answer(n)
			for _, question := range []string{"What should a new patient bring?", "Tell me a joke about ✓ unicode — ünïcödé."} {
				res, text := ask(t, srv.URL, "You are a clinic phone assistant.", question, n, false)
				if text != want {
					t.Errorf("question %q:\n got %q\nwant %q", question, text, want)
				}
				if got := timing(t, res, "predicted_n"); got != float64(n) || res.Info.FinishReason != "length" {
					t.Errorf("predicted_n %v, finish %q; want %d, length", got, res.Info.FinishReason, n)
				}
			}
		})
	}
}

func checkServedModel(t *testing.T, url string, m *Model, path string) {
	t.Helper()
	var props struct {
		ModelPath    string `json:"model_path"`
		ChatTemplate string `json:"chat_template"`
	}
	getJSON(t, url+"/props", &props)
	if props.ModelPath != path || NameFromTemplate(props.ChatTemplate) != m.Info().Name {
		t.Errorf("/props: model_path %q, template names %q; want %q, %q", props.ModelPath,
			NameFromTemplate(props.ChatTemplate), path, m.Info().Name)
	}
	var models struct {
		Data []struct {
			Meta struct {
				NVocab  int   `json:"n_vocab"`
				NEmbd   int   `json:"n_embd"`
				NParams int64 `json:"n_params"`
				NCtx    int   `json:"n_ctx_train"`
			} `json:"meta"`
		} `json:"data"`
	}
	getJSON(t, url+"/v1/models", &models)
	if len(models.Data) != 1 {
		t.Fatalf("/v1/models lists %d models", len(models.Data))
	}
	got, info := models.Data[0].Meta, m.Info()
	if got.NVocab != info.Vocab || got.NEmbd != m.cfg.Embd || got.NParams != info.Params || got.NCtx != m.cfg.Ctx {
		t.Errorf("llama-server read vocab %d, embd %d, %d params, ctx %d; the file has %d, %d, %d, %d",
			got.NVocab, got.NEmbd, got.NParams, got.NCtx, info.Vocab, m.cfg.Embd, info.Params, m.cfg.Ctx)
	}
}

// TestServedPrefillAndCache: prefill costs grow with the prompt, and a
// repeated prompt comes from the cache.
func TestServedPrefillAndCache(t *testing.T) {
	m := buildPreset(t, "tiny", nil)
	srv, _ := serve(t, m)
	long := strings.Repeat("Our clinic opens at 8 a.m. on weekdays; bring your insurance card and photo ID. ", 40)
	ask(t, srv.URL, "warm up", "hi", 1, false)
	short, _ := ask(t, srv.URL, "You are a clinic phone assistant.", "Hi?", 4, false)
	big, text := ask(t, srv.URL, "You are a clinic phone assistant. "+long, "Hi?", 4, false)
	if text != m.Answer(4) {
		t.Errorf("long prompt answered %q", text)
	}
	sn, bn := timing(t, short, "prompt_n"), timing(t, big, "prompt_n")
	if !(bn > 20*sn) {
		t.Errorf("prompt_n: short %v, long %v; want the long prompt over 20 times as many tokens", sn, bn)
	}
	if sm, bm := timing(t, short, "prompt_ms"), timing(t, big, "prompt_ms"); !(bm > sm) {
		t.Errorf("prompt_ms: short %v, long %v; the long prompt must take longer", sm, bm)
	}

	// A prompt that differs from the start, so the slot's cache holds none
	// of it yet.
	cached := "Answer briefly. " + long
	first, _ := ask(t, srv.URL, cached, "Hi?", 4, true)
	second, text := ask(t, srv.URL, cached, "Hi?", 4, true)
	fn, sn2 := timing(t, first, "prompt_n"), timing(t, second, "prompt_n")
	if !(sn2*10 <= fn) || timing(t, second, "cache_n") < fn-2 {
		t.Errorf("second identical request evaluated %v tokens (cache_n %v) after %v; want almost all from the cache",
			sn2, timing(t, second, "cache_n"), fn)
	}
	if text != m.Answer(4) {
		t.Errorf("cached prompt answered %q", text)
	}
}

// TestServedCustomText: a text with repeated words and a padded vocabulary
// far wider than the embedding still comes out exactly.
func TestServedCustomText(t *testing.T) {
	m := buildPreset(t, "tiny", func(c *Config) {
		c.Embd, c.Heads, c.KVHeads, c.VocabPad = 64, 2, 1, 30000
		c.Text = "The cat saw the dog.\nThe dog saw the cat, at 9.5 p.m. on Monday.  The end."
	})
	srv, _ := serve(t, m)
	n := 3*m.Info().ScriptTokens + 1
	_, text := ask(t, srv.URL, "sys", "Go.", n, true)
	round := "The cat saw the dog. The dog saw the cat, at 9.5 p.m. on Monday. The end."
	if want := round + " " + round + " " + round + " The"; text != want || m.Answer(n) != want {
		t.Errorf("got %q\nwant %q", text, want)
	}
}

// TestServedCJKScript: llama-server streams a Chinese, Korean or Japanese
// script exactly at temperature 0, a piece of a character or two per
// chunk, and round after round.
func TestServedCJKScript(t *testing.T) {
	for name, script := range map[string]string{"chinese": zhScript, "korean": koScript, "japanese": jaScript} {
		t.Run(name, func(t *testing.T) {
			m := buildPreset(t, "tiny", func(c *Config) { c.Text = script })
			srv, _ := serve(t, m)
			pieces := m.Info().ScriptTokens
			n := 2*pieces + 1
			res, text := ask(t, srv.URL, "你是诊所的电话助理。", "我需要带什么？", n, false)
			if want := script + " " + script + " " + m.Answer(1); text != want || m.Answer(n) != want {
				t.Errorf("got  %q\nwant %q", text, want)
			}
			if len(res.Chunks) != n || pieces < utf8.RuneCountInString(script)/2 {
				t.Errorf("%d chunks for %d tokens, %d pieces for %d characters; want a chunk per token and a character or two per piece",
					len(res.Chunks), n, pieces, utf8.RuneCountInString(script))
			}
		})
	}
}
