package cli

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// keepAliveServer is a server that answers every streamed request with 200
// text/event-stream and then only `: keep-alive` comments, every 100 ms,
// until the client goes: each comment resets the client's idle timer, so
// only a whole-request bound can end the request. A request whose path
// starts with /one-token gets one content chunk first. /health and /props
// answer as llama-server's do.
func keepAliveServer(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/health":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"status":"ok"}`)
			return
		case "/props":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"default_generation_settings":{"n_ctx":4096},"total_slots":1,"model_path":"keepalive.gguf","build_info":"b1-test"}`)
			return
		}
		if r.Method != http.MethodPost {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		fl := w.(http.Flusher)
		if strings.HasPrefix(r.URL.Path, "/one-token") {
			fmt.Fprint(w, `data: {"choices":[{"delta":{"role":"assistant","content":null},"index":0,"finish_reason":null}]}`+"\n\n")
			fmt.Fprint(w, `data: {"choices":[{"delta":{"content":"Hello"},"index":0,"finish_reason":null}]}`+"\n\n")
			fl.Flush()
		}
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			if _, err := fmt.Fprint(w, ": keep-alive\n\n"); err != nil {
				return
			}
			fl.Flush()
			select {
			case <-r.Context().Done():
				return
			case <-tick.C:
			}
		}
	}))
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
	})
	return srv.URL
}

// runChild runs ttftlab as a child process and returns its exit code and
// output. A server that only sends comments kept ttftlab waiting forever:
// limit is how long the test waits for it to end before failing, far
// beyond any deadline the test sets.
func runChild(t *testing.T, limit time.Duration, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "TTFTLAB_AS_MAIN=1")
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(limit):
		cmd.Process.Kill()
		<-done
		t.Fatalf("ttftlab %s did not end within %s:\n%s%s", strings.Join(args, " "), limit, out.String(), errb.String())
	}
	return cmd.ProcessState.ExitCode(), out.String(), errb.String()
}

// TestLoadRequestTimeoutEndsCommentOnlyStream: `ttftlab load` against a
// server that never sends a token but keeps the connection alive with
// comments ends, with every request failed as kind timeout.
func TestLoadRequestTimeoutEndsCommentOnlyStream(t *testing.T) {
	t.Setenv("TTFTLAB_STATE", t.TempDir())
	url := keepAliveServer(t)
	out := t.TempDir()
	_, stdout, stderr := runChild(t, 2*time.Minute, "load", "--server", url, "--request-timeout", "500ms",
		"--concurrency", "1", "--requests", "2", "--out", out, "--no-report")
	t.Logf("%s%s", stdout, stderr)
	rows := jsonlRows(t, filepath.Join(out, "requests.jsonl"))
	if len(rows) != 2 {
		t.Fatalf("requests.jsonl has %d rows, want 2", len(rows))
	}
	for _, r := range rows {
		if r["error_kind"] != "timeout" {
			t.Errorf("row %v: want error_kind timeout", r)
		}
	}
	checkArtifactsParse(t, out, "load.json")
}

// TestRunRequestTimeoutEndsCommentOnlyStream: a script's stream() without
// opts.timeout_ms gets --request-timeout; the request fails as kind
// timeout and keeps the chunk that arrived before the comments; a
// script's own opts.timeout_ms still wins.
func TestRunRequestTimeoutEndsCommentOnlyStream(t *testing.T) {
	t.Setenv("TTFTLAB_STATE", t.TempDir())
	url := keepAliveServer(t)
	script := writeScript(t, `
local chunks, _, _, info = stream("hi", { errors = "return", path = "/one-token/v1/chat/completions" })
print("first", #chunks, chunks[1] and chunks[1].text, tostring(info.error):find("500ms timeout", 1, true) ~= nil)
local _, _, _, own = stream("hi", { errors = "return", timeout_ms = 300 })
print("own", tostring(own.error):find("300ms timeout", 1, true) ~= nil)
local _, _, _, plain = stream("hi", { errors = "return" })
print("plain", plain.error ~= nil)
stream("hi")
`)
	code, stdout, stderr := runChild(t, 2*time.Minute, "run", script, "--server", url, "--request-timeout", "500ms",
		"--out", t.TempDir())
	want := "first\t1\tHello\ttrue\nown\ttrue\nplain\ttrue\n"
	if stdout != want {
		t.Errorf("the script printed\n%s\nwant\n%s\nstderr:\n%s", stdout, want, stderr)
	}
	// The last stream() raises: the message says what ended it and how to
	// change the bound.
	if code != 1 || !strings.Contains(stderr, "timeout") || !strings.Contains(stderr, "--request-timeout") {
		t.Errorf("exit %d, want 1 with a timeout error naming --request-timeout; stderr:\n%s", code, stderr)
	}
}
