package installer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Program is a program ttftlab finds where the user keeps it, or
// installs into a private folder with its own script. Its errors speak
// of Name and end with the owner's hints.
type Program struct {
	// Name is the program's name on PATH and in messages ("espeak-ng").
	Name string
	// Env names the program to run; it wins over PATH and the installed
	// copy, and a wrong one stays an error.
	Env string
	// PrefixEnv names the folder the install script installs into
	// (PREFIX/bin/Name); without it, Dir under the user's cache folder's
	// "ttftlab".
	PrefixEnv string
	Dir       string
	// Script installs it and prints the path of what it installed.
	Script Script
	// Command is the command that installs it ("ttftlab tts install").
	Command string
	// Hint tells a user how to get it, after an error of Find.
	Hint string
	// FailedHint is what to do when the install failed (NetworkHint, or a
	// copy of one's own).
	FailedHint string
	// NotFound is the error Find wraps when the program is nowhere, which
	// FindOrInstall answers with an install.
	NotFound error
}

// InstalledPath is where the install script puts the program by default.
func (p Program) InstalledPath() string {
	if prefix := os.Getenv(p.PrefixEnv); p.PrefixEnv != "" && prefix != "" {
		return filepath.Join(prefix, "bin", p.Name)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(cache, "ttftlab", p.Dir, "bin", p.Name)
}

// Find locates the program: $Env, then PATH, then the installed copy.
// Nowhere is an error wrapping NotFound.
func (p Program) Find() (string, error) {
	if env := os.Getenv(p.Env); env != "" {
		return p.Executable(env, p.Env)
	}
	if path, err := exec.LookPath(p.Name); err == nil {
		return path, nil
	}
	if path := p.InstalledPath(); path != "" {
		if _, err := p.Executable(path, "installed copy"); err == nil {
			return path, nil
		}
	}
	return "", fmt.Errorf("%w (looked at %s, PATH and %s): %s", p.NotFound, p.Env, p.InstalledPath(), p.Hint)
}

// Executable returns path when it is an executable file, else an error
// naming where the path came from (source) and the hint.
func (p Program) Executable(path, source string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("%s from %s: %w; %s", p.Name, source, err, p.Hint)
	}
	if st.IsDir() || st.Mode()&0o111 == 0 {
		return "", fmt.Errorf("%s from %s: %s is not an executable file; %s", p.Name, source, path, p.Hint)
	}
	return path, nil
}

// Install runs the install script (Run), its progress on log, and
// returns the program it installed.
func (p Program) Install(ctx context.Context, force bool, log io.Writer) (string, error) {
	path, err := Run(ctx, p.Script, force, log)
	if err != nil {
		return "", err
	}
	return p.Executable(path, "the installer")
}

// NetworkHint begins what to do when an install failed: the scripts
// download Debian's packages, so a network or a mirror that answers.
const NetworkHint = "connect to a network and try again (TTFTLAB_DEBIAN_MIRROR=URL names another Debian mirror)"

// FindOrInstall is Find, and when the program is nowhere (NotFound),
// Install with a line before and after on log. A wrong $Env stays an
// error: the user asked for that one.
func (p Program) FindOrInstall(ctx context.Context, log io.Writer) (string, error) {
	bin, err := p.Find()
	if err == nil || !errors.Is(err, p.NotFound) {
		return bin, err
	}
	if log == nil {
		log = io.Discard
	}
	fmt.Fprintf(log, "%s not found: installing it into %s (once; as `%s` does) ...\n", p.Name, filepath.Dir(filepath.Dir(p.InstalledPath())), p.Command)
	bin, err = p.Install(ctx, false, log)
	if err != nil {
		return "", fmt.Errorf("%s was not found, and %w; %s", p.Name, err, p.FailedHint)
	}
	fmt.Fprintf(log, "%s installed: %s\n", p.Name, bin)
	return bin, nil
}

// VersionLine is the first line bin prints for --version, "" when it
// prints none or fails.
func VersionLine(bin string) string {
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return line
}
