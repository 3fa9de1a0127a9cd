package cli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"ttftlab/internal/llamaserver"
	"ttftlab/internal/report/reporttest"
	"ttftlab/internal/rundir"
	"ttftlab/internal/stream/streamtest"
	"ttftlab/runtime"
)

func TestCtrlCStopsBusyLoop(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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

// TestSecondCtrlCExitsAtOnce: after the first Ctrl-C the script stops and
// ttftlab waits (up to 10 s) for the server it started, which ignores
// SIGTERM (standInServer); a second Ctrl-C must exit at once and still
// kill that server.
func TestSecondCtrlCExitsAtOnce(t *testing.T) {
	port := serverTestEnv(t)
	dir := t.TempDir()
	fake := standInServer(t)
	model := filepath.Join(dir, "model.gguf")
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

// TestSignalStopsWorkAndServer: SIGTERM and SIGHUP stop a script and the
// llama-server that ttftlab started for it, as Ctrl-C does, and exit with
// 128 + the signal's number; the artifacts written so far parse.
func TestSignalStopsWorkAndServer(t *testing.T) {
	_, model := needLlama(t)
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
		says string
	}{
		{syscall.SIGTERM, 143, "terminated"},
		{syscall.SIGHUP, 129, "hung up"},
	} {
		t.Run(tc.sig.String(), func(t *testing.T) {
			port := serverTestEnv(t)
			out := t.TempDir()
			script := writeScript(t, streamingScript)
			cmd, stderr := startTTFTLab(t, "streamed 2", "run", script, "--server", "http://127.0.0.1:"+itoa(port),
				"--model", model, "--out", out)
			if len(llamaOnPort(port)) == 0 {
				t.Fatalf("no llama-server serves port %d while the script streams", port)
			}
			cmd.Process.Signal(tc.sig)
			code := waitExit(t, cmd, time.Minute)
			if code != tc.code || !strings.Contains(stderr.String(), tc.says) {
				t.Errorf("exit %d, want %d and %q; stderr:\n%s", code, tc.code, tc.says, stderr)
			}
			requireServerGone(t, port)
			checkArtifactsParse(t, out, "runs.jsonl", "last.json")
		})
	}
}

// TestBrokenPipeStopsWorkAndServer: when the reader of ttftlab's output
// goes away (`ttftlab lab | head -1`), ttftlab stops as on Ctrl-C: the
// llama-server it started is stopped, the artifacts parse, and it exits
// 141 without a message. Before, the first write killed ttftlab with
// SIGPIPE and left the server running with parent PID 1.
func TestBrokenPipeStopsWorkAndServer(t *testing.T) {
	_, model := needLlama(t)
	for _, tc := range []struct {
		name  string
		args  func(port int, out string) []string
		until string // the line after which the reader goes
	}{
		// The lab's first line comes while the server starts.
		{"lab after the first line", func(port int, out string) []string {
			return []string{"lab", "--server", "http://127.0.0.1:" + itoa(port), "--model", model, "--out", out}
		}, ""},
		// The lab running its steps on the server it started.
		{"lab once its server is up", func(port int, out string) []string {
			return []string{"lab", "--server", "http://127.0.0.1:" + itoa(port), "--model", model, "--out", out}
		}, "llama-server is up"},
		// A script that has streamed and written artifacts.
		{"run while streaming", func(port int, out string) []string {
			return []string{"run", writeScript(t, streamingScript), "--server", "http://127.0.0.1:" + itoa(port),
				"--model", model, "--out", out}
		}, "streamed 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			port := serverTestEnv(t)
			out := t.TempDir()
			cmd := exec.Command(os.Args[0], tc.args(port, out)...)
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
			for lines.Scan() && !strings.Contains(lines.Text(), tc.until) {
			}
			stdout.Close() // the reader goes, as head does after its line
			code := waitExit(t, cmd, time.Minute)
			if code != 141 || stderr.Len() != 0 {
				t.Errorf("exit %d, want 141 and nothing on stderr; stderr:\n%s", code, stderr.String())
			}
			requireServerGone(t, port)
			checkArtifactsParse(t, out)
		})
	}
}

