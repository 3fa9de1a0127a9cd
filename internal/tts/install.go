package tts

import (
	"errors"
	"strings"

	"ttftlab/internal/installer"
	"ttftlab/scripts"
)

// InstallHint tells a user how to get espeak-ng.
const InstallHint = "install it with `ttftlab tts install` (lab and load install it too when --tts default needs it), " +
	"or " + ownHint

// ownHint is how to use an espeak-ng of one's own.
const ownHint = "put espeak-ng on PATH (apt-get install espeak-ng), or name it with ESPEAK_NG=/path/to/espeak-ng"

// InstallFailedHint is what to do when the install failed.
const InstallFailedHint = installer.NetworkHint + ", or " + ownHint

// ErrNotFound is returned by Find when no espeak-ng could be found.
var ErrNotFound = errors.New("espeak-ng not found")

// InstallerEnv names a script to run instead of the embedded
// install-espeak-ng.sh (same contract: progress on stderr, the path of
// espeak-ng on stdout); tests use it.
const InstallerEnv = "TTFTLAB_TTS_INSTALLER"

// program is espeak-ng: $ESPEAK_NG, PATH, or ttftlab's installed copy.
var program = installer.Program{
	Name: "espeak-ng", Env: "ESPEAK_NG", PrefixEnv: "TTFTLAB_ESPEAK_PREFIX", Dir: "espeak-ng",
	Script:  installer.Script{Name: "install-espeak-ng.sh", Text: scripts.InstallSpeechScript, Env: InstallerEnv, What: "espeak-ng", Beside: scripts.InstallerFiles},
	Command: "ttftlab tts install", Hint: InstallHint, FailedHint: InstallFailedHint, NotFound: ErrNotFound,
}

// Find locates espeak-ng ($ESPEAK_NG, then PATH, then ttftlab's installed
// copy); Install runs scripts/install-espeak-ng.sh (embedded, or the script
// InstallerEnv names), its progress on log, and returns the path it
// printed; FindOrInstall is Find, installing when espeak-ng is nowhere
// (ErrNotFound; an ESPEAK_NG that is wrong stays an error); InstalledPath
// is where the script installs by default. They are installer.Program's.
var (
	Find, Install, FindOrInstall = program.Find, program.Install, program.FindOrInstall
	InstalledPath                = program.InstalledPath
)

// Version is the engine's name and version, "espeak-ng 1.51", from its
// --version line; "espeak-ng" when that cannot be read.
func Version(bin string) string {
	if _, v, ok := strings.Cut(installer.VersionLine(bin), ": "); ok {
		if f := strings.Fields(v); len(f) > 0 {
			return "espeak-ng " + f[0]
		}
	}
	return "espeak-ng"
}
