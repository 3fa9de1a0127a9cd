package llamaserver

import (
	"context"
	"io"

	"ttftlab/internal/installer"
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
	return program.Install(ctx, force, log)
}

// InstallFailedHint is what to do when the install failed: it downloads
// Debian's packages, so a network (or a mirror that answers), or a
// llama-server of one's own.
const InstallFailedHint = installer.NetworkHint + ", or use a llama-server you have: --llama-server PATH or LLAMA_SERVER=PATH"

// FindOrInstall is Find, and when no llama-server is found anywhere
// (ErrNotFound: no explicit path, no LLAMA_SERVER, none on PATH or
// installed), Install with a progress line on log, as `ttftlab server
// install` does. A path given explicitly or by LLAMA_SERVER that is wrong
// stays an error: the user asked for that one.
func FindOrInstall(ctx context.Context, explicit string, log io.Writer) (string, error) {
	if explicit != "" {
		return Find(explicit)
	}
	return program.FindOrInstall(ctx, log)
}