// TestBrokenOutputWriteStops: a write to an output whose reader has gone
// stops the command at once, before the write returns, and the command
// then exits 141 without a message; a SIGPIPE while the outputs are whole
// (a socket to the server whose peer went away) stops nothing.
func TestBrokenOutputWriteStops(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var errOut bytes.Buffer
	e := newEnv(Stdio{In: strings.NewReader(""), Out: w, Err: &errOut})
	defer e.signals.stopWatching()
	ctx := e.signals.context(context.Background())

	e.signals.handle(syscall.SIGPIPE) // fd 1 and 2 of the test are whole
	if e.signals.stopped() != nil || ctx.Err() != nil {
		t.Fatalf("a SIGPIPE with the outputs whole stopped the command (%v)", e.signals.stopped())
	}
	if _, err := fmt.Fprintln(e.Out, "read"); err != nil {
		t.Fatal(err)
	}
	r.Close()
	if _, err := fmt.Fprintln(e.Out, "nobody reads this"); !errors.Is(err, syscall.EPIPE) {
		t.Fatalf("writing to the broken pipe: %v, want EPIPE", err)
	}
	if e.signals.stopped() != syscall.SIGPIPE || ctx.Err() == nil {
		t.Fatalf("the failed write did not stop the command: stopped by %v, context %v", e.signals.stopped(), ctx.Err())
	}
	if code := e.exit(ctx.Err()); code != 141 || errOut.Len() != 0 {
		t.Errorf("exit %d with %q on stderr, want 141 and nothing", code, errOut.String())
	}
}

// TestReportInterruptedWhileDrawingExits130: report whose context is
// cancelled (Ctrl-C) while it draws returns the cancel, so it exits 130
// saying it was interrupted, and prints no page path; an interrupted lab
// or load names no line of its own built-in scripts, run names its
// script's line. Fails before this change: report exited 0, and load said
// "interrupted at scripts/load.lua:234".
func TestReportInterruptedWhileDrawingExits130(t *testing.T) {
	t.Parallel()
	load := filepath.Join(t.TempDir(), "load")
	reporttest.Load(t, load)
	var out, errOut bytes.Buffer
	e := &env{Stdio: Stdio{Out: &out, Err: &errOut}, cmd: "report", signals: &signals{stop: syscall.SIGINT}}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := (&reportCmd{env: e}).Run(ctx, []string{load, "--out", filepath.Join(t.TempDir(), "r.html")})
	if code := e.exit(err); code != 130 || errOut.String() != "ttftlab report: interrupted\n" || out.Len() != 0 {
		t.Errorf("report cancelled: exit %d, stdout %q, stderr %q; want 130, no path, interrupted", code, out.String(), errOut.String())
	}
	stopped := &runtime.ScriptError{Message: "scripts/load.lua:234: interrupted", Err: context.Canceled}
	for cmd, want := range map[string]string{"load": "ttftlab load: interrupted\n", "run": "ttftlab run: interrupted at scripts/load.lua:234\n"} {
		errOut.Reset()
		e = &env{Stdio: Stdio{Err: &errOut}, cmd: cmd, signals: &signals{stop: syscall.SIGINT}}
		if code := e.exit(stopped); code != 130 || errOut.String() != want {
			t.Errorf("%s: exit %d, stderr %q; want 130 and %q", cmd, code, errOut.String(), want)
		}
	}
}

// TestLabInterruptedAfterItsScriptExits130: a Ctrl-C that comes after the
// lab's script ended but before its report was drawn (the page is then
// not drawn) stops the command: exit 130, "interrupted". Fails before
// this change: the lab printed "stopping the script", drew no page, and
// exited 0.
func TestLabInterruptedAfterItsScriptExits130(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	e := &env{Stdio: Stdio{Out: &out, Err: &errOut}, cmd: "lab", signals: &signals{stop: syscall.SIGINT}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir := t.TempDir()
	s := script{exec: func(*runtime.VM) error { cancel(); return nil }, finish: e.writeReport}
	err := e.runOnce(ctx, s, &runsPlan{n: 1, kind: rundir.KindLab}, dir, "", runtime.Config{Out: dir})
	if code := e.exit(err); code != 130 || errOut.String() != "ttftlab lab: interrupted\n" {
		t.Errorf("lab stopped before its report: exit %d, stdout %q, stderr %q; want 130, interrupted", code, out.String(), errOut.String())
	}
}
