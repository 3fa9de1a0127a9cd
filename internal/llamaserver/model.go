package llamaserver

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
)

// CheckModel makes sure path is a readable GGUF file, so a typo fails before
// llama-server spends seconds starting.
func CheckModel(path string) error {
	if path == "" {
		return ErrNoModel
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("model %s: %w", path, err)
	}
	defer f.Close()
	magic := make([]byte, 4)
	if _, err := io.ReadFull(f, magic); err != nil {
		return fmt.Errorf("model %s: too short to be a GGUF file: %w", path, err)
	}
	if !bytes.Equal(magic, []byte("GGUF")) {
		return fmt.Errorf("model %s is not a GGUF file (starts with %q, want \"GGUF\")", path, magic)
	}
	return nil
}

// ErrNoModel is CheckModel's error for an empty path.
var ErrNoModel = errors.New("no model file given (a .gguf file)")
