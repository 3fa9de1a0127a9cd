package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ttftlab/internal/artifact"
	"ttftlab/internal/servers/servertest"
)

// kindCase is one fake server kind and what its lab must show.
type kindCase struct {
	fake, kind string
	// skipped are the steps the kind cannot support, each with a word of
	// its reason.
	skipped map[string]string
	// evidence is cancel.json's evidence.
	evidence string
	// noCachedCount: the fake's usage says nothing of its cache.
	noCachedCount bool
}

// fakeKeyForTests is the key the hosted fake requires.
const fakeKeyForTests = "sk-fake-hosted-51e0"

// strictFake is a fake of the case's kind as strict as the real server:
// Ollama refuses a request without "model", the hosted API one without
// its key; args are the flags that reach it.
func strictFake(c kindCase) (*servertest.Fake, []string) {
	// 200 µs a prompt token not in the cache: a cold prompt of the cache
	// and barge-in steps (about 300 tokens) takes tens of ms, a hit about
	// 1, so a busy machine's pauses of a few ms cannot turn a repetition's
	// hit slower than its miss, as at the fake's default 20 µs.
	f := &servertest.Fake{Kind: c.fake, RequireModel: c.fake == servertest.Ollama || c.fake == servertest.Hosted,
		NoCachedCount: c.noCachedCount, PerToken: 200 * time.Microsecond}
	if c.fake == servertest.Hosted {
		f.Key = fakeKeyForTests
		return f, []string{"--api-key", fakeKeyForTests}
	}
	return f, nil
}

var kindCases = []kindCase{
	{fake: servertest.VLLM, kind: "vllm", skipped: map[string]string{}, evidence: "metrics"},
	{fake: servertest.SGLang, kind: "sglang", skipped: map[string]string{}, evidence: "metrics"},
	{fake: servertest.Ollama, kind: "ollama", skipped: map[string]string{
		"cache": "cached_tokens", "bargein": "cached_tokens", "prefix": "cached_tokens"}, evidence: "client"},
	{fake: servertest.Hosted, kind: "openai-compatible", skipped: map[string]string{
		"bargein": "cannot flush"}, evidence: "client"},
}

