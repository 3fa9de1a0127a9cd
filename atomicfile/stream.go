package atomicfile

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// WriteStream is Write for output too large to hold in memory: fill writes
// the content, and path is replaced only when fill and the flush to disk
// succeed. On any failure the previous file (or none) stays and the
// temporary file is removed.
func WriteStream(path string, perm os.FileMode, fill func(w io.Writer) error) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("atomicfile: cannot create a temporary file in %s to write %s: %w%s", dir, path, err, hint(err, dir))
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	bw := bufio.NewWriterSize(f, 1<<20)
	if err = fill(bw); err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = finish(f, perm)
	}
	if err != nil {
		return fmt.Errorf("atomicfile: writing %s (via %s): %w%s", path, tmp, err, hint(err, dir))
	}
	if err = os.Rename(tmp, path); err != nil {
		return fmt.Errorf("atomicfile: cannot rename %s to %s: %w%s", tmp, path, err, hint(err, dir))
	}
	syncDir(dir)
	return nil
}

// finish sets the mode, flushes and closes a fully written temporary file.
func finish(f *os.File, perm os.FileMode) error {
	if err := f.Chmod(perm); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	return f.Close()
}
