package llamaserver

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"
)

// Follow copies what path holds from offset on, and what is appended later,
// to w until ctx ends, like tail -f. Starting at the offset where the caller
// stopped reading loses no line written in between. A truncated log (a new
// server on the same port) is followed from its start.
func Follow(ctx context.Context, path string, offset int64, w io.Writer) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("following %s: %w", path, err)
	}
	defer f.Close()
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
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
