package cli

import "ttftlab/internal/pocketsphinx"

// newSTTInstall is `ttftlab stt install [--force]`.
func newSTTInstall(e *env) runner {
	return &programInstall{env: e, name: "pocketsphinx", install: pocketsphinx.Install, failedHint: pocketsphinx.InstallFailedHint,
		about: "Installs Debian's pocketsphinx 5 with its en-us model into a private prefix in ttftlab's cache\n" +
			"(with its own C library and loader) and prints its path."}
}
