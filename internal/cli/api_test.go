package cli

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// apisScript streams the same question through the three APIs of one
// server in one run and writes what each measured. A run whose whole
// answer came in one read (ttft == total) is repeated, as the lab's
// timed_stream does.
const apisScript = `
local messages = {
  { role = "system", content = "You are a clinic phone assistant. Answer in one short sentence." },
  { role = "user", content = "What should a new patient bring?" },
}
local out = {}
for _, api in ipairs({ "chat", "completions", "responses" }) do
  local r
  for _ = 1, 5 do
    os.remove(OUT .. "/" .. api .. ".sse")
    local chunks, total_ms, timings, info = stream(messages, { api = api, max_tokens = 48, cache_prompt = false,
      raw_out = api .. ".sse" })
    local text = {}
    for i, c in ipairs(chunks) do text[i] = c.text end
    r = { api = info.api, ttft_ms = info.ttft_ms, total_ms = total_ms, first_event_ms = info.first_event_ms,
      first_output_ms = info.first_output_ms, done = info.done, finish_reason = info.finish_reason,
      chunks = #chunks, text = table.concat(text), prompt_tokens = info.prompt_tokens,
      cached_tokens = info.cached_tokens, tokens_from = info.tokens_from, prompt_n = timings and timings.prompt_n }
    if info.ttft_ms and info.ttft_ms < total_ms then break end
  end
  out[api] = r
end
write_json("apis.json", out)
`

type apiRun struct {
	API           string   `json:"api"`
	TTFTMs        *float64 `json:"ttft_ms"`
	TotalMs       float64  `json:"total_ms"`
	FirstEventMs  *float64 `json:"first_event_ms"`
	FirstOutputMs *float64 `json:"first_output_ms"`
	Done          bool     `json:"done"`
	FinishReason  string   `json:"finish_reason"`
	Chunks        int      `json:"chunks"`
	Text          string   `json:"text"`
	PromptTokens  *float64 `json:"prompt_tokens"`
	CachedTokens  *float64 `json:"cached_tokens"`
	TokensFrom    string   `json:"tokens_from"`
}

