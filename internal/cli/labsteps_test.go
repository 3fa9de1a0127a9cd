package cli

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"ttftlab/internal/artifact"
	"ttftlab/internal/pocketsphinx"
	"ttftlab/internal/servers/servertest"
	"ttftlab/internal/tts"
)

// TestLabFailedStepsExitOne runs the lab through a proxy to the real
// llama-server that answers 500 to every chat request whose prompt holds
// the fifth KB document (the prompts with 5 or more documents: prefill's
// 12, cache, barge-in's 6), as
// a server that fails some requests does. The lab must exit 1 naming the
// failed steps, never say "passed" for them, record each step's status in
// steps.json, and check must fail the folder. Before steps.json the lab
// counted failures in a local that a helper closure shared across pcall;
// gopher-lua closed that upvalue on the first caught error, so this lab
// printed "all 10 steps passed" and exited 0.
func TestLabFailedStepsExitOne(t *testing.T) {
	srv := startLlama(t)
	front := frontOfLlama(t, srv, func(w http.ResponseWriter, r *http.Request, chat []byte) bool {
		if bytes.Contains(chat, []byte("Appointments and cancellations")) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusInternalServerError)
			io.WriteString(w, `{"error":{"code":500,"message":"backend failed","type":"server_error"}}`)
			return true
		}
		return false
	})
	out := t.TempDir()
	code, stdout, stderr := runCLI("lab", "--server", front.URL, "--out", out, "--server-log", srv.LogPath, "--no-report")
	t.Logf("lab output:\n%s%s", stdout, stderr)
	if code != 1 {
		t.Errorf("lab exited %d, want 1", code)
	}
	// The audio step speaks through espeak-ng when there is one (.ci/run
	// installs it), and is skipped without; the call step also listens
	// through pocketsphinx (labSpeechSteps).
	// The realtime step is skipped: no --realtime.
	audio, call := labSpeechSteps(t)
	passed, skipped := 9, []string{}
	for _, s := range []struct{ name, status string }{{"audio", audio}, {"call", call}} {
		if s.status == "skipped" {
			passed, skipped = passed-1, append(skipped, s.name)
		}
	}
	skipped = append(skipped, "realtime")
	summary := fmt.Sprintf("\n3 of 13 steps failed (prefill, cache, bargein); %d passed, %d skipped (%s).", passed, len(skipped), strings.Join(skipped, ", "))
	if !strings.Contains(stdout, summary) {
		t.Errorf("the summary does not name the 3 failed steps")
	}
	if strings.Contains(stdout, "steps passed") {
		t.Errorf("the summary says steps passed")
	}
	var steps artifact.Steps
	readJSON(t, filepath.Join(out, "steps.json"), &steps)
	want := map[string]string{"server": "passed", "stream": "passed", "ttft": "passed", "prefill": "failed", "cache": "failed",
		"sentence": "passed", "cancel": "passed", "bargein": "failed", "prefix": "passed", "audio": audio, "call": call, "realtime": "skipped", "report": "passed"}
	for _, st := range steps.Steps {
		if st.Status != want[st.Name] {
			t.Errorf("steps.json: %s is %q, want %q (%s)", st.Name, st.Status, want[st.Name], st.Detail)
		}
		if st.Status == "failed" && !strings.Contains(st.Detail, "backend failed") {
			t.Errorf("steps.json: %s failed without the server's message: %q", st.Name, st.Detail)
		}
	}
	if len(steps.Steps) != len(want) {
		t.Errorf("steps.json has %d steps, want %d", len(steps.Steps), len(want))
	}

	copied := "PASS report copies sources: 8 fields; not measured: prefill, cache, bargein"
	if want["audio"] == "skipped" {
		copied = "PASS report copies sources: 7 fields; not measured: prefill, cache, bargein, audio"
	}
	code, stdout, _ = runCLI("check", out, "--server-log", srv.LogPath)
	if code != 1 || !strings.Contains(stdout, "FAIL step prefill: failed in this run:") || !strings.Contains(stdout, copied) {
		t.Errorf("check on the failed run exited %d:\n%s", code, stdout)
	}
}

// TestLabPartialFolderChecks: a lab of one step in a fresh folder passes
// check, which says what it did not check. Before steps.json check failed
// such a folder on every other step's "missing" file.
func TestLabPartialFolderChecks(t *testing.T) {
	srv := startLlama(t)
	out := t.TempDir()
	code, stdout, stderr := runCLI("lab", "--server", srv.URL, "--out", out, "--no-report", "--", "ttft")
	if code != 0 || !strings.Contains(stdout, "\n1 passed, 12 not run;") || !strings.Contains(stdout, "check "+out) {
		t.Fatalf("lab -- ttft exited %d:\n%s%s", code, stdout, stderr)
	}
	code, stdout, _ = runCLI("check", out)
	if code != 0 || !strings.Contains(stdout, "PASS ttft < total per run") ||
		!strings.Contains(stdout, "SKIP file cache.json: not checked: step cache was not run") {
		t.Errorf("check of the partial folder exited %d:\n%s", code, stdout)
	}
}

