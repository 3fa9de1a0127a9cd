package pocketsphinx

import (
	"os"
	"path/filepath"
	"testing"
)

// TestVersion: the installed wrapper's answer to --version is the
// engine's name; another program's is not taken for it.
func TestVersion(t *testing.T) {
	dir := t.TempDir()
	for answer, want := range map[string]string{"pocketsphinx 5.1.1": "pocketsphinx 5.1.1", "usage: pocketsphinx [options]": "pocketsphinx"} {
		bin := filepath.Join(dir, "pocketsphinx")
		os.WriteFile(bin, []byte("#!/bin/sh\necho '"+answer+"'\n"), 0o755)
		if v := Version(bin); v != want {
			t.Errorf("answering %q: Version %q, want %q", answer, v, want)
		}
	}
}
