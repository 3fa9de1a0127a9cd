package cli

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"ttftlab/internal/endpoint"
	"ttftlab/internal/llamaserver"
	"ttftlab/internal/stream"
)

func TestServerLifecycle(t *testing.T) {
	_, model := needLlama(t)
	port := serverTestEnv(t)
	p := strconv.Itoa(port)

	code, out, errOut := runCLI("server", "up", "--model", model, "--port", p)
	if code != 0 {
		t.Fatalf("server up exited %d:\n%s%s", code, out, errOut)
	}
	st, err := testRegistry(t).Load(port)
	if err != nil || st == nil {
		t.Fatalf("no state after up: %v", err)
	}
	if !st.Alive() || st.URL != "http://127.0.0.1:"+p || st.Model != model {
		t.Fatalf("state = %+v, alive %v", st, st.Alive())
	}
	if log, _ := os.ReadFile(st.LogPath); len(log) == 0 {
		t.Errorf("log %s is empty", st.LogPath)
	}

	code, out, _ = runCLI("server", "status", "--port", p)
	if code != 0 || !strings.Contains(out, "health:  ok") || !strings.Contains(out, "slots:   1 (0 processing)") {
		t.Errorf("status exited %d:\n%s", code, out)
	}
	script := filepath.Join(t.TempDir(), "info.lua")
	os.WriteFile(script, []byte(`local i = server_info()
print(i.tracked, i.pid, i.healthy, i.n_ctx, i.slots, i.processing, i.log_path, i.model)`), 0o644)
	code, out, errOut = runCLI("run", script, "--server", st.URL, "--out", t.TempDir())
	probe := llamaserver.Ask(context.Background(), &endpoint.Endpoint{Base: st.URL})
	want := fmt.Sprintf("true\t%d\ttrue\t%d\t1\t0\t%s\t%s\n", st.PID, probe.NCtx, st.LogPath, model)
	if code != 0 || out != want {
		t.Errorf("server_info() printed %q (exit %d, %s), want %q", out, code, errOut, want)
	}

	code, out, _ = runCLI("server", "log", "--port", p, "-n", "5")
	if code != 0 || len(strings.Split(strings.TrimSpace(out), "\n")) != 5 {
		t.Errorf("log -n 5 exited %d with:\n%s", code, out)
	}
	code, _, errOut = runCLI("server", "up", "--model", model, "--port", p)
	if code == 0 || !strings.Contains(errOut, "already runs llama-server on port "+p) {
		t.Errorf("second up on the same port: exit %d, %s", code, errOut)
	}

	code, out, errOut = runCLI("server", "down", "--port", p)
	if code != 0 || !strings.Contains(out, "stopped llama-server") {
		t.Fatalf("down exited %d:\n%s%s", code, out, errOut)
	}
	if llamaserver.ProcessRuns(st.PID, "llama-server") {
		t.Errorf("PID %d still runs after down", st.PID)
	}
	if st2, _ := testRegistry(t).Load(port); st2 != nil {
		t.Errorf("state still there after down: %+v", st2)
	}
	code, out, _ = runCLI("server", "down", "--port", p)
	if code != 0 || !strings.Contains(out, "nothing to stop") {
		t.Errorf("down with nothing running: exit %d, %s", code, out)
	}
	code, _, _ = runCLI("server", "status", "--port", p)
	if code != 1 {
		t.Errorf("status after down exited %d, want 1", code)
	}
}

func TestServerStaleState(t *testing.T) {
	port := serverTestEnv(t)
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	st := llamaserver.State{PID: gone.Process.Pid, Port: port, URL: fmt.Sprintf("http://127.0.0.1:%d", port)}
	if err := testRegistry(t).Save(st); err != nil {
		t.Fatal(err)
	}
	p := strconv.Itoa(port)
	code, out, _ := runCLI("server", "status", "--port", p)
	if code != 3 || !strings.Contains(out, "stale") {
		t.Errorf("status with a stale PID: exit %d, want 3:\n%s", code, out)
	}
	code, out, _ = runCLI("server", "down", "--port", p)
	if code != 0 || !strings.Contains(out, "stale state") {
		t.Errorf("down with a stale PID: exit %d:\n%s", code, out)
	}
	if st, _ := testRegistry(t).Load(port); st != nil {
		t.Errorf("stale state not removed")
	}
}