// TestLabStepFailsWhenAskingTheServerFails: a server that drops the
// connection of /slots and /metrics (as one that died mid-lab does) makes
// the barge-in step's check of what the server offers fail. The step is
// failed with that reason and the lab ends with its summary and exit 1;
// before, the error escaped the lab with a Lua traceback, no summary, and
// the steps after it left "not run".
func TestLabStepFailsWhenAskingTheServerFails(t *testing.T) {
	srv := startLlama(t)
	front := frontOfLlama(t, srv, func(w http.ResponseWriter, r *http.Request, chat []byte) bool {
		if r.URL.Path != "/slots" && r.URL.Path != "/metrics" {
			return false
		}
		hangUp(w)
		return true
	})
	out := t.TempDir()
	code, stdout, stderr := runCLI("lab", "--server", front.URL, "--out", out, "--server-log", srv.LogPath, "--no-report",
		"--", "bargein", "prefix")
	t.Logf("lab output:\n%s%s", stdout, stderr)
	if code != 1 {
		t.Errorf("lab exited %d, want 1", code)
	}
	if strings.Contains(stderr, "traceback") || strings.Contains(stderr, "ttftlab lab: ") {
		t.Errorf("the error escaped the lab instead of failing the step")
	}
	var steps artifact.Steps
	readJSON(t, filepath.Join(out, "steps.json"), &steps)
	for _, st := range steps.Steps {
		switch st.Name {
		case "bargein":
			if st.Status != "failed" || !strings.HasPrefix(st.Detail, "cannot tell whether the server can run it: ") ||
				!strings.Contains(st.Detail, "running_requests: GET "+front.URL+"/metrics: ") {
				t.Errorf("bargein: %q (%s), want failed on the server's answer", st.Status, st.Detail)
			}
		case "prefix":
			if st.Status != "passed" {
				t.Errorf("prefix after it: %q (%s), want passed", st.Status, st.Detail)
			}
		}
	}
	if !strings.Contains(stdout, "1 of 2 steps failed (bargein)") {
		t.Errorf("no summary naming the failed step")
	}
}

// TestLabFailsWhatCheckFails: against an Ollama-like server whose chat
// template drops the system message, the prefill step's prompt does not
// grow with the documents. The lab must fail that step with check's own
// failures printed under it, naming the likely cause, and exit as check
// does on the same folder. Fails before this change: the lab printed
// "prefill passed" and exited 0 while check failed the folder.
func TestLabFailsWhatCheckFails(t *testing.T) {
	fake := &servertest.Fake{Kind: servertest.Ollama, RequireModel: true, DropSystem: true}
	url := fake.Start(t)
	out := t.TempDir()
	code, stdout, stderr := runCLI("lab", "--server", url, "--out", out, "--no-report")
	t.Logf("lab output:\n%s%s", stdout, stderr)
	const failure = "FAIL prefill prompt_n grows: "
	const cause = "the prompt did not grow with the documents: does the server's template drop the system message?"
	if code != 1 {
		t.Errorf("lab exited %d, want 1", code)
	}
	row := regexp.MustCompile(`\nprefill +failed .*\n +` + regexp.QuoteMeta(failure) + `.*` + regexp.QuoteMeta(cause))
	if !row.MatchString(stdout) {
		t.Errorf("the summary does not show prefill failed with check's failure and its cause under it")
	}
	if !strings.Contains(stderr, "step prefill failed ttftlab check:\n  "+failure) {
		t.Errorf("the step's failure was not printed when it ended")
	}
	var steps artifact.Steps
	readJSON(t, filepath.Join(out, "steps.json"), &steps)
	for _, st := range steps.Steps {
		if st.Name == "prefill" && (st.Status != artifact.StepFailed || !strings.HasPrefix(st.Detail, failure)) {
			t.Errorf("steps.json: prefill %s (%s), want failed with check's failure", st.Status, st.Detail)
		}
	}
	checkCode, checkOut, _ := runCLI("check", out)
	t.Logf("check output:\n%s", checkOut)
	if checkCode != code {
		t.Errorf("check exited %d, the lab %d", checkCode, code)
	}
	if !strings.Contains(checkOut, failure) || !strings.Contains(checkOut, cause) {
		t.Errorf("check does not name the failure and its cause")
	}
}

// labSpeechSteps says how the lab's speech steps end where the test runs:
// the audio step passes where espeak-ng is (.ci/run installs it;
// TTFTLAB_REQUIRE_TTS), and is skipped without; the call step also needs
// pocketsphinx (TTFTLAB_REQUIRE_STT) to listen to the caller, and is
// skipped under --stt none.
func labSpeechSteps(t *testing.T) (audio, call string) {
	t.Helper()
	audio, call = "passed", "passed"
	if _, err := tts.Find(); err != nil {
		if os.Getenv("TTFTLAB_REQUIRE_TTS") != "" {
			t.Fatalf("TTFTLAB_REQUIRE_TTS is set: %v", err)
		}
		audio, call = "skipped", "skipped"
	}
	if _, err := pocketsphinx.Find(); err != nil {
		if os.Getenv("TTFTLAB_REQUIRE_STT") != "" {
			t.Fatalf("TTFTLAB_REQUIRE_STT is set: %v", err)
		}
		call = "skipped"
	}
	if os.Getenv("TTFTLAB_STT") == sttNone {
		// The tests' default (TestMain): no caller unless a test names one.
		call = "skipped"
	}
	return audio, call
}
