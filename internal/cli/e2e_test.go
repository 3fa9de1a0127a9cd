package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ttftlab/internal/artifact"
)

// TestLabEndToEnd runs the whole lab against the real llama-server with the
// bundled KB and then `ttftlab check` on what it wrote.
func TestLabEndToEnd(t *testing.T) {
	srv := startLlama(t)
	out := t.TempDir()
	code, stdout, stderr := runCLI("lab", "--server", srv.URL, "--out", out, "--server-log", srv.LogPath)
	t.Logf("lab output:\n%s%s", stdout, stderr)
	if code != 0 {
		t.Fatalf("ttftlab lab exited %d", code)
	}
	files := []string{"health.json", "props.json", "sse_raw.txt", "chunks.jsonl", "ttft.json",
		"prefill.json", "cache.json", "sentence.json", "cancel.json", "bargein.json", "prefix.json", "report.json"}
	// The audio step speaks through Debian's espeak-ng (.ci/run installs it),
	// the call step listens through pocketsphinx too; without them a step
	// is skipped, its checks with it. The realtime step is skipped without
	// --realtime, so check always skips some.
	verdict := " passed, 0 failed, "
	audio, call := labSpeechSteps(t)
	if audio == "passed" {
		files = append(files, "audio.json")
	}
	if call == "passed" {
		files = append(files, "call.json")
	}
	for _, f := range files {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("artifact missing: %v", err)
		}
	}
	requireCheckPasses(t, out, srv.LogPath)
	compareWithRecorded(t, "lab", out)
	if page := filepath.Join(out, "report.html"); !strings.Contains(stdout, "HTML report: "+page+"\n") {
		t.Errorf("lab did not print its report's path %s", page)
	} else if html, err := os.ReadFile(page); err != nil || !strings.Contains(string(html), verdict) ||
		!strings.Contains(string(html), "found in "+srv.LogPath) {
		t.Errorf("the lab's report lacks check's verdict with the server log (%v)", err)
	}

	// Steps also run alone, reading earlier artifacts where they need them.
	for _, step := range []string{"../../scripts/04_prefill.lua", "../../scripts/13_report.lua"} {
		if code, stdout, stderr := runCLI("run", step, "--server", srv.URL, "--out", out); code != 0 {
			t.Fatalf("%s alone exited %d:\n%s%s", step, code, stdout, stderr)
		}
	}
	requireCheckPasses(t, out, srv.LogPath)

	var cancel map[string]any
	readJSON(t, filepath.Join(out, "cancel.json"), &cancel)
	if cancel["log_cancel_task"] != true {
		t.Errorf("cancel.json log_cancel_task = %v, want true (the server log must show the cut)", cancel["log_cancel_task"])
	}

	// A partial lab on a full folder rebuilds the report from what is
	// there, so the check it suggests passes.
	code, stdout, stderr = runCLI("lab", "--server", srv.URL, "--out", out, "--server-log", srv.LogPath, "--", "ttft")
	if code != 0 || !strings.Contains(stdout, "\n2 passed, 11 not run;") || !strings.Contains(stdout, "check "+out) {
		t.Fatalf("lab -- ttft on a full folder: exit %d\n%s%s", code, stdout, stderr)
	}
	var ttft, report map[string]any
	readJSON(t, filepath.Join(out, "ttft.json"), &ttft)
	readJSON(t, filepath.Join(out, "report.json"), &report)
	if report["ttft_p50_ms"] != ttft["ttft_p50"] {
		t.Errorf("report.json ttft_p50_ms %v is not the new ttft.json's %v", report["ttft_p50_ms"], ttft["ttft_p50"])
	}
	requireCheckPasses(t, out, srv.LogPath)
}

// TestLabOtherKB runs the lab with a KB folder of other documents: nothing
// in the lab may depend on the bundled documents.
func TestLabOtherKB(t *testing.T) {
	srv := startLlama(t)
	kb := t.TempDir()
	topics := []string{"ferry", "library", "garden", "museum", "bakery", "cinema", "station",
		"harbour", "market", "school", "pool", "park", "theatre", "zoo"}
	for i, topic := range topics {
		text := fmt.Sprintf("# The %s\nThe %s opens at %d a.m. and closes at %d p.m. Bring a card.\n", topic, topic, 7+i%3, 4+i%5)
		if err := os.WriteFile(filepath.Join(kb, fmt.Sprintf("%02d-%s.md", i, topic)), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := t.TempDir()
	code, stdout, stderr := runCLI("lab", "--server", srv.URL, "--kb", kb, "--out", out, "--server-log", srv.LogPath)
	if code != 0 {
		t.Fatalf("ttftlab lab with another KB exited %d:\n%s%s", code, stdout, stderr)
	}
	requireCheckPasses(t, out, srv.LogPath)
	var prefill []map[string]any
	readJSON(t, filepath.Join(out, "prefill.json"), &prefill)
	if len(prefill) != 3 {
		t.Fatalf("prefill.json has %d rows, want 3", len(prefill))
	}
}

// TestLabChineseKB runs `ttftlab lab --kb scripts/kb-zh` from the module
// root, as the docs say, against a server with a 2048-token context: every
// step passes `ttftlab check`, and the cache step's prompt (half of the
// 14 documents, rounded up) leaves room for a 120-token answer.
func TestLabChineseKB(t *testing.T) {
	srv := startLlama(t, "-c", "2048")
	out := t.TempDir()
	t.Chdir("../..")
	code, stdout, stderr := runCLI("lab", "--server", srv.URL, "--kb", "scripts/kb-zh", "--out", out, "--server-log", srv.LogPath)
	if code != 0 {
		t.Fatalf("ttftlab lab --kb scripts/kb-zh exited %d:\n%s%s", code, stdout, stderr)
	}
	requireCheckPasses(t, out, srv.LogPath)
	var props struct {
		Settings struct {
			NCtx int `json:"n_ctx"`
		} `json:"default_generation_settings"`
	}
	readJSON(t, filepath.Join(out, "props.json"), &props)
	var cache artifact.Cache
	readJSON(t, filepath.Join(out, "cache.json"), &cache)
	if cache.Docs != 7 {
		t.Errorf("cache.json docs %v, want 7: half of the 14 documents", cache.Docs)
	}
	half := int(cache.First.PromptN + cache.First.Cached())
	if props.Settings.NCtx != 2048 || half == 0 || half+120 > props.Settings.NCtx {
		t.Errorf("half the documents make a %d-token prompt in a %d-token context; with a 120-token answer it must fit 2048",
			half, props.Settings.NCtx)
	}
	t.Logf("half of scripts/kb-zh: a %d-token prompt", half)
}

// TestLabEmbeddedCopy runs the lab from a folder without scripts/: the copy
// built into the binary must run, here for a few steps.
func TestLabEmbeddedCopy(t *testing.T) {
	srv := startLlama(t)
	out := t.TempDir()
	t.Chdir(t.TempDir())
	code, stdout, stderr := runCLI("lab", "--server", srv.URL, "--out", out, "--", "server", "stream", "sentence")
	if code != 0 {
		t.Fatalf("embedded lab exited %d:\n%s%s", code, stdout, stderr)
	}
	// A partial run says how many steps passed, that the folder holds no
	// report (it lacks the other steps' files), and which lab ran.
	for _, want := range []string{"\n3 passed, 10 not run;", "holds no report", "(the lab built into ttftlab)"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	for _, f := range []string{"health.json", "sse_raw.txt", "chunks.jsonl", "sentence.json"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("artifact missing: %v", err)
		}
	}
}