func TestServerUpFailures(t *testing.T) {
	_, model := needLlama(t)
	port := serverTestEnv(t)
	p := strconv.Itoa(port)

	t.Run("missing model", func(t *testing.T) {
		code, out, errOut := runCLI("server", "up", "--model", "/nonexistent/model.gguf", "--port", p)
		if code != 1 || !strings.Contains(errOut, "/nonexistent/model.gguf") {
			t.Errorf("exit %d: %s", code, errOut)
		}
		// Nothing is said to start that cannot.
		if strings.Contains(out+errOut, "starting llama-server") {
			t.Errorf("said it was starting a server without a model:\n%s%s", out, errOut)
		}
	})
	t.Run("not a GGUF file", func(t *testing.T) {
		bad := filepath.Join(t.TempDir(), "x.gguf")
		os.WriteFile(bad, []byte("hello world"), 0o644)
		code, _, errOut := runCLI("server", "up", "--model", bad, "--port", p)
		if code != 1 || !strings.Contains(errOut, "not a GGUF file") {
			t.Errorf("exit %d: %s", code, errOut)
		}
	})
	t.Run("port taken", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		taken := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
		code, _, errOut := runCLI("server", "up", "--model", model, "--port", taken)
		if code != 1 || !strings.Contains(errOut, "port "+taken+" on 127.0.0.1 is already taken") || !strings.Contains(errOut, "(PID ") {
			t.Errorf("exit %d: %s", code, errOut)
		}
	})
	t.Run("server exits at once", func(t *testing.T) {
		fake := filepath.Join(t.TempDir(), "llama-server")
		os.WriteFile(fake, []byte("#!/bin/sh\necho 'fake: cannot load model' >&2\nexit 3\n"), 0o755)
		code, _, errOut := runCLI("server", "up", "--model", model, "--port", p, "--llama-server", fake)
		if code != 1 || !strings.Contains(errOut, "exited during start-up") || !strings.Contains(errOut, "fake: cannot load model") {
			t.Errorf("exit %d: %s", code, errOut)
		}
	})
	t.Run("start-up timeout", func(t *testing.T) {
		dir := t.TempDir()
		pidFile := filepath.Join(dir, "pid")
		fake := filepath.Join(dir, "llama-server")
		os.WriteFile(fake, []byte("#!/bin/sh\necho $$ > "+pidFile+"\nexec sleep 30\n"), 0o755)
		code, _, errOut := runCLI("server", "up", "--model", model, "--port", p, "--llama-server", fake, "--timeout", "1s")
		if code != 1 || !strings.Contains(errOut, "did not become healthy") || !strings.Contains(errOut, "within 1s") {
			t.Errorf("exit %d: %s", code, errOut)
		}
		pidText, _ := os.ReadFile(pidFile)
		pid, err := strconv.Atoi(strings.TrimSpace(string(pidText)))
		if err != nil {
			t.Fatalf("fake server wrote no PID: %v", err)
		}
		if llamaserver.ProcessRuns(pid, "sleep") {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("the timed-out server (PID %d) was left running", pid)
		}
	})
	t.Run("binary not found", func(t *testing.T) {
		code, _, errOut := runCLI("server", "up", "--model", model, "--port", p, "--llama-server", "/nonexistent/llama-server")
		if code != 1 || !strings.Contains(errOut, "server install") {
			t.Errorf("exit %d: %s", code, errOut)
		}
	})
	if st, _ := testRegistry(t).Load(port); st != nil {
		t.Errorf("a failed up left state behind: %+v", st)
	}
}

