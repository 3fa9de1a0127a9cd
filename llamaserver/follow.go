package llamaserver

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"
)

// Follow copies what is appended to path to w until ctx ends, like tail -f.
// A truncated log (a new server on the same port) is followed from its start.
func Follow(ctx context.Context, path string, w io.Writer) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("following %s: %w", path, err)
	}
	defer f.Close()
	offset, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return fmt.Errorf("following %s: %w", path, err)
	}
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		if st, err := os.Stat(path); err == nil && st.Size() < offset {
			offset, _ = f.Seek(0, io.SeekStart)
		}
		n, err := io.Copy(w, f)
		offset += n
		if err != nil {
			return fmt.Errorf("following %s: %w", path, err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}