// TestLabOnEveryKind runs the whole lab and check, through the command
// line, against a fake vLLM, SGLang, Ollama and hosted API, and a hosted
// API whose usage has no cached-token count (its prefix step failed where
// the cache step was skipped): every step passes or is skipped with its
// reason, and check passes. Fails before
// this change: the lab said "something answers at URL, but not as an LLM
// server" (vLLM's empty /health, Ollama's and the hosted API's 404), and
// llama.cpp's fields in every body were refused by strict servers.
func TestLabOnEveryKind(t *testing.T) {
	noCount := kindCase{servertest.Hosted, "openai-compatible", map[string]string{"cache": "no cached-token count",
		"prefix": "no cached-token count", "bargein": "cannot flush"}, "client", true}
	for _, c := range append(kindCases, noCount) {
		t.Run(c.fake, func(t *testing.T) {
			fake, args := strictFake(c)
			url := fake.Start(t)
			out := t.TempDir()
			code, stdout, stderr := runCLI(append([]string{"lab", "--server", url, "--out", out, "--no-report"}, args...)...)
			t.Logf("lab output:\n%s%s", stdout, stderr)
			if code != 0 {
				t.Fatalf("lab exited %d", code)
			}
			if !strings.Contains(stderr, "server kind: "+c.kind+" (") {
				t.Errorf("the lab did not print the kind %s", c.kind)
			}
			var steps artifact.Steps
			readJSON(t, filepath.Join(out, "steps.json"), &steps)
			_, call := labSpeechSteps(t)
			for _, st := range steps.Steps {
				want, skip := c.skipped[st.Name]
				if st.Name == "call" && call == "skipped" {
					want, skip = "speech-to-text", true
				}
				if st.Name == "realtime" {
					want, skip = "no Realtime server: run with --realtime URL", true
				}
				switch {
				case skip && (st.Status != artifact.StepSkipped || !strings.Contains(st.Detail, want)):
					t.Errorf("step %s: %s (%s), want skipped for %q", st.Name, st.Status, st.Detail, want)
				case !skip && st.Status != artifact.StepPassed:
					t.Errorf("step %s: %s (%s), want passed", st.Name, st.Status, st.Detail)
				case st.Name == "bargein" && !skip && c.evidence == "metrics" && !strings.Contains(st.Detail, "; running-requests gauge at 0 idle "):
					// No slot was watched: the gauge was (it said "slot idle").
					t.Errorf("step bargein: %q does not name the gauge it watched", st.Detail)
				}
			}
			var server artifact.ServerKind
			readJSON(t, filepath.Join(out, "server.json"), &server)
			if server.Kind != c.kind || server.Evidence == "" {
				t.Errorf("server.json %+v, want kind %s with its evidence", server, c.kind)
			}
			// The report summarises what was measured on every kind and
			// names each step that was not (it was skipped, "needs step
			// cache", where a step was). The model is the one every
			// request asked for (it was "unknown" on every server without
			// /props).
			var rep struct {
				Model struct {
					Name *string `json:"name"`
				} `json:"model"`
				TTFTP50Ms       *float64          `json:"ttft_p50_ms"`
				CacheTTFTMs     *float64          `json:"cache_ttft_ms"`
				FirstAudioP50Ms *float64          `json:"first_audio_p50_ms"`
				NotMeasured     map[string]string `json:"not_measured"`
			}
			readJSON(t, filepath.Join(out, "report.json"), &rep)
			if rep.Model.Name == nil || *rep.Model.Name != "fake-"+c.fake {
				t.Errorf("report.json model %v, want fake-%s", rep.Model.Name, c.fake)
			}
			for _, step := range []string{"cache", "bargein", "prefix"} {
				why, named := rep.NotMeasured[step]
				if _, skipped := c.skipped[step]; skipped != named || (named && !strings.HasPrefix(why, "skipped: ")) {
					t.Errorf("report.json not_measured %v: step %s skipped %v", rep.NotMeasured, step, skipped)
				}
			}
			// The audio step's figure is summarised too (report.json had
			// none), or the step named when it did not measure.
			for _, st := range steps.Steps {
				if st.Name == "audio" && (st.Status == artifact.StepPassed) != (rep.FirstAudioP50Ms != nil) ||
					st.Name == "audio" && st.Status != artifact.StepPassed && rep.NotMeasured["audio"] == "" {
					t.Errorf("report.json first_audio_p50_ms %v, not_measured %v: step audio %s", rep.FirstAudioP50Ms, rep.NotMeasured, st.Status)
				}
			}
			if _, skipped := c.skipped["cache"]; rep.TTFTP50Ms == nil || (rep.CacheTTFTMs == nil) != skipped {
				t.Errorf("report.json ttft_p50_ms %v, cache_ttft_ms %v: want the measured, null for the skipped", rep.TTFTP50Ms, rep.CacheTTFTMs)
			}
			// The version the server said when asked its kind (it was
			// always null).
			if said := c.fake != servertest.Hosted; (server.Version != nil && *server.Version != "") != said {
				t.Errorf("server.json version %v; the fake said one: %v", server.Version, said)
			}
			if _, cancelled := c.skipped["cancel"]; !cancelled {
				var cancel artifact.Cancel
				readJSON(t, filepath.Join(out, "cancel.json"), &cancel)
				if cancel.Evidence != c.evidence || (cancel.SlotIdleAfterMs == nil) != (c.evidence == "client") {
					t.Errorf("cancel.json evidence %q, slot_idle_after_ms %v; want %q", cancel.Evidence, cancel.SlotIdleAfterMs, c.evidence)
				}
			}
			var prefill []artifact.PrefillRow
			readJSON(t, filepath.Join(out, "prefill.json"), &prefill)
			for _, r := range prefill {
				if r.PromptMs != nil || r.TokensFrom != "usage" || r.ColdPrompt == "" {
					t.Errorf("prefill row %+v: want prompt_ms null, tokens from usage, the cold prompt named", r)
				}
			}
			for i, b := range fake.Bodies() {
				for _, f := range []string{"cache_prompt", "return_progress", "n_probs"} {
					if _, ok := b[f]; ok {
						t.Fatalf("request %d carried llama.cpp's %s: %v", i, f, b)
					}
				}
			}
			code, stdout, stderr = runCLI("check", out)
			t.Logf("check output:\n%s%s", stdout, stderr)
			if code != 0 || !strings.Contains(stdout, " 0 failed") {
				t.Fatalf("check exited %d", code)
			}
			for _, line := range []string{"PASS server kind: " + c.kind} {
				if !strings.Contains(stdout, line) {
					t.Errorf("check lacks %q", line)
				}
			}
		})
	}
}

