package llamaserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"ttftlab/internal/installer"
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
	path, err := installer.Run(ctx, installer.Script{Name: "install-llama-server.sh", Text: scripts.InstallScript, Env: InstallerEnv, What: "llama-server", Beside: scripts.InstallerFiles}, force, log)
	if err != nil {
		return "", err
	}
	return checkExecutable(path, "the installer")
}

// InstallFailedHint is what to do when the install failed: it downloads
// Debian's packages, so a network (or a mirror that answers), or a
// llama-server of one's own.
const InstallFailedHint = "connect to a network and try again (TTFTLAB_DEBIAN_MIRROR=URL names another Debian mirror), " +
	"or use a llama-server you have: --llama-server PATH or LLAMA_SERVER=PATH"

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
		return "", fmt.Errorf("llama-server was not found, and %w; %s", err, InstallFailedHint)
	}
	fmt.Fprintf(log, "llama-server installed: %s\n", bin)
	return bin, nil
}
