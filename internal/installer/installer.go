// Package installer finds a program ttftlab runs (the variable that names
// it, PATH, its private install) or installs it by one of ttftlab's
// install scripts (built into the binary, or a stand-in a variable names):
// progress on stderr to the caller's log, the installed program's path on
// stdout.
package installer

import (
	"bytes"
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
// returns the path it printed. A script that fails says why on a line
// "NAME: error: REASON" (NAME: its file name without ".sh"); that line is
// kept from log and the reason is the error's text.
func Run(ctx context.Context, s Script, force bool, log io.Writer) (string, error) {
	script := os.Getenv(s.Env)
	standIn := script != ""
	if !standIn {
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
	lines := &errorLines{log: log, prefix: strings.TrimSuffix(s.Name, ".sh") + ": error: "}
	cmd.Stderr = lines
	out, err := cmd.Output()
	lines.flush()
	if err != nil {
		if ctx.Err() != nil {
			return "", fmt.Errorf("installing %s: %w", s.What, ctx.Err())
		}
		if len(lines.reasons) > 0 {
			return "", fmt.Errorf("installing %s failed: %s", s.What, strings.Join(lines.reasons, "; "))
		}
		if standIn {
			return "", fmt.Errorf("installing %s failed (%s=%s): %w", s.What, s.Env, script, err)
		}
		return "", fmt.Errorf("installing %s failed: the install script stopped (%w) without saying why; its lines above are all it printed", s.What, err)
	}
	path := strings.TrimSpace(string(out))
	if path == "" {
		return "", fmt.Errorf("installing %s: %s printed no path", s.What, script)
	}
	return path, nil
}

// errorLines passes a script's stderr on to log line by line, keeping
// back the lines that say why it failed (prefix, then the reason), whose
// reasons become the error.
type errorLines struct {
	log     io.Writer
	prefix  string
	part    []byte
	reasons []string
}

func (w *errorLines) Write(p []byte) (int, error) {
	w.part = append(w.part, p...)
	for {
		i := bytes.IndexByte(w.part, '\n')
		if i < 0 {
			break
		}
		w.line(w.part[:i+1])
		w.part = w.part[i+1:]
	}
	return len(p), nil
}

// flush passes on a last line without its newline.
func (w *errorLines) flush() {
	if len(w.part) > 0 {
		w.line(append(w.part, '\n'))
		w.part = nil
	}
}

func (w *errorLines) line(l []byte) {
	if reason, ok := strings.CutPrefix(strings.TrimRight(string(l), "\n"), w.prefix); ok {
		w.reasons = append(w.reasons, reason)
		return
	}
	w.log.Write(l)
}
