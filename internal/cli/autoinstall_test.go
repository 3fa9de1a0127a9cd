package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"ttftlab/internal/llamaserver"
)

// noLlamaServer makes this process find no llama-server: LLAMA_SERVER
// unset, PATH without the folders that hold one, an empty install
// prefix. installer is the stand-in's shell text; it runs as
// install-llama-server.sh would (progress on stderr, the path on stdout),
// through TTFTLAB_INSTALLER, so nothing is downloaded. It returns the
// prefix's wrapper path.
func noLlamaServer(t *testing.T, installer string) string {
	t.Helper()
	var path []string
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if _, err := os.Stat(filepath.Join(dir, "llama-server")); err != nil {
			path = append(path, dir)
		}
	}
	prefix := filepath.Join(t.TempDir(), "llama")
	script := filepath.Join(t.TempDir(), "fake-install.sh")
	if err := os.WriteFile(script, []byte("set -eu\n"+installer), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("LLAMA_SERVER", "")
	t.Setenv("PATH", strings.Join(path, string(filepath.ListSeparator)))
	t.Setenv("TTFTLAB_LLAMA_PREFIX", prefix)
	t.Setenv(llamaserver.InstallerEnv, script)
	wrapper := filepath.Join(prefix, "bin", "llama-server")
	if _, err := llamaserver.Find(""); err == nil {
		t.Fatal("a llama-server is still found; the test cannot see the install")
	}
	return wrapper
}

// TestRunInstallsLlamaServer: `run --model` with no llama-server anywhere
// installs it (a progress line, the installer's own lines) and goes on to
// start it and run the script; the next run finds the installed copy and
// installs nothing. The stand-in installer writes a wrapper that runs the
// real llama-server, so this needs one (TTFTLAB_REQUIRE_LLAMA=1 fails
// instead of skipping). Fails before this change: "llama-server not
// found" until `ttftlab server install` had run.
func TestRunInstallsLlamaServer(t *testing.T) {
	real, model := needLlama(t)
	wrapper := noLlamaServer(t, fmt.Sprintf(`echo "install-llama-server: stand-in install" >&2
mkdir -p "$TTFTLAB_LLAMA_PREFIX/bin"
printf '#!/bin/sh\nexec %%s "$@"\n' %q > "$TTFTLAB_LLAMA_PREFIX/bin/llama-server"
chmod +x "$TTFTLAB_LLAMA_PREFIX/bin/llama-server"
echo "$TTFTLAB_LLAMA_PREFIX/bin/llama-server"
`, real))
	port, err := llamaserver.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	server := fmt.Sprintf("http://127.0.0.1:%d", port)
	script := writeScript(t, "local _, _, _, info = stream({{role = 'user', content = 'Hi'}}, {max_tokens = 4})\nprint('status', info.status)\n")
	code, stdout, stderr := runCLI("run", script, "--server", server, "--model", model, "--out", t.TempDir())
	if code != 0 {
		t.Fatalf("run exited %d:\n%s%s", code, stdout, stderr)
	}
	for _, want := range []string{"llama-server not found: installing it", "install-llama-server: stand-in install",
		"llama-server installed: " + wrapper, "llama-server is up at", "status\t200"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if p, err := llamaserver.Find(""); err != nil || p != wrapper {
		t.Errorf("after the run Find = %q, %v; want the installed %s", p, err, wrapper)
	}
	code, stdout, stderr = runCLI("run", script, "--server", server, "--model", model, "--out", t.TempDir())
	if code != 0 || strings.Contains(stdout, "installing") {
		t.Errorf("second run: exit %d, and it installed again?\n%s%s", code, stdout, stderr)
	}
}

// TestLabInstallFailure: when the installer fails, the lab stops before it
// writes a model, with the installer's words and the command to run.
func TestLabInstallFailure(t *testing.T) {
	noLlamaServer(t, `echo "install-llama-server: error: apt-get not found: this script needs a Debian-based system" >&2
exit 1
`)
	port, err := llamaserver.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // where a synthetic model would go
	// --synth-preset asks for the synthetic model at the named port.
	code, stdout, stderr := runCLI("lab", "--server", fmt.Sprintf("http://127.0.0.1:%d", port), "--synth-preset", "tiny", "--out", t.TempDir())
	if code != 1 {
		t.Fatalf("lab exited %d, want 1:\n%s%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "llama-server not found: installing it") {
		t.Errorf("stdout lacks the install line:\n%s", stdout)
	}
	if strings.Count(stdout+stderr, "apt-get not found") != 1 {
		t.Errorf("the installer's reason should be said once, in the error:\n%s%s", stdout, stderr)
	}
	for _, want := range []string{"installing llama-server failed", "apt-get not found", "--llama-server", "LLAMA_SERVER"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q: %q", want, stderr)
		}
	}
	if strings.Contains(stdout, "SYNTHETIC") {
		t.Errorf("the lab prepared the synthetic model although no llama-server could serve it:\n%s", stdout)
	}
}

// TestServerInstallUsesInstaller: `server install` runs the same
// installer and prints its path.
func TestServerInstallUsesInstaller(t *testing.T) {
	noLlamaServer(t, `echo "install-llama-server: --force is $*" >&2
echo /opt/x/llama-server
`)
	code, stdout, stderr := runCLI("server", "install", "--force")
	if code != 1 || !strings.Contains(stderr, "--force is --force") || !strings.Contains(stderr, "/opt/x/llama-server") {
		t.Errorf("exit %d, stdout %q, stderr %q: want the installer run with --force and its path checked", code, stdout, stderr)
	}
}

// TestInstallOfflineSaysWhy: the real install script against a Debian
// mirror that cannot be reached (a closed local port) says in a line or
// two that the packages could not be downloaded, from where and why, and
// what to do; none of apt's own "E:" lines, no temporary script path.
// Fails before this change: apt's failed fetch was swallowed, fifteen
// "E: Unable to locate package" lines followed, and the error named a
// deleted temporary script and "exit status 1".
func TestInstallOfflineSaysWhy(t *testing.T) {
	if _, err := exec.LookPath("apt-get"); err != nil {
		t.Skip("needs apt-get: the install script downloads Debian's packages with it")
	}
	noLlamaServer(t, "")
	t.Setenv(llamaserver.InstallerEnv, "") // the embedded script
	t.Setenv("TTFTLAB_DEBIAN_MIRROR", "http://127.0.0.1:1/debian")
	conf := filepath.Join(t.TempDir(), "apt.conf")
	if err := os.WriteFile(conf, []byte("Acquire::Retries \"0\";\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("APT_CONFIG", conf) // no retries: a refused port stays refused
	code, stdout, stderr := runCLI("server", "install", "--force")
	if code != 1 {
		t.Fatalf("server install exited %d, want 1:\n%s%s", code, stdout, stderr)
	}
	all := stdout + stderr
	for _, want := range []string{"could not be downloaded", "http://127.0.0.1:1/debian", "Connection refused", "--llama-server", "LLAMA_SERVER"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	for _, bad := range []string{"E: ", "W: ", "install-llama-server.sh", "exit status", "to see why"} {
		if strings.Contains(all, bad) {
			t.Errorf("output holds %q:\n%s", bad, all)
		}
	}
	if n := strings.Count(strings.TrimSpace(all), "\n") + 1; n > 4 {
		t.Errorf("%d lines, want a few:\n%s", n, all)
	}
}
