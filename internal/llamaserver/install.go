package llamaserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"ttftlab/scripts"
)

// InstallerEnv names a script to run instead of the embedded
// install-llama-server.sh (same contract: progress on stderr, the
// wrapper's path on stdout). Tests point it at a stand-in that installs
// nothing from the network.
const InstallerEnv = "TTFTLAB_INSTALLER"

// Install runs install-llama-server.sh (the copy embedded in the binary,
// or $TTFTLAB_INSTALLER) and returns the path it printed. The script's
// progress lines go to log. force reinstalls over an existing copy.
func Install(ctx context.Context, force bool, log io.Writer) (string, error) {
	script := os.Getenv(InstallerEnv)
	if script == "" {
		dir, err := os.MkdirTemp("", "ttftlab-install")
		if err != nil {
			return "", err
		}
		defer os.RemoveAll(dir)
		script = filepath.Join(dir, "install-llama-server.sh")
		if err := os.WriteFile(script, scripts.InstallScript, 0o755); err != nil {
			return "", err
		}
	}
	args := []string{script}
	if force {
		args = append(args, "--force")
	}
	cmd := exec.CommandContext(ctx, "bash", args...)
	if log == nil {
		log = io.Discard
	}
	cmd.Stderr = log
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("installing llama-server failed (%s): %w", script, err)
	}
	path := strings.TrimSpace(string(out))
	if path == "" {
		return "", fmt.Errorf("installing llama-server: %s printed no path", script)
	}
	return checkExecutable(path, "the installer")
}

// FindOrInstall is Find, and when no llama-server is found anywhere
// (ErrNotFound: no explicit path, no LLAMA_SERVER, none on PATH or
// installed), Install with a progress line on log, as `ttftlab server
// install` does. A path given explicitly or by LLAMA_SERVER that is wrong
// stays an error: the user asked for that one.
func FindOrInstall(ctx context.Context, explicit string, log io.Writer) (string, error) {
	bin, err := Find(explicit)
	if err == nil || !errors.Is(err, ErrNotFound) {
		return bin, err
	}
	if log == nil {
		log = io.Discard
	}
	fmt.Fprintf(log, "llama-server not found: installing it into %s (once; as `ttftlab server install` does) ...\n", filepath.Dir(filepath.Dir(InstalledPath())))
	bin, err = Install(ctx, false, log)
	if err != nil {
		return "", fmt.Errorf("llama-server was not found and installing it failed: %w; run `ttftlab server install` to see why, or %s", err, nameHint)
	}
	fmt.Fprintf(log, "llama-server installed: %s\n", bin)
	return bin, nil
}
