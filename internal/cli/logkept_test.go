package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServerStartThatFailsKeepsLog: `server up` and `run --model` with a
// model that does not exist fail before llama-server is launched, and the
// port's log, the last run's evidence, stays as it was, not rotated to
// PORT.log.1.
func TestServerStartThatFailsKeepsLog(t *testing.T) {
	port := serverTestEnv(t)
	log := testRegistry(t).LogPath(port)
	os.MkdirAll(filepath.Dir(log), 0o755)
	evidence := "srv  stop: cancel task, id_task = 7\n"
	os.WriteFile(log, []byte(evidence), 0o644)
	for _, args := range [][]string{
		{"server", "up", "--model", "/nonexistent.gguf", "--port", itoa(port)},
		{"run", writeScript(t, "print(1)"), "--model", "/nonexistent.gguf", "--server", "http://127.0.0.1:" + itoa(port), "--out", t.TempDir()},
	} {
		code, _, stderr := runCLI(args...)
		if code != 1 || !strings.Contains(stderr, "/nonexistent.gguf") {
			t.Errorf("%v: exit %d, want 1 naming the model; stderr:\n%s", args, code, stderr)
		}
		if data, err := os.ReadFile(log); string(data) != evidence {
			t.Errorf("%v: the log holds %q (%v); want the earlier run's %q", args, data, err, evidence)
		}
		if _, err := os.Stat(log + ".1"); err == nil {
			t.Errorf("%v: the log was rotated to %s.1", args, log)
		}
	}
}
