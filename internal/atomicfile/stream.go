package atomicfile

import (
	"bufio"
	"io"
	"os"
)

// WriteStream is Write for output too large to hold in memory: fill writes
// the content, and path is replaced only when fill and the flush to disk
// succeed. On any failure the previous file (or none) stays and the
// temporary file is removed.
func WriteStream(path string, perm os.FileMode, fill func(w io.Writer) error) error {
	return replace(path, perm, func(f *os.File) error {
		bw := bufio.NewWriterSize(f, 1<<20)
		if err := fill(bw); err != nil {
			return err
		}
		return bw.Flush()
	})
}
