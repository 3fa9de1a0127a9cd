// Package llamaserver finds, starts and stops llama.cpp's llama-server.
package llamaserver

import (
	"errors"

	"ttftlab/internal/installer"
	"ttftlab/scripts"
)

// InstallHint tells a user how to get llama-server.
const InstallHint = "install it with `go run . server install` (`ttftlab server install`; `go run . lab` installs it " +
	"too when it is missing), or " + nameHint

// nameHint is how to use a llama-server of one's own.
const nameHint = "put llama-server on PATH, or name it with LLAMA_SERVER=/path/to/llama-server"

// ErrNotFound is returned by Find when no llama-server could be found.
var ErrNotFound = errors.New("llama-server not found")

// program is llama-server: $LLAMA_SERVER, PATH, or ttftlab's installed
// copy.
var program = installer.Program{
	Name: "llama-server", Env: "LLAMA_SERVER", PrefixEnv: "TTFTLAB_LLAMA_PREFIX", Dir: "llama",
	Script:  installer.Script{Name: "install-llama-server.sh", Text: scripts.InstallScript, Env: InstallerEnv, What: "llama-server", Beside: scripts.InstallerFiles},
	Command: "ttftlab server install", Hint: InstallHint, FailedHint: InstallFailedHint, NotFound: ErrNotFound,
}

// InstalledPath is where scripts/install-llama-server.sh puts its wrapper by
// default.
func InstalledPath() string { return program.InstalledPath() }

// Find locates llama-server: the explicit path if given, then $LLAMA_SERVER,
// then PATH, then the project's installed copy.
func Find(explicit string) (string, error) {
	if explicit != "" {
		return program.Executable(explicit, "the given path")
	}
	return program.Find()
}
