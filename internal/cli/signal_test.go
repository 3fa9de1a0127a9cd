package cli

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"ttftlab/internal/llamaserver"
	"ttftlab/internal/stream/streamtest"
)

// startTTFTLab runs ttftlab as a child process and returns once its standard
// output has printed ready.
func startTTFTLab(t *testing.T, ready string, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "TTFTLAB_AS_MAIN=1")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	lines := bufio.NewScanner(stdout)
	for lines.Scan() {
		if strings.Contains(lines.Text(), ready) {
			go io.Copy(io.Discard, stdout)
			return cmd, &stderr
		}
	}
	t.Fatalf("ttftlab never printed %q; stderr:\n%s", ready, stderr.String())
	return nil, nil
}

// waitExit waits for the process to end and returns its exit code, failing
// the test when it takes longer than limit.
func waitExit(t *testing.T, cmd *exec.Cmd, limit time.Duration) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
		return cmd.ProcessState.ExitCode()
	case <-time.After(limit):
		t.Fatalf("ttftlab still runs %s after the signal", limit)
		return -1
	}
}

func writeScript(t *testing.T, code string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "script.lua")
	if err := os.WriteFile(path, []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCtrlCStopsBusyLoop(t *testing.T) {
	script := writeScript(t, "print('looping')\nlocal n = 0\nwhile true do n = n + 1 end\n")
	cmd, stderr := startTTFTLab(t, "looping", "run", script, "--out", t.TempDir())
	cmd.Process.Signal(syscall.SIGINT)
	if code := waitExit(t, cmd, 10*time.Second); code != 130 {
		t.Errorf("exit code %d, want 130; stderr:\n%s", code, stderr)
	}
	// One line that says it was interrupted and where, no "context
	// canceled" and no traceback.
	last := strings.TrimSpace(stderr.String())
	if i := strings.LastIndex(last, "\n"); i >= 0 {
		last = last[i+1:]
	}
	if !strings.HasPrefix(last, "ttftlab run: interrupted at "+script+":") ||
		strings.Contains(stderr.String(), "context canceled") || strings.Contains(stderr.String(), "traceback") {
		t.Errorf("stderr should end in one line saying where it was interrupted:\n%s", stderr)
	}
}

// TestCtrlCClosesOpenStream interrupts a script inside stream(): the server
// must see its connection closed.
func TestCtrlCClosesOpenStream(t *testing.T) {
	// A long answer, one piece every 20 ms: still streaming when Ctrl-C comes.
	f := &streamtest.FakeLlama{Pieces: strings.Split(strings.Repeat("a ", 500), " "), Delay: 20 * time.Millisecond}
	url := f.Start(t)
	script := writeScript(t, `stream("hi", { max_tokens = 100000, on_chunk = function(c)
  if c.index == 3 then print("streaming") end
end })
print("stream returned")
`)
	cmd, stderr := startTTFTLab(t, "streaming", "run", script, "--server", url, "--out", t.TempDir())
	cmd.Process.Signal(syscall.SIGINT)
	if code := waitExit(t, cmd, 10*time.Second); code != 130 {
		t.Errorf("exit code %d, want 130; stderr:\n%s", code, stderr)
	}
	f.WaitGone(t)
	if !strings.Contains(stderr.String(), "closing open streams") {
		t.Errorf("stderr does not explain the stop:\n%s", stderr)
	}
}

// fakeServerSource is a stand-in llama-server that answers /health and
// ignores SIGTERM, so stopping it takes the full grace period.
const fakeServerSource = `#!/usr/bin/env python3
import http.server, signal, sys
signal.signal(signal.SIGTERM, signal.SIG_IGN)
port = int(sys.argv[sys.argv.index("--port") + 1])
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = b'{"status":"ok"}'
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass
http.server.HTTPServer(("127.0.0.1", port), H).serve_forever()
`

// TestSecondCtrlCExitsAtOnce: after the first Ctrl-C the script stops and
// ttftlab waits (up to 10 s) for the server it started, which ignores
// SIGTERM; a second Ctrl-C must exit at once and still kill that server.
func TestSecondCtrlCExitsAtOnce(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is needed for the stand-in server")
	}
	port := serverTestEnv(t)
	dir := t.TempDir()
	fake := filepath.Join(dir, "llama-server")
	model := filepath.Join(dir, "model.gguf")
	os.WriteFile(fake, []byte(fakeServerSource), 0o755)
	os.WriteFile(model, []byte("GGUF not really a model"), 0o644)
	script := writeScript(t, "print('looping')\nwhile true do end\n")
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	cmd, stderr := startTTFTLab(t, "looping", "run", script, "--server", url, "--model", model,
		"--llama-server", fake, "--out", dir)
	st, _ := testRegistry(t).Load(port)
	if st == nil {
		t.Fatal("the stand-in server was not recorded")
	}
	start := time.Now()
	cmd.Process.Signal(syscall.SIGINT)
	time.Sleep(300 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGINT)
	code := waitExit(t, cmd, 8*time.Second)
	if code != 130 || !strings.Contains(stderr.String(), "exiting at once") {
		t.Errorf("exit code %d after %s, want 130 and 'exiting at once'; stderr:\n%s", code, time.Since(start), stderr)
	}
	if llamaserver.ProcessRuns(st.PID, "llama-server") {
		syscall.Kill(st.PID, syscall.SIGKILL)
		t.Errorf("the started server (PID %d) outlived the hard exit", st.PID)
	}
}

// TestServerLogFollow: `server log -f` prints the tail, then what is
// appended to the log, until Ctrl-C.
func TestServerLogFollow(t *testing.T) {
	port := serverTestEnv(t)
	logPath := testRegistry(t).LogPath(port)
	if err := os.MkdirAll(filepath.Dir(logPath), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(logPath, []byte("line zero\nline one\nline two\n"), 0o644)
	cmd := exec.Command(os.Args[0], "server", "log", "--port", fmt.Sprint(port), "-n", "2", "-f")
	cmd.Env = append(os.Environ(), "TTFTLAB_AS_MAIN=1")
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	expect := func(want string) {
		t.Helper()
		select {
		case got := <-lines:
			if got != want {
				t.Fatalf("server log -f printed %q, want %q", got, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("server log -f did not print %q", want)
		}
	}
	expect("line one")
	expect("line two")
	f, err := os.OpenFile(logPath, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("srv  stop: cancel task, id_task = 7\n")
	f.Close()
	expect("srv  stop: cancel task, id_task = 7")
	cmd.Process.Signal(syscall.SIGINT)
	if code := waitExit(t, cmd, 5*time.Second); code != 0 {
		t.Errorf("server log -f exited %d after Ctrl-C, want 0", code)
	}
}
