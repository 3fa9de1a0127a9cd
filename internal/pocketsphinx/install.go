package pocketsphinx

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"ttftlab/internal/installer"
	"ttftlab/scripts"
)

// InstallHint tells a user how to get pocketsphinx.
const InstallHint = "install it with `ttftlab stt install` (lab and load install it too when --stt default needs it), " +
	"or name a pocketsphinx 5 with TTFTLAB_POCKETSPHINX=/path/to/pocketsphinx, or put one on PATH"

// InstallFailedHint is what to do when the install failed.
const InstallFailedHint = installer.NetworkHint + ", or name a pocketsphinx 5 with " + Env + "=/path/to/pocketsphinx"

// ErrNotFound is returned by Find when no pocketsphinx could be found.
var ErrNotFound = errors.New("pocketsphinx not found")

// Env names the pocketsphinx to run (a binary, or a wrapper such as the
// installed one); it wins over PATH and the installed copy.
const Env = "TTFTLAB_POCKETSPHINX"

// InstallerEnv names a script to run instead of the embedded
// install-pocketsphinx.sh (same contract: progress on stderr, the path of
// pocketsphinx on stdout); tests use it.
const InstallerEnv = "TTFTLAB_STT_INSTALLER"

// program is pocketsphinx: $TTFTLAB_POCKETSPHINX, PATH, or ttftlab's
// installed copy.
var program = installer.Program{
	Name: "pocketsphinx", Env: Env, PrefixEnv: "TTFTLAB_POCKETSPHINX_PREFIX", Dir: "pocketsphinx",
	Script:  installer.Script{Name: "install-pocketsphinx.sh", Text: scripts.InstallSTTScript, Env: InstallerEnv, What: "pocketsphinx", Beside: scripts.InstallerFiles},
	Command: "ttftlab stt install", Hint: InstallHint, FailedHint: InstallFailedHint, NotFound: ErrNotFound,
}

// Find locates pocketsphinx ($TTFTLAB_POCKETSPHINX, then PATH, then ttftlab's installed
// copy); Install runs scripts/install-pocketsphinx.sh (embedded, or the script
// InstallerEnv names), its progress on log, and returns the path it
// printed; FindOrInstall is Find, installing when pocketsphinx is nowhere
// (ErrNotFound; a TTFTLAB_POCKETSPHINX that is wrong stays an error); InstalledPath
// is where the script installs by default. They are installer.Program's.
var (
	Find, Install, FindOrInstall = program.Find, program.Install, program.FindOrInstall
	InstalledPath                = program.InstalledPath
)

// Version is the engine's name and version, "pocketsphinx 5.1.1", as the
// installed wrapper answers --version (pocketsphinx itself prints none);
// "pocketsphinx" for another binary.
func Version(bin string) string {
	line := installer.VersionLine(bin)
	if f := strings.Fields(line); len(f) == 2 && f[0] == "pocketsphinx" {
		return line
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