// TestLoadOnEveryKind runs a small load against each fake kind: it ends
// with every request answered, load.json names the kind, and server.jsonl
// carries the kind with the running-requests gauge where the kind has one.
// Fails before this change: load read /props, which none of them serves.
func TestLoadOnEveryKind(t *testing.T) {
	t.Parallel()
	for _, c := range kindCases {
		t.Run(c.fake, func(t *testing.T) {
			fake, args := strictFake(c)
			url := fake.Start(t)
			out := t.TempDir()
			code, stdout, stderr := runCLI(append([]string{"load", "--server", url, "--concurrency", "1,2", "--requests", "4",
				"--out", out, "--slo", "ttft_ms<=60000@p95", "--no-report"}, args...)...)
			t.Logf("%s%s", stdout, stderr)
			if code != 0 {
				t.Fatalf("load exited %d", code)
			}
			var res artifact.Load
			readJSON(t, filepath.Join(out, "load.json"), &res)
			if res.Settings.ServerKind != c.kind || res.Server == nil || res.Server.Kind != c.kind {
				t.Errorf("load.json settings.server_kind %q, server %+v: want %s", res.Settings.ServerKind, res.Server, c.kind)
			}
			if res.Model == nil || res.Model.Name == nil || *res.Model.Name != "fake-"+c.fake {
				t.Errorf("load.json model %+v: want the model every request asked for, fake-%s", res.Model, c.fake)
			}
			for _, l := range res.Levels {
				if l.Summary.OK != l.Summary.Requests || l.Summary.Requests == 0 {
					t.Errorf("level %v: %v of %v requests ok", l.Level, l.Summary.OK, l.Summary.Requests)
				}
			}
			// Each row has the tokens the server's usage says (they came
			// from llama.cpp's timings alone, null on every other kind):
			// the prompt split into evaluated and cached where the server
			// says what came from its cache.
			for _, r := range strictLines[artifact.LoadRequest](t, filepath.Join(out, "requests.jsonl")) {
				cached := c.fake != servertest.Ollama
				if r.PredictedN == nil || *r.PredictedN <= 0 || (r.CacheN != nil) != cached || (r.PromptN != nil) != cached ||
					r.PromptN != nil && *r.PromptN+*r.CacheN <= 0 {
					t.Errorf("row %d: prompt_n %v, cache_n %v, predicted_n %v (a cached count: %v)", r.Index, r.PromptN, r.CacheN, r.PredictedN, cached)
					break
				}
			}
			lines := readLines(t, filepath.Join(out, "server.jsonl"))
			if len(lines) == 0 {
				t.Fatal("server.jsonl is empty")
			}
			gauge := 0
			for _, line := range lines {
				var s artifact.LoadServerSample
				if err := json.Unmarshal([]byte(line), &s); err != nil {
					t.Fatalf("server.jsonl line %q: %v", line, err)
				}
				if s.Kind != c.kind {
					t.Fatalf("server.jsonl line %q: kind %q, want %s", line, s.Kind, c.kind)
				}
				if s.RequestsProcessing != nil {
					gauge++
				}
			}
			if hasGauge := c.evidence == "metrics"; (gauge > 0) != hasGauge {
				t.Errorf("%d of %d samples carry requests_processing; the kind has a gauge: %v", gauge, len(lines), hasGauge)
			}
		})
	}
}

// TestLabCancelEvidenceFromTheGauge runs the lab's cancel and barge-in
// steps against the real llama-server with /slots turned off
// (--no-slots) and --metrics on: the evidence that the server stopped the
// cut request comes from llamacpp:requests_processing, polled until it
// drops, and check passes. Fails before this change: the cancel step read
// /slots, which answers 501, and failed.
func TestLabCancelEvidenceFromTheGauge(t *testing.T) {
	srv := startLlama(t, "--no-slots", "--metrics")
	out := t.TempDir()
	code, stdout, stderr := runCLI("lab", "--server", srv.URL, "--out", out, "--server-log", srv.LogPath, "--no-report",
		"--", "server", "cancel", "bargein")
	t.Logf("lab output:\n%s%s", stdout, stderr)
	if code != 0 {
		t.Fatalf("lab exited %d", code)
	}
	if !strings.Contains(stderr, "server kind: llama.cpp (") {
		t.Errorf("the kind was not printed")
	}
	var cancel artifact.Cancel
	readJSON(t, filepath.Join(out, "cancel.json"), &cancel)
	if cancel.Evidence != "metrics" || cancel.SlotIdleAfterMs == nil || *cancel.SlotIdleAfterMs < 0 {
		t.Errorf("cancel.json evidence %q, slot_idle_after_ms %v: want the gauge's time", cancel.Evidence, cancel.SlotIdleAfterMs)
	}
	if cancel.LogCancelTask == nil || !*cancel.LogCancelTask {
		t.Errorf("the server log lacks the cancel of the cut request")
	}
	code, stdout, stderr = runCLI("check", out, "--server-log", srv.LogPath)
	t.Logf("check output:\n%s%s", stdout, stderr)
	if code != 0 || !strings.Contains(stdout, "PASS cancel evidence: from metrics") {
		t.Fatalf("check exited %d or did not pass the gauge's evidence", code)
	}
}

// TestReplAskOnEveryKind: the REPL detects the kind and ask() answers on
// each fake, its requests fitted to the kind (no llama.cpp fields).
func TestReplAskOnEveryKind(t *testing.T) {
	t.Parallel()
	for _, c := range kindCases {
		t.Run(c.fake, func(t *testing.T) {
			fake, args := strictFake(c)
			url := fake.Start(t)
			var out, errb bytes.Buffer
			code := Main(context.Background(), append([]string{"repl", "--server", url, "--out", t.TempDir()}, args...),
				Stdio{In: strings.NewReader("ask('What should a new patient bring?')\n"), Out: &out, Err: &errb})
			t.Logf("%s%s", out.String(), errb.String())
			if code != 0 || !strings.Contains(out.String(), "The clinic opens at nine.") {
				t.Fatalf("repl exited %d without the answer", code)
			}
			if !strings.Contains(errb.String(), "server kind: "+c.kind) {
				t.Errorf("the REPL did not note the kind %s", c.kind)
			}
			for _, b := range fake.Bodies() {
				if _, ok := b["cache_prompt"]; ok {
					t.Errorf("ask sent cache_prompt to %s: %v", c.kind, b)
				}
			}
		})
	}
}
