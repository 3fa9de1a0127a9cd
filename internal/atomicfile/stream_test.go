package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteStream(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "model.bin")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	err := WriteStream(path, 0o644, func(w io.Writer) error {
		_, err := io.WriteString(w, strings.Repeat("x", 3<<20))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	st, _ := os.Stat(path)
	if len(data) != 3<<20 || st.Mode().Perm() != 0o644 {
		t.Errorf("got %d bytes, mode %v; want %d bytes, 0644", len(data), st.Mode().Perm(), 3<<20)
	}

	boom := errors.New("generator failed")
	err = WriteStream(path, 0o644, func(w io.Writer) error {
		io.WriteString(w, "partial")
		return boom
	})
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), path) {
		t.Errorf("error %v, want it to wrap the fill error and name %s", err, path)
	}
	if data, _ := os.ReadFile(path); len(data) != 3<<20 {
		t.Errorf("a failed write changed the file: %d bytes", len(data))
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("temporary file left behind: %v", entries)
	}
}