// TestAPIsBesideChatEndToEnd measures /v1/chat/completions,
// /v1/completions and /v1/responses of the real llama-server in the same
// run: each streams content with ttft < total, ends at its own end
// marker, reads the prompt's tokens from timings, and the three prompts
// are the same tokens (completions renders the messages with the server's
// template, responses sends them as input items), all answered by the
// same model. Fails before opts.api: stream() knew only chat.
func TestAPIsBesideChatEndToEnd(t *testing.T) {
	srv := startLlama(t)
	dir := t.TempDir()
	script := filepath.Join(dir, "apis.lua")
	if err := os.WriteFile(script, []byte(apisScript), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	code, stdout, stderr := runCLI("run", script, "--server", srv.URL, "--out", out)
	if code != 0 {
		t.Fatalf("run exited %d:\n%s%s", code, stdout, stderr)
	}
	var runs map[string]apiRun
	readJSON(t, filepath.Join(out, "apis.json"), &runs)
	var props struct {
		ModelPath string `json:"model_path"`
	}
	resp, err := http.Get(srv.URL + "/props")
	if err != nil {
		t.Fatal(err)
	}
	err = json.NewDecoder(resp.Body).Decode(&props)
	resp.Body.Close()
	if err != nil || props.ModelPath == "" {
		t.Fatalf("props: %v %+v", err, props)
	}
	chat := runs["chat"]
	for _, api := range []string{"chat", "completions", "responses"} {
		r, ok := runs[api]
		switch {
		case !ok:
			t.Fatalf("no %s run in %v", api, runs)
		case r.API != api:
			t.Errorf("%s: info.api %q", api, r.API)
		case r.TTFTMs == nil || r.Chunks == 0 || r.Text == "":
			t.Errorf("%s: no content: %+v", api, r)
		case !(*r.TTFTMs < r.TotalMs):
			t.Errorf("%s: ttft %.3f ms is not before total %.3f ms", api, *r.TTFTMs, r.TotalMs)
		case r.FirstEventMs == nil || *r.FirstEventMs > *r.TTFTMs || r.FirstOutputMs == nil || *r.FirstOutputMs != *r.TTFTMs:
			t.Errorf("%s: first event %v, first output %v, ttft %v", api, r.FirstEventMs, r.FirstOutputMs, *r.TTFTMs)
		case !r.Done:
			t.Errorf("%s: the stream's end was not seen: %+v", api, r)
		case r.TokensFrom != "timings" || r.PromptTokens == nil || r.CachedTokens == nil:
			t.Errorf("%s: prompt tokens %v cached %v from %q", api, r.PromptTokens, r.CachedTokens, r.TokensFrom)
		case chat.PromptTokens != nil && *r.PromptTokens != *chat.PromptTokens:
			t.Errorf("%s: a prompt of %v tokens, chat's has %v: the messages were not rendered alike", api, *r.PromptTokens, *chat.PromptTokens)
		}
		raw, err := os.ReadFile(filepath.Join(out, api+".sse"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(raw), `"model":"`+props.ModelPath+`"`) {
			t.Errorf("%s: the stream does not name the server's model %s", api, props.ModelPath)
		}
		hasDone := strings.Contains(string(raw), "data: [DONE]")
		if hasDone == (api == "responses") {
			t.Errorf("%s: data: [DONE] in the stream: %v", api, hasDone)
		}
		t.Logf("%s: ttft %.2f ms, total %.2f ms, %d chunks, prompt %v tokens, finish %s",
			api, *r.TTFTMs, r.TotalMs, r.Chunks, *r.PromptTokens, r.FinishReason)
	}
	if runs["completions"].Text != chat.Text || runs["responses"].Text != chat.Text {
		t.Errorf("the same prompt at temperature 0 gave different answers:\n chat %q\n completions %q\n responses %q",
			chat.Text, runs["completions"].Text, runs["responses"].Text)
	}
}

// TestLabAPICompletionsAndResponses runs the whole lab with --api
// completions, and the stream and barge-in steps with --api responses,
// against the real llama-server; check reads steps.json's api and passes.
// Fails before --api: the flag was unknown.
func TestLabAPICompletionsAndResponses(t *testing.T) {
	srv := startLlama(t)
	for _, c := range []struct {
		api   string
		steps []string
	}{
		{"completions", nil},
		{"responses", []string{"server", "stream", "ttft", "bargein"}},
	} {
		out := t.TempDir()
		args := append([]string{"lab", "--api", c.api, "--server", srv.URL, "--out", out, "--server-log", srv.LogPath}, "--")
		code, stdout, stderr := runCLI(append(args, c.steps...)...)
		t.Logf("lab --api %s:\n%s%s", c.api, stdout, stderr)
		if code != 0 {
			t.Fatalf("ttftlab lab --api %s exited %d", c.api, code)
		}
		var steps struct {
			API string `json:"api"`
		}
		readJSON(t, filepath.Join(out, "steps.json"), &steps)
		if steps.API != c.api {
			t.Fatalf("steps.json api %q, want %q", steps.API, c.api)
		}
		requireCheckPasses(t, out, srv.LogPath)
		raw, err := os.ReadFile(filepath.Join(out, "sse_raw.txt"))
		if err != nil {
			t.Fatal(err)
		}
		if c.api == "responses" && !strings.Contains(string(raw), "event: response.output_text.delta") ||
			c.api == "completions" && !strings.Contains(string(raw), `"object":"text_completion"`) {
			t.Fatalf("sse_raw.txt is not a %s stream: %.300s", c.api, raw)
		}
	}
}

// TestLoadAPIResponses: load --api responses measures Responses streams
// and records the API in load.json's settings.
func TestLoadAPIResponses(t *testing.T) {
	srv := startLlama(t)
	out := t.TempDir()
	code, stdout, stderr := runCLI("load", "--api", "responses", "--server", srv.URL, "--concurrency", "1",
		"--requests", "3", "--docs", "0", "--out", out)
	t.Logf("%s%s", stdout, stderr)
	if code != 0 {
		t.Fatalf("load --api responses exited %d", code)
	}
	var res struct {
		Settings struct {
			API string `json:"api"`
		} `json:"settings"`
	}
	readJSON(t, filepath.Join(out, "load.json"), &res)
	if res.Settings.API != "responses" {
		t.Errorf("load.json settings.api %q", res.Settings.API)
	}
	rows := jsonlRows(t, filepath.Join(out, "requests.jsonl"))
	if len(rows) != 3 {
		t.Fatalf("%d rows", len(rows))
	}
	for _, r := range rows {
		ttft, ok := r["ttft_ms"].(float64)
		if !ok || !(ttft <= r["total_ms"].(float64)) || r["error"] != nil || r["prompt_n"] == nil {
			t.Errorf("row %v", r)
		}
	}
}

// TestAPIFlagRefusesUnknown: a wrong --api is a usage error naming the
// three.
func TestAPIFlagRefusesUnknown(t *testing.T) {
	code, _, stderr := runCLI("run", "x.lua", "--api", "messages")
	if code != 2 || !strings.Contains(stderr, "chat, completions or responses") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
}
