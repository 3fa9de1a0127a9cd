package repl

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"ttftlab/internal/atomicfile"
)

const (
	// historyKeep is how many entries the file keeps: liner's own limit.
	historyKeep = 1000
	// historyLineMax is the longest entry liner reads back.
	historyLineMax = 4096
)

// history is the file behind the terminal's history: one entry per line,
// appended as entries are made (so a crash loses nothing and two sessions
// both keep theirs), trimmed to the last historyKeep entries when loaded.
type history struct {
	path string
	// last is the newest entry, to skip immediate repeats.
	last string
}

// loadHistory reads the file (creating it, private, if missing) and
// returns its usable entries, oldest first.
func loadHistory(path string) (*history, []string, error) {
	h := &history{path: path}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return h, nil, fmt.Errorf("cannot create the folder for the history file %s: %w", path, err)
		}
		return h, nil, atomicfile.Write(path, nil, 0o600)
	}
	if err != nil {
		return h, nil, fmt.Errorf("cannot read the history file %s: %w", path, err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	entries := make([]string, 0, len(lines))
	for _, l := range lines {
		// Entries liner cannot read back (a partial line from a crash can
		// be invalid UTF-8) are dropped rather than ending the load.
		if l != "" && len(l) <= historyLineMax && utf8.ValidString(l) {
			entries = append(entries, l)
		}
	}
	trimmed := len(entries) != len(lines) && len(data) > 0
	if len(entries) > historyKeep {
		entries = entries[len(entries)-historyKeep:]
		trimmed = true
	}
	if trimmed {
		var b bytes.Buffer
		for _, e := range entries {
			b.WriteString(e + "\n")
		}
		if err := atomicfile.Write(path, b.Bytes(), 0o600); err != nil {
			return h, entries, err
		}
	}
	if len(entries) > 0 {
		h.last = entries[len(entries)-1]
	}
	return h, entries, nil
}

// add appends entries to the file, skipping an immediate repeat.
func (h *history) add(entries []string) error {
	var b bytes.Buffer
	for _, e := range entries {
		if e == h.last {
			continue
		}
		h.last = e
		b.WriteString(e + "\n")
	}
	if b.Len() == 0 {
		return nil
	}
	return atomicfile.Append(h.path, b.Bytes())
}

// historyEntries turns a chunk into history entries: none for a chunk
// that starts with a space (a way to keep a line out of the history), one
// for a single line, and for several lines either one line joined with
// spaces (when that means the same code) or one entry per line.
func historyEntries(chunk string) []string {
	if strings.TrimSpace(chunk) == "" || strings.HasPrefix(chunk, " ") {
		return nil
	}
	lines := strings.Split(chunk, "\n")
	if len(lines) == 1 {
		return lines
	}
	joined := strings.Join(lines, " ")
	// A comment would swallow the lines after it, a long string would
	// change its text.
	if !strings.Contains(chunk, "--") && !strings.Contains(chunk, "[[") && !strings.Contains(chunk, "[=") &&
		parses(joined) == parses(chunk) && len(joined) <= historyLineMax {
		return []string{joined}
	}
	var out []string
	for _, l := range lines {
		if strings.TrimSpace(l) != "" && len(l) <= historyLineMax {
			out = append(out, l)
		}
	}
	return out
}
