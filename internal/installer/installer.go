// Package installer runs one of ttftlab's install scripts (built into the
// binary, or a stand-in a variable names): progress on stderr to the
// caller's log, the installed program's path on stdout.
package installer

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Script is an install script: its file name, its text, and the variable
// that names a stand-in to run instead (tests point it at one that
// installs nothing from the network).
type Script struct {
	Name string
	Text []byte
	Env  string
	// What names what it installs, for messages ("llama-server").
	What string
	// Beside holds the files the script sources from its own folder
	// (private-apt.sh), by name, written beside it.
	Beside map[string][]byte
}

// Run runs s with bash (--force when force), its progress to log, and
// returns the path it printed.
func Run(ctx context.Context, s Script, force bool, log io.Writer) (string, error) {
	script := os.Getenv(s.Env)
	if script == "" {
		dir, err := os.MkdirTemp("", "ttftlab-install")
		if err != nil {
			return "", err
		}
		defer os.RemoveAll(dir)
		script = filepath.Join(dir, s.Name)
		if err := os.WriteFile(script, s.Text, 0o755); err != nil {
			return "", err
		}
		for name, text := range s.Beside {
			if err := os.WriteFile(filepath.Join(dir, name), text, 0o644); err != nil {
				return "", err
			}
		}
	}
	args := []string{script}
	if force {
		args = append(args, "--force")
	}
	cmd := exec.CommandContext(ctx, "bash", args...)
	if log == nil {
		log = io.Discard
	}
	cmd.Stderr = log
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("installing %s failed (%s): %w", s.What, script, err)
	}
	path := strings.TrimSpace(string(out))
	if path == "" {
		return "", fmt.Errorf("installing %s: %s printed no path", s.What, script)
	}
	return path, nil
}
