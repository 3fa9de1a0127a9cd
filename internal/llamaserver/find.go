// Package llamaserver finds, starts and stops llama.cpp's llama-server.
package llamaserver

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// InstallHint tells a user how to get llama-server.
const InstallHint = "install it with `go run . server install` (`ttftlab server install`; `go run . lab` installs it " +
	"too when it is missing), or " + nameHint

// nameHint is how to use a llama-server of one's own.
const nameHint = "put llama-server on PATH, or name it with LLAMA_SERVER=/path/to/llama-server"

// ErrNotFound is returned by Find when no llama-server could be found.
var ErrNotFound = errors.New("llama-server not found")

// InstalledPath is where scripts/install-llama-server.sh puts its wrapper by
// default.
func InstalledPath() string {
	if p := os.Getenv("TTFTLAB_LLAMA_PREFIX"); p != "" {
		return filepath.Join(p, "bin", "llama-server")
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(cache, "ttftlab", "llama", "bin", "llama-server")
}

// Find locates llama-server: the explicit path if given, then $LLAMA_SERVER,
// then PATH, then the project's installed copy.
func Find(explicit string) (string, error) {
	if explicit != "" {
		return checkExecutable(explicit, "the given path")
	}
	if env := os.Getenv("LLAMA_SERVER"); env != "" {
		return checkExecutable(env, "LLAMA_SERVER")
	}
	if p, err := exec.LookPath("llama-server"); err == nil {
		return p, nil
	}
	if p := InstalledPath(); p != "" {
		if _, err := checkExecutable(p, "installed copy"); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("%w (looked at LLAMA_SERVER, PATH and %s): %s", ErrNotFound, InstalledPath(), InstallHint)
}

func checkExecutable(path, source string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("llama-server from %s: %w; %s", source, err, InstallHint)
	}
	if st.IsDir() || st.Mode()&0o111 == 0 {
		return "", fmt.Errorf("llama-server from %s: %s is not an executable file; %s", source, path, InstallHint)
	}
	return path, nil
}
