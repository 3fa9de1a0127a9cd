// Package atomicfile writes result files so that a reader (or a crash) never
// sees half of one: the data goes to a temporary file in the same folder,
// is flushed to disk, and only then renamed over the target.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// Write replaces path with data in one step. Readers see either the previous
// file (or none) or the complete new one, also if the process dies midway.
//
// perm is applied to the new file as given (the umask does not reduce it).
// The temporary file lives next to path (rename is only atomic within one
// file system) and is removed on every failure.
func Write(path string, data []byte, perm os.FileMode) error {
	return replace(path, perm, func(f *os.File) error {
		_, err := f.Write(data)
		return err
	})
}

// replace writes a temporary file next to path with fill, flushes it to
// disk and renames it over path. On any failure the previous file (or none)
// stays and the temporary file is removed.
func replace(path string, perm os.FileMode, fill func(f *os.File) error) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("cannot create a temporary file in %s to write %s: %w%s", dir, path, err, hint(err, dir))
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err = fill(f); err == nil {
		err = finish(f, perm)
	}
	if err != nil {
		return fmt.Errorf("writing %s (via %s): %w%s", path, tmp, err, hint(err, dir))
	}
	if err = os.Rename(tmp, path); err != nil {
		return fmt.Errorf("cannot rename %s to %s: %w%s", tmp, path, err, hint(err, dir))
	}
	syncDir(dir)
	return nil
}

// finish sets the mode, flushes and closes a fully written temporary file.
// The flush comes before the rename: otherwise a crash could leave the new
// name pointing at a file whose blocks never reached the disk.
func finish(f *os.File, perm os.FileMode) error {
	if err := f.Chmod(perm); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	return f.Close()
}

// syncDir flushes the folder entry so the rename itself survives a power
// loss. Some file systems refuse to sync a folder; the data is already
// safe then, so failures are ignored.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	d.Sync()
	d.Close()
}

// hint turns the common causes into something the user can act on.
func hint(err error, dir string) string {
	switch {
	case errors.Is(err, fs.ErrPermission):
		return fmt.Sprintf(" (check that %s is writable by this user)", dir)
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Sprintf(" (check that the folder %s exists)", dir)
	case errors.Is(err, syscall.ENOSPC):
		return " (the disk is full: free some space or write elsewhere)"
	case errors.Is(err, syscall.EROFS):
		return " (the file system is read-only: write elsewhere)"
	case errors.Is(err, syscall.EDQUOT):
		return " (disk quota exceeded: free some space or write elsewhere)"
	}
	return ""
}
