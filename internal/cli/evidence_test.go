package cli

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestEvidenceFromThisRunOnly: a cut in an earlier run, or under an earlier
// server on the same port, never counts as this run's cancel evidence; a
// lab against a server started with `server up` uses that server's log.
func TestEvidenceFromThisRunOnly(t *testing.T) {
	_, model := needLlama(t)
	port := serverTestEnv(t)
	p := strconv.Itoa(port)
	url := "http://127.0.0.1:" + p
	if code, out, errOut := runCLI("server", "up", "--model", model, "--port", p); code != 0 {
		t.Fatalf("server up: %d\n%s%s", code, out, errOut)
	}
	defer runCLI("server", "down", "--port", p)
	logPath := testRegistry(t).LogPath(port)

	cut := writeScript(t, `local _, _, _, info = stream("Once upon a time", {max_tokens = 2000, body = {ignore_eos = true},
  on_chunk = function(c) return c.index < 5 end})
assert(info.cut)
local deadline = now_ms() + 3000
while not log_contains("cancel task") and now_ms() < deadline do sleep_ms(20) end
print("cut seen", log_contains("cancel task"))`)
	code, out, errOut := runCLI("run", cut, "--server", url, "--out", t.TempDir())
	if code != 0 || !strings.Contains(out, "cut seen\ttrue") {
		t.Fatalf("the cutting script (with the tracked log): exit %d\n%s%s", code, out, errOut)
	}
	look := writeScript(t, `print("later run", log_contains("cancel task"))`)
	code, out, errOut = runCLI("run", look, "--server", url, "--out", t.TempDir())
	if code != 0 || !strings.Contains(out, "later run\tfalse") {
		t.Errorf("a later run that cuts nothing must not see the earlier cut: exit %d\n%s%s", code, out, errOut)
	}

	// A new start on the port gets a log of its own; the old one is kept.
	runCLI("server", "down", "--port", p)
	if code, out, errOut := runCLI("server", "up", "--model", model, "--port", p); code != 0 {
		t.Fatalf("second server up: %d\n%s%s", code, out, errOut)
	}
	old, _ := os.ReadFile(logPath + ".1")
	fresh, _ := os.ReadFile(logPath)
	if !strings.Contains(string(old), "cancel task") || strings.Contains(string(fresh), "cancel task") {
		t.Errorf("the previous log must be kept as .log.1 with its cancel line, the new one start empty of it")
	}

	// The lab on the tracked server finds its log without --server-log.
	out2 := t.TempDir()
	code, stdout, stderr := runCLI("lab", "--server", url, "--out", out2, "--", "cancel")
	if code != 0 {
		t.Fatalf("lab cancel on the tracked server: %d\n%s%s", code, stdout, stderr)
	}
	var cancel struct {
		LogCancelTask bool `json:"log_cancel_task"`
		LogFrom       struct {
			Path string `json:"path"`
		} `json:"log_from"`
	}
	readJSON(t, filepath.Join(out2, "cancel.json"), &cancel)
	if !cancel.LogCancelTask || cancel.LogFrom.Path != logPath {
		t.Errorf("cancel.json = %+v, want the cut found in %s", cancel, logPath)
	}
	if !strings.Contains(stdout, "server log "+logPath) {
		t.Errorf("the lab should say it uses the tracked log:\n%s", stdout)
	}
}

// TestServerUpQuotesOnlyThisStart: after a failed start, the last lines
// shown come from this start's log, not from an earlier server's.
func TestServerUpQuotesOnlyThisStart(t *testing.T) {
	_, model := needLlama(t)
	port := serverTestEnv(t)
	logPath := testRegistry(t).LogPath(port)
	os.MkdirAll(filepath.Dir(logPath), 0o755)
	os.WriteFile(logPath, []byte("OLD-RUN-LINE from an earlier server\n"), 0o644)
	data, err := os.ReadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	broken := filepath.Join(t.TempDir(), "broken.gguf")
	os.WriteFile(broken, data[:4096], 0o644) // a GGUF header, then nothing
	start := time.Now()
	code, _, errOut := runCLI("server", "up", "--model", broken, "--port", strconv.Itoa(port))
	if code != 1 || !strings.Contains(errOut, "exited during start-up") {
		t.Fatalf("a truncated model: exit %d after %s:\n%s", code, time.Since(start), errOut)
	}
	if strings.Contains(errOut, "OLD-RUN-LINE") {
		t.Errorf("the error quotes an earlier server's log:\n%s", errOut)
	}
}
