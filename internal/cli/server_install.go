package cli

import "ttftlab/internal/llamaserver"

// newServerInstall is `ttftlab server install [--force]`.
func newServerInstall(e *env) runner {
	return &programInstall{env: e, name: "llama-server", install: llamaserver.Install, failedHint: llamaserver.InstallFailedHint,
		about: "Installs llama-server from Debian's packages into a private prefix and prints its path."}
}
