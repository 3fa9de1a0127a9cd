package pocketsphinx

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

// InstallHint tells a user how to get pocketsphinx.
const InstallHint = "install it with `ttftlab stt install` (lab and load install it too when --stt default needs it), " +
	"or name a pocketsphinx 5 with TTFTLAB_POCKETSPHINX=/path/to/pocketsphinx, or put one on PATH"

// ErrNotFound is returned by Find when no pocketsphinx could be found.
var ErrNotFound = errors.New("pocketsphinx not found")

// Env names the pocketsphinx to run (a binary, or a wrapper such as the
// installed one); it wins over PATH and the installed copy.
const Env = "TTFTLAB_POCKETSPHINX"

// InstallerEnv names a script to run instead of the embedded
// install-pocketsphinx.sh (same contract: progress on stderr, the path of
// pocketsphinx on stdout); tests use it.
const InstallerEnv = "TTFTLAB_STT_INSTALLER"

// InstalledPath is where scripts/install-pocketsphinx.sh puts its wrapper
// by default.
func InstalledPath() string {
	if p := os.Getenv("TTFTLAB_POCKETSPHINX_PREFIX"); p != "" {
		return filepath.Join(p, "bin", "pocketsphinx")
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(cache, "ttftlab", "pocketsphinx", "bin", "pocketsphinx")
}

// Find locates pocketsphinx: $TTFTLAB_POCKETSPHINX, then PATH, then
// ttftlab's installed copy.
func Find() (string, error) {
	if env := os.Getenv(Env); env != "" {
		return executable(env, Env)
	}
	if p, err := exec.LookPath("pocketsphinx"); err == nil {
		return p, nil
	}
	if p := InstalledPath(); p != "" {
		if _, err := executable(p, "installed copy"); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("%w (looked at %s, PATH and %s): %s", ErrNotFound, Env, InstalledPath(), InstallHint)
}

func executable(path, source string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("pocketsphinx from %s: %w; %s", source, err, InstallHint)
	}
	if st.IsDir() || st.Mode()&0o111 == 0 {
		return "", fmt.Errorf("pocketsphinx from %s: %s is not an executable file; %s", source, path, InstallHint)
	}
	return path, nil
}

// Install runs install-pocketsphinx.sh (the copy embedded in the binary,
// or the script InstallerEnv names), its progress on log, and returns the
// path it printed.
func Install(ctx context.Context, force bool, log io.Writer) (string, error) {
	path, err := installer.Run(ctx, installer.Script{Name: "install-pocketsphinx.sh", Text: scripts.InstallSTTScript, Env: InstallerEnv, What: "pocketsphinx", Beside: scripts.InstallerFiles}, force, log)
	if err != nil {
		return "", err
	}
	return executable(path, "the installer")
}

// FindOrInstall is Find, and when pocketsphinx is nowhere (ErrNotFound),
// Install with a progress line on log. A TTFTLAB_POCKETSPHINX that is
// wrong stays an error: the user asked for that one.
func FindOrInstall(ctx context.Context, log io.Writer) (string, error) {
	bin, err := Find()
	if err == nil || !errors.Is(err, ErrNotFound) {
		return bin, err
	}
	if log == nil {
		log = io.Discard
	}
	fmt.Fprintf(log, "pocketsphinx not found: installing it into %s (once; as `ttftlab stt install` does) ...\n", filepath.Dir(filepath.Dir(InstalledPath())))
	bin, err = Install(ctx, false, log)
	if err != nil {
		return "", fmt.Errorf("pocketsphinx was not found, and %w; connect to a network and try again "+
			"(TTFTLAB_DEBIAN_MIRROR=URL names another Debian mirror), or name a pocketsphinx 5 with %s=/path/to/pocketsphinx", err, Env)
	}
	fmt.Fprintf(log, "pocketsphinx installed: %s\n", bin)
	return bin, nil
}

// Version is the engine's name and version, "pocketsphinx 5.1.1", as the
// installed wrapper answers --version (pocketsphinx itself prints none);
// "pocketsphinx" for another binary.
func Version(bin string) string {
	out, err := exec.Command(bin, "--version").Output()
	if err == nil {
		line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
		if f := strings.Fields(line); len(f) == 2 && f[0] == "pocketsphinx" {
			return line
		}
	}
	return "pocketsphinx"
}

// modelArgs names the en-us model for a pocketsphinx that does not name
// it itself: a Debian install's (BIN/../share/pocketsphinx/model/en-us).
// The installed wrapper names its own, and gets none.
func modelArgs(bin string) []string {
	real, err := filepath.EvalSymlinks(bin)
	if err != nil {
		return nil
	}
	dir := filepath.Join(filepath.Dir(real), "..", "share", "pocketsphinx", "model", "en-us")
	if _, err := os.Stat(filepath.Join(dir, "en-us", "mdef")); err != nil {
		return nil
	}
	return []string{"-hmm", filepath.Join(dir, "en-us"), "-lm", filepath.Join(dir, "en-us.lm.bin"), "-dict", filepath.Join(dir, "cmudict-en-us.dict")}
}
