package llamaserver

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// startFailing starts a server through a registry in a fresh state folder
// whose PORT.log holds an earlier run's evidence, with opts changed by
// change, and returns the log's path, that evidence and the error.
func startFailing(t *testing.T, change func(o *Options)) (log, evidence string, err error) {
	t.Helper()
	t.Setenv("TTFTLAB_STATE", t.TempDir())
	reg, err := OpenRegistry()
	if err != nil {
		t.Fatal(err)
	}
	port, err := FreePort()
	if err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(t.TempDir(), "model.gguf")
	os.WriteFile(model, []byte("GGUF and nothing a server could load"), 0o644)
	o := Options{Binary: "/bin/true", Model: model, Port: port}
	change(&o)
	if err := reg.mkdir(); err != nil {
		t.Fatal(err)
	}
	log = reg.LogPath(o.Port)
	evidence = "srv  stop: cancel task, id_task = 7\n(the earlier run's last lines)\n"
	if err := os.WriteFile(log, []byte(evidence), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = reg.Start(context.Background(), o, nil)
	return log, evidence, err
}

// requireLog fails t unless the file at path holds want ("" for a file
// that must not exist).
func requireLog(t *testing.T, path, want string) {
	t.Helper()
	data, err := os.ReadFile(path)
	switch {
	case want == "" && err == nil:
		t.Errorf("%s exists (%q); want none", path, data)
	case want != "" && string(data) != want:
		t.Errorf("%s holds %q (%v); want %q", path, data, err, want)
	}
}

// TestFailedStartKeepsLog: a start that fails before the server is
// launched leaves PORT.log, the evidence of the last run, as it was, and
// makes no PORT.log.1.
func TestFailedStartKeepsLog(t *testing.T) {
	notExec := filepath.Join(t.TempDir(), "llama-server")
	os.WriteFile(notExec, []byte("\x7fELF but not really"), 0o755)
	for _, tc := range []struct {
		name   string
		change func(o *Options)
		says   string
	}{
		{"missing model", func(o *Options) { o.Model = "/nonexistent.gguf" }, "/nonexistent.gguf"},
		{"missing binary", func(o *Options) { o.Binary = "/nonexistent/llama-server" }, "/nonexistent/llama-server"},
		{"taken port", func(o *Options) {
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { l.Close() })
			o.Port = l.Addr().(*net.TCPAddr).Port
		}, "already taken"},
		{"binary that cannot run", func(o *Options) { o.Binary = notExec }, "exec format error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log, evidence, err := startFailing(t, tc.change)
			if err == nil || !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("start: %v; want an error saying %q", err, tc.says)
			}
			requireLog(t, log, evidence)
			requireLog(t, log+".1", "")
			requireLog(t, log+".new", "")
		})
	}
}

// TestLaunchedStartRotatesLog: once the process runs, even one that exits
// during start-up, the earlier log is PORT.log.1 and PORT.log is the new
// run's.
func TestLaunchedStartRotatesLog(t *testing.T) {
	fake := filepath.Join(t.TempDir(), "llama-server")
	os.WriteFile(fake, []byte("#!/bin/sh\necho 'the new run speaks'\nexit 3\n"), 0o755)
	log, evidence, err := startFailing(t, func(o *Options) { o.Binary = fake })
	if err == nil || !strings.Contains(err.Error(), "exited during start-up") || !strings.Contains(err.Error(), "the new run speaks") {
		t.Fatalf("start: %v; want it to have exited during start-up, quoting its log", err)
	}
	requireLog(t, log, "the new run speaks\n")
	requireLog(t, log+".1", evidence)
	requireLog(t, log+".new", "")
}
