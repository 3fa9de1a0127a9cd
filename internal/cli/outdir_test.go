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
	// in: /proc/self exists but takes no new files. It is refused before
	// the script runs.
	script := writeScript(t, "print('ran') write_json('x.json', {a = 1})\n")
	code, stdout, stderr := runCLI("run", script, "--out", "/proc/self")
	if code != 1 || strings.Contains(stdout, "ran") {
		t.Fatalf("exit %d, stdout %q: want 1 and the script not run", code, stdout)
	}
	for _, want := range []string{"/proc/self", "not writable", "--out"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}

// TestWriteErrorNamesTheScriptLine: a write that fails inside the script
// names the script's line and the file.
func TestWriteErrorNamesTheScriptLine(t *testing.T) {
	out := t.TempDir()
	os.WriteFile(filepath.Join(out, "sub"), []byte("a file"), 0o644)
	script := writeScript(t, "write_json('sub/x.json', {a = 1})\n")
	code, _, stderr := runCLI("run", script, "--out", out)
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	for _, want := range []string{"script.lua:1:", "write_json", filepath.Join(out, "sub")} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}

// TestNothingWrittenLeavesNoOut: a run that writes nothing leaves no
// output folder behind.
func TestNothingWrittenLeavesNoOut(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	script := writeScript(t, "print('hello')\n")
	if code, _, stderr := runCLI("run", script, "--out", out); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("the run made %s: %v", out, err)
	}
}

// TestOutFolderUnderProc: /proc/x does not exist, and /proc passes every
// permission check for root while taking no new folder. The up-front
// check tries, so run and lab refuse it before any work (the lab, before
// it looks for a server at all).
func TestOutFolderUnderProc(t *testing.T) {
	script := writeScript(t, "print('ran')\n")
	code, stdout, stderr := runCLI("run", script, "--out", "/proc/ttftlab-x")
	if code != 1 || strings.Contains(stdout, "ran") || !strings.Contains(stderr, "cannot create output folder /proc/ttftlab-x") {
		t.Errorf("run: exit %d, stdout %q, stderr %q: want 1, the script not run, the folder refused", code, stdout, stderr)
	}
	code, _, stderr = runCLI("lab", "--out", "/proc/ttftlab-x", "--server", noServer)
	if code != 1 || !strings.Contains(stderr, "cannot create output folder /proc/ttftlab-x") || !strings.Contains(stderr, "--out") {
		t.Errorf("lab: exit %d, stderr %q: want 1 and the folder refused up front", code, stderr)
	}
}

// TestOutFolderProbeLeavesNothing: the check's probe is removed, and an
// --out that is never written to is not made.
func TestOutFolderProbeLeavesNothing(t *testing.T) {
	parent := t.TempDir()
	script := writeScript(t, "print('ran')\n")
	if code, _, stderr := runCLI("run", script, "--out", filepath.Join(parent, "a", "b")); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if left, _ := os.ReadDir(parent); len(left) != 0 {
		t.Errorf("%s holds %v after the check, want nothing", parent, left)
	}
}
