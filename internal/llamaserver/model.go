package llamaserver

import (
	"bytes"
	"fmt"
	"io"
	"os"
)

// CheckModel makes sure path is a readable GGUF file, so a typo fails before
// llama-server spends seconds starting.
func CheckModel(path string) error {
	if path == "" {
		return fmt.Errorf("no model given: pass --model FILE (a .gguf file)")
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
