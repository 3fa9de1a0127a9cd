package tts

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"ttftlab/internal/installer"
	"ttftlab/scripts"
)

// InstallHint tells a user how to get espeak-ng.
const InstallHint = "install it with `ttftlab tts install` (lab and load install it too when --tts default needs it), " +
	"or put espeak-ng on PATH (apt-get install espeak-ng), or name it with ESPEAK_NG=/path/to/espeak-ng"

// ErrNotFound is returned by Find when no espeak-ng could be found.
var ErrNotFound = errors.New("espeak-ng not found")

// InstallerEnv names a script to run instead of the embedded
// install-espeak-ng.sh (same contract: progress on stderr, the path of
// espeak-ng on stdout); tests use it.
const InstallerEnv = "TTFTLAB_TTS_INSTALLER"

// InstalledPath is where scripts/install-espeak-ng.sh puts its wrapper by
// default.
func InstalledPath() string {
	if p := os.Getenv("TTFTLAB_ESPEAK_PREFIX"); p != "" {
		return filepath.Join(p, "bin", "espeak-ng")
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(cache, "ttftlab", "espeak-ng", "bin", "espeak-ng")
}

// Find locates espeak-ng: $ESPEAK_NG, then PATH, then ttftlab's installed
// copy.
func Find() (string, error) {
	if env := os.Getenv("ESPEAK_NG"); env != "" {
		return executable(env, "ESPEAK_NG")
	}
	if p, err := exec.LookPath("espeak-ng"); err == nil {
		return p, nil
	}
	if p := InstalledPath(); p != "" {
		if _, err := executable(p, "installed copy"); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("%w (looked at ESPEAK_NG, PATH and %s): %s", ErrNotFound, InstalledPath(), InstallHint)
}

func executable(path, source string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("espeak-ng from %s: %w; %s", source, err, InstallHint)
	}
	if st.IsDir() || st.Mode()&0o111 == 0 {
		return "", fmt.Errorf("espeak-ng from %s: %s is not an executable file; %s", source, path, InstallHint)
	}
	return path, nil
}

// Install runs install-espeak-ng.sh (the copy embedded in the binary, or
// the script InstallerEnv names), its progress on log, and returns the
// path it printed.
func Install(ctx context.Context, force bool, log io.Writer) (string, error) {
	path, err := installer.Run(ctx, installer.Script{Name: "install-espeak-ng.sh", Text: scripts.InstallSpeechScript, Env: InstallerEnv, What: "espeak-ng", Beside: scripts.InstallerFiles}, force, log)
	if err != nil {
		return "", err
	}
	return executable(path, "the installer")
}

// FindOrInstall is Find, and when espeak-ng is nowhere (ErrNotFound),
// Install with a progress line on log. An ESPEAK_NG that is wrong stays an
// error: the user asked for that one.
func FindOrInstall(ctx context.Context, log io.Writer) (string, error) {
	bin, err := Find()
	if err == nil || !errors.Is(err, ErrNotFound) {
		return bin, err
	}
	if log == nil {
		log = io.Discard
	}
	fmt.Fprintf(log, "espeak-ng not found: installing it into %s (once; as `ttftlab tts install` does) ...\n", filepath.Dir(filepath.Dir(InstalledPath())))
	bin, err = Install(ctx, false, log)
	if err != nil {
		return "", fmt.Errorf("espeak-ng was not found, and %w; connect to a network and try again "+
			"(TTFTLAB_DEBIAN_MIRROR=URL names another Debian mirror), or put espeak-ng on PATH (apt-get install espeak-ng), "+
			"or name it with ESPEAK_NG=/path/to/espeak-ng", err)
	}
	fmt.Fprintf(log, "espeak-ng installed: %s\n", bin)
	return bin, nil
}

// Version is the engine's name and version, "espeak-ng 1.51", from its
// --version line; "espeak-ng" when that cannot be read.
func Version(bin string) string {
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		return "espeak-ng"
	}
	line, _, _ := strings.Cut(string(out), "\n")
	if _, v, ok := strings.Cut(line, ": "); ok {
		if f := strings.Fields(v); len(f) > 0 {
			return "espeak-ng " + f[0]
		}
	}
	return "espeak-ng"
}
