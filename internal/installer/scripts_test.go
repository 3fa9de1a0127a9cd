package installer

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ttftlab/scripts"
)

// toolScript installs a program the way the install scripts do, through
// what they share in private-apt.sh, with the package download left out:
// its "package" is a script that answers --version with version, or fails
// when version is "".
const toolScript = `set -euo pipefail
. "$(dirname "$0")/private-apt.sh"
install_begin ttftlab-test-tool TTFTLAB_TEST_TOOL TTFTLAB_TEST_TOOL_PREFIX tool "$@"
keep_installed --version
mkdir -p "$tmp_prefix/bin"
if [ -n "$TOOL_VERSION" ]; then
  printf '#!/bin/sh\necho "%s"\n' "$TOOL_VERSION" >"$tmp_prefix/bin/ttftlab-test-tool"
else
  printf '#!/bin/sh\necho "cannot load libtool.so" >&2\nexit 127\n' >"$tmp_prefix/bin/ttftlab-test-tool"
fi
chmod +x "$tmp_prefix/bin/ttftlab-test-tool"
check_runs version.log --version
install_end "$(head -1 "$work/version.log")"
`

// TestInstallScriptSteps: the steps every install script shares
// (scripts/private-apt.sh): the first run installs into the prefix and
// says what; the next keeps the copy that runs; --force installs again; a
// program named by the variable is printed, a wrong one refused; a copy
// that does not run is not put in place, its output shown, and not left
// beside it.
func TestInstallScriptSteps(t *testing.T) {
	prefix := filepath.Join(t.TempDir(), "tool")
	t.Setenv("TTFTLAB_TEST_TOOL", "")
	t.Setenv("TTFTLAB_TEST_TOOL_PREFIX", prefix)
	t.Setenv("TTFTLAB_TEST_TOOL_INSTALLER", "")
	s := Script{Name: "install-ttftlab-test-tool.sh", Text: []byte(toolScript), Env: "TTFTLAB_TEST_TOOL_INSTALLER", What: "ttftlab-test-tool", Beside: scripts.InstallerFiles}
	wrapper := filepath.Join(prefix, "bin", "ttftlab-test-tool")
	run := func(version string, force bool) (string, string, error) {
		t.Setenv("TOOL_VERSION", version)
		var log bytes.Buffer
		path, err := Run(context.Background(), s, force, &log)
		return path, log.String(), err
	}

	path, log, err := run("tool 1.2", false)
	if err != nil || path != wrapper || !strings.Contains(log, "install-ttftlab-test-tool: installed: tool 1.2") {
		t.Fatalf("first install: %q, %v, log %q", path, err, log)
	}
	path, log, err = run("tool 1.3", false)
	if err != nil || path != wrapper || strings.Contains(log, "installed:") {
		t.Fatalf("with a copy that runs: %q, %v, log %q", path, err, log)
	}
	path, log, err = run("tool 1.3", true)
	if err != nil || path != wrapper || !strings.Contains(log, "installed: tool 1.3") {
		t.Fatalf("--force: %q, %v, log %q", path, err, log)
	}
	path, log, err = run("", true)
	if err == nil || err.Error() != "installing ttftlab-test-tool failed: the installed ttftlab-test-tool does not run" || !strings.Contains(log, "cannot load libtool.so") {
		t.Fatalf("a copy that does not run: %q, %v, log %q", path, err, log)
	}
	if out, err := os.ReadFile(wrapper); err != nil || !strings.Contains(string(out), "tool 1.3") {
		t.Fatalf("the copy that ran was replaced: %q, %v", out, err)
	}
	if matches, _ := filepath.Glob(prefix + ".new.*"); len(matches) != 0 {
		t.Errorf("left beside: %v", matches)
	}

	own := filepath.Join(t.TempDir(), "my-tool")
	os.WriteFile(own, []byte("#!/bin/sh\n"), 0o755)
	t.Setenv("TTFTLAB_TEST_TOOL", own)
	if path, _, err := run("tool 1.4", false); err != nil || path != own {
		t.Errorf("a program named by the variable: %q, %v", path, err)
	}
	t.Setenv("TTFTLAB_TEST_TOOL", own+".missing")
	if _, _, err := run("tool 1.4", false); err == nil || !strings.Contains(err.Error(), "TTFTLAB_TEST_TOOL="+own+".missing is not an executable file") {
		t.Errorf("a wrong variable: %v", err)
	}
}
