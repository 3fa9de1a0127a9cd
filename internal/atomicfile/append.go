package atomicfile

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Append adds data at the end of path (created with mode 0644 if missing)
// and flushes it to disk before returning. It is meant for JSONL logs where
// every call adds whole lines.
//
// A write that fails (the disk is full) is undone: the file is cut back to
// its size before the call, so it never ends in half a line. Only a crash
// during the call can still leave one; a reader that drops an unterminated
// last line then sees whole records.
func Append(path string, data []byte) error {
	dir := filepath.Dir(path)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("cannot open %s for appending: %w%s", path, err, hint(err, dir))
	}
	size, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		f.Close()
		return fmt.Errorf("appending to %s: %w", path, err)
	}
	if _, err := write(f, data); err != nil {
		undo(f, size)
		return fmt.Errorf("appending to %s: %w%s", path, err, hint(err, dir))
	}
	if err := f.Sync(); err != nil {
		undo(f, size)
		return fmt.Errorf("flushing %s: %w%s", path, err, hint(err, dir))
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("closing %s: %w%s", path, err, hint(err, dir))
	}
	return nil
}

// write is (*os.File).Write; tests replace it to fail half-way.
var write = (*os.File).Write

// undo cuts the file back to size and closes it; the write's own error is
// the one worth reporting.
func undo(f *os.File, size int64) {
	f.Truncate(size)
	f.Close()
}
