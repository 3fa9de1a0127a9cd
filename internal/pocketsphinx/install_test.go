package pocketsphinx

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFindOrInstall: with no pocketsphinx anywhere, FindOrInstall runs the
// installer (a stand-in that writes a wrapper, so nothing is downloaded),
// says so, and Find then finds the installed copy; its Version is what the
// wrapper answers. A TTFTLAB_POCKETSPHINX that is not a program is an
// error naming it, not an install.
func TestFindOrInstall(t *testing.T) {
	prefix := filepath.Join(t.TempDir(), "pocketsphinx")
	script := filepath.Join(t.TempDir(), "stand-in.sh")
	os.WriteFile(script, []byte(`set -eu
echo "install-pocketsphinx: stand-in install" >&2
mkdir -p "$TTFTLAB_POCKETSPHINX_PREFIX/bin"
printf '#!/bin/sh\n[ "$1" = --version ] && echo "pocketsphinx 5.1.1"\n' > "$TTFTLAB_POCKETSPHINX_PREFIX/bin/pocketsphinx"
chmod +x "$TTFTLAB_POCKETSPHINX_PREFIX/bin/pocketsphinx"
echo "$TTFTLAB_POCKETSPHINX_PREFIX/bin/pocketsphinx"
`), 0o755)
	t.Setenv(Env, "")
	t.Setenv("PATH", os.Getenv("PATH")+":"+t.TempDir())
	t.Setenv("TTFTLAB_POCKETSPHINX_PREFIX", prefix)
	t.Setenv(InstallerEnv, script)
	if p, err := Find(); err == nil {
		t.Skipf("a pocketsphinx is on PATH (%s): the install cannot be seen", p)
	}
	var log bytes.Buffer
	bin, err := FindOrInstall(context.Background(), &log)
	want := filepath.Join(prefix, "bin", "pocketsphinx")
	if err != nil || bin != want {
		t.Fatalf("%q, %v\n%s", bin, err, log.String())
	}
	for _, line := range []string{"pocketsphinx not found: installing it into " + prefix, "install-pocketsphinx: stand-in install", "pocketsphinx installed: " + want} {
		if !strings.Contains(log.String(), line) {
			t.Errorf("log lacks %q:\n%s", line, log.String())
		}
	}
	if p, err := Find(); p != want || err != nil {
		t.Errorf("Find after the install: %q, %v", p, err)
	}
	if v := Version(want); v != "pocketsphinx 5.1.1" {
		t.Errorf("Version %q", v)
	}
	t.Setenv(Env, script+".missing")
	if _, err := FindOrInstall(context.Background(), &log); err == nil || !strings.Contains(err.Error(), Env) {
		t.Errorf("a wrong %s: %v", Env, err)
	}
}
