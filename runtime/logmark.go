package runtime

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// A log mark says where the server log stood at a moment: the file (its
// inode, so a log replaced by a new server start is told apart) and its
// size. log_contains searches only what was written after a mark, so
// evidence of an earlier run never counts for this one.
type logMark struct {
	offset int64
	inode  uint64
}

// markLog reads the log's current mark; a missing log is at offset 0.
func markLog(path string) (logMark, error) {
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return logMark{}, nil
	}
	if err != nil {
		return logMark{}, err
	}
	return logMark{offset: st.Size(), inode: inodeOf(st)}, nil
}

func inodeOf(st fs.FileInfo) uint64 {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return s.Ino
	}
	return 0
}

// logSince returns what the log holds after mark: from the mark's offset
// when it is the same file, all of it when the log was replaced since.
func logSince(path string, mark logMark) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if ino := inodeOf(st); mark.inode != 0 && ino != mark.inode || st.Size() < mark.offset {
		mark.offset = 0 // a new log: all of it was written after the mark
	}
	if _, err := f.Seek(mark.offset, io.SeekStart); err != nil {
		return nil, err
	}
	return io.ReadAll(f)
}
