package installer

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var errNoTool = errors.New("tool not found")

// testProgram is a program named "ttftlab-test-tool", found on
// TTFTLAB_TEST_TOOL, installed by the stand-in script TTFTLAB_TEST_TOOL_INSTALLER
// names into $TTFTLAB_TEST_TOOL_PREFIX, with PATH holding none.
func testProgram(t *testing.T) (Program, string) {
	t.Helper()
	prefix := filepath.Join(t.TempDir(), "tool")
	t.Setenv("TTFTLAB_TEST_TOOL", "")
	t.Setenv("TTFTLAB_TEST_TOOL_PREFIX", prefix)
	t.Setenv("TTFTLAB_TEST_TOOL_INSTALLER", "")
	t.Setenv("PATH", os.Getenv("PATH")+":"+t.TempDir())
	return Program{Name: "ttftlab-test-tool", Env: "TTFTLAB_TEST_TOOL", PrefixEnv: "TTFTLAB_TEST_TOOL_PREFIX", Dir: "tool",
		Script:  Script{Name: "install-tool.sh", Env: "TTFTLAB_TEST_TOOL_INSTALLER", What: "ttftlab-test-tool"},
		Command: "ttftlab tool install", Hint: "the find hint", FailedHint: NetworkHint + ", or the own hint", NotFound: errNoTool}, prefix
}

func script(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "stand-in.sh")
	if err := os.WriteFile(path, []byte(text), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestFindOrder: the variable wins over PATH and the installed copy, and
// a wrong one is an error naming it and the hint, not a search elsewhere;
// without it the installed copy is found; nowhere wraps NotFound.
func TestFindOrder(t *testing.T) {
	p, prefix := testProgram(t)
	_, err := p.Find()
	if !errors.Is(err, errNoTool) || !strings.Contains(err.Error(), "the find hint") || !strings.Contains(err.Error(), prefix) {
		t.Fatalf("nowhere: %v", err)
	}
	installed := filepath.Join(prefix, "bin", "ttftlab-test-tool")
	os.MkdirAll(filepath.Dir(installed), 0o755)
	os.WriteFile(installed, []byte("#!/bin/sh\n"), 0o755)
	if got, err := p.Find(); got != installed || err != nil {
		t.Errorf("the installed copy: %q, %v", got, err)
	}
	named := script(t, "#!/bin/sh\n")
	t.Setenv("TTFTLAB_TEST_TOOL", named)
	if got, err := p.Find(); got != named || err != nil {
		t.Errorf("the variable: %q, %v", got, err)
	}
	plain := filepath.Join(t.TempDir(), "plain")
	os.WriteFile(plain, []byte("x"), 0o644)
	t.Setenv("TTFTLAB_TEST_TOOL", plain)
	if _, err := p.Find(); err == nil || errors.Is(err, errNoTool) || !strings.Contains(err.Error(), "ttftlab-test-tool from TTFTLAB_TEST_TOOL: "+plain+" is not an executable file; the find hint") {
		t.Errorf("a variable naming a plain file: %v", err)
	}
}

// TestFindOrInstall: with the program nowhere, FindOrInstall runs the
// install script (a stand-in that writes the program, so nothing is
// downloaded), says so before and after, and Find then finds the
// installed copy. A wrong variable is an error, and nothing is installed.
func TestFindOrInstall(t *testing.T) {
	p, prefix := testProgram(t)
	t.Setenv("TTFTLAB_TEST_TOOL_INSTALLER", script(t, `set -eu
echo "install-tool: stand-in install" >&2
mkdir -p "$TTFTLAB_TEST_TOOL_PREFIX/bin"
printf '#!/bin/sh\necho "tool 1.2"\n' > "$TTFTLAB_TEST_TOOL_PREFIX/bin/ttftlab-test-tool"
chmod +x "$TTFTLAB_TEST_TOOL_PREFIX/bin/ttftlab-test-tool"
echo "$TTFTLAB_TEST_TOOL_PREFIX/bin/ttftlab-test-tool"
`))
	t.Setenv("TTFTLAB_TEST_TOOL", filepath.Join(t.TempDir(), "missing"))
	if _, err := p.FindOrInstall(context.Background(), nil); err == nil || !strings.Contains(err.Error(), "TTFTLAB_TEST_TOOL") {
		t.Errorf("a wrong variable: %v", err)
	}
	if _, err := os.Stat(prefix); err == nil {
		t.Error("the install script ran although the variable named a path")
	}
	t.Setenv("TTFTLAB_TEST_TOOL", "")
	var log bytes.Buffer
	bin, err := p.FindOrInstall(context.Background(), &log)
	want := filepath.Join(prefix, "bin", "ttftlab-test-tool")
	if err != nil || bin != want {
		t.Fatalf("%q, %v\n%s", bin, err, log.String())
	}
	for _, line := range []string{"ttftlab-test-tool not found: installing it into " + prefix + " (once; as `ttftlab tool install` does)",
		"install-tool: stand-in install", "ttftlab-test-tool installed: " + want} {
		if !strings.Contains(log.String(), line) {
			t.Errorf("log lacks %q:\n%s", line, log.String())
		}
	}
	if got, err := p.Find(); got != want || err != nil {
		t.Errorf("Find after the install: %q, %v", got, err)
	}
	if v := VersionLine(want); v != "tool 1.2" {
		t.Errorf("VersionLine %q", v)
	}
}

// TestFailedInstallSaysWhatToDo: an install that fails is an error with
// the script's reason and the owner's hint after it.
func TestFailedInstallSaysWhatToDo(t *testing.T) {
	p, _ := testProgram(t)
	t.Setenv("TTFTLAB_TEST_TOOL_INSTALLER", script(t, "echo 'install-tool: error: no network' >&2; exit 1\n"))
	_, err := p.FindOrInstall(context.Background(), nil)
	want := "ttftlab-test-tool was not found, and installing ttftlab-test-tool failed: no network; connect to a network and try again (TTFTLAB_DEBIAN_MIRROR=URL names another Debian mirror), or the own hint"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant %s", err, want)
	}
}
