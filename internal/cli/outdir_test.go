package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOutFolderCannotBeCreated(t *testing.T) {
	file := filepath.Join(t.TempDir(), "a-file")
	os.WriteFile(file, []byte("x"), 0o644)
	script := writeScript(t, "print('ran')\n")
	code, stdout, stderr := runCLI("run", script, "--out", filepath.Join(file, "out"))
	if code != 1 || strings.Contains(stdout, "ran") {
		t.Errorf("exit %d, stdout %q: the script must not run", code, stdout)
	}
	if !strings.Contains(stderr, "cannot create output folder") || !strings.Contains(stderr, "--out") {
		t.Errorf("stderr = %q", stderr)
	}
}

func TestOutFolderCannotBeWritten(t *testing.T) {
	// Root ignores permission bits, so use a folder no one can create files
	// in: /proc/self exists but takes no new files.
	script := writeScript(t, "write_json('x.json', {a = 1})\n")
	code, _, stderr := runCLI("run", script, "--out", "/proc/self")
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	for _, want := range []string{"script.lua:1:", "write_json", "/proc/self/x.json"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}
