package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
)

// Append adds data at the end of path (created with mode 0644 if missing)
// and flushes it to disk before returning. It is meant for JSONL logs where
// every call adds whole lines.
//
// Append is not atomic the way Write is: a crash during the call can leave
// a partial last line. Earlier, completed calls are on disk, so a reader
// that drops an unterminated last line sees only whole records.
func Append(path string, data []byte) error {
	dir := filepath.Dir(path)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("atomicfile: cannot open %s for appending: %w%s", path, err, hint(err, dir))
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("atomicfile: appending to %s: %w%s", path, err, hint(err, dir))
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("atomicfile: flushing %s: %w%s", path, err, hint(err, dir))
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("atomicfile: closing %s: %w%s", path, err, hint(err, dir))
	}
	return nil
}
