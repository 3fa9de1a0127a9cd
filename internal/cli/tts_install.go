package cli

import "ttftlab/internal/tts"

// newTTSInstall is `ttftlab tts install [--force]`.
func newTTSInstall(e *env) runner {
	return &programInstall{env: e, name: "espeak-ng", install: tts.Install, failedHint: tts.InstallFailedHint,
		about: "Installs Debian's espeak-ng into a private prefix in ttftlab's cache and prints its path."}
}