// TestLabStartsItsOwnServer runs `ttftlab lab --model` with nothing at
// --server: it must start llama-server, use its log, and stop it after.
func TestLabStartsItsOwnServer(t *testing.T) {
	_, model := needLlama(t)
	port := serverTestEnv(t)
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	out := t.TempDir()

	code, stdout, stderr := runCLI("lab", "--server", url, "--model", model, "--out", out)
	if code != 0 {
		t.Fatalf("lab --model exited %d:\n%s%s", code, stdout, stderr)
	}
	logPath := testRegistry(t).LogPath(port)
	requireCheckPasses(t, out, logPath)
	var cancel map[string]any
	readJSON(t, filepath.Join(out, "cancel.json"), &cancel)
	if cancel["log_cancel_task"] != true {
		t.Errorf("the lab did not use the started server's log: log_cancel_task = %v", cancel["log_cancel_task"])
	}
	// The report records the settings of the server it measured.
	var report struct {
		Server struct {
			NCtx     float64  `json:"n_ctx"`
			Slots    float64  `json:"slots"`
			Threads  *float64 `json:"threads"`
			CacheRAM *float64 `json:"cache_ram"`
			Args     []string `json:"args"`
		} `json:"server"`
	}
	readJSON(t, filepath.Join(out, "report.json"), &report)
	s := report.Server
	if s.NCtx <= 0 || s.Slots != 1 || s.Threads == nil || *s.Threads < 1 || s.CacheRAM == nil || *s.CacheRAM != 0 || len(s.Args) == 0 {
		t.Errorf("report.json server = %+v, want n_ctx, 1 slot, threads, cache_ram 0 and the command line", s)
	}
	if st, _ := testRegistry(t).Load(port); st != nil {
		t.Errorf("state left after lab: %+v", st)
	}
	if err := llamaserver.PortFree("127.0.0.1", port); err != nil {
		t.Errorf("the server still listens after the lab: %v", err)
	}
}

// TestLabWithoutServerOrModel: a server address off this machine cannot be
// served with the synthetic model, so the lab names both ways out.
func TestLabWithoutServerOrModel(t *testing.T) {
	port := serverTestEnv(t)
	url := fmt.Sprintf("http://0.0.0.0:%d", port)
	code, _, stderr := runCLI("lab", "--server", url, "--out", t.TempDir())
	if code != 1 || !strings.Contains(stderr, url) || !strings.Contains(stderr, "--model FILE") || !strings.Contains(stderr, "--server URL") {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

// TestServerUpKeyed: `server up -- --api-key KEY` starts llama-server
// with the key (it refuses /props without it, answers with it) but shows
// and records the command line with the key redacted; `server status`
// says /props refused it instead of an empty model and zero slots.
// Fails before this change: the key was in the command: line and in
// PORT.json's args, and status printed "served:" blank, "slots: 0".
func TestServerUpKeyed(t *testing.T) {
	_, model := needLlama(t)
	port := serverTestEnv(t)
	p := strconv.Itoa(port)
	const key = "sk-upkey-6a1e93c0"
	code, out, errOut := runCLI("server", "up", "--model", model, "--port", p, "--", "--api-key", key)
	t.Cleanup(func() { runCLI("server", "down", "--port", p) })
	if code != 0 || !strings.Contains(out, "--api-key [redacted]") {
		t.Fatalf("server up exited %d, want 0 showing --api-key [redacted]:\n%s%s", code, out, errOut)
	}
	st, err := testRegistry(t).Load(port)
	if err != nil || st == nil {
		t.Fatalf("no state after up: %v", err)
	}
	ep := &endpoint.Endpoint{Base: st.URL}
	if status, _, err := stream.Get(context.Background(), ep.URL("/props")); err != nil || status != 401 {
		t.Errorf("GET /props without the key: %d %v, want 401 (the server got no key?)", status, err)
	}
	ep.Key = key
	if status, _, err := stream.Get(context.Background(), ep.URL("/props"), stream.GetOptions{Header: ep.Headers()}); err != nil || status != 200 {
		t.Errorf("GET /props with the key: %d %v, want 200 (the server got another key?)", status, err)
	}
	code, status, statusErr := runCLI("server", "status", "--port", p)
	t.Logf("server status:\n%s%s", status, statusErr)
	if code != 0 || !strings.Contains(status, "props:   GET /props answered 401: \"Invalid API Key\"; the server wants an API key") ||
		strings.Contains(status, "slots:") || strings.Contains(status, "served:") {
		t.Errorf("server status exited %d, want 0 saying /props refused it, and no model or slots", code)
	}
	code, list, listErr := runCLI("server", "list")
	requireNoKey(t, key, os.Getenv("TTFTLAB_STATE"), out, errOut, status, statusErr, list, listErr)
	if code != 0 {
		t.Errorf("server list exited %d", code)
	}
}
