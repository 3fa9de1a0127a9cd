package streammany

import (
	"fmt"
	"io"
	"os"
	"sort"
	"time"
	"ttftlab/internal/interval"

	"golang.org/x/sys/unix"
)

// progressLine is stream_many's live status on a terminal's standard
// error: done, in flight, errors, p50 TTFT so far.
type progressLine struct {
	w     io.Writer
	shown bool
}

func (m *many) tick(elapsed time.Duration, inFlight int) {
	p := &m.progress
	if p.w == nil {
		f, ok := m.h.Stderr.(*os.File)
		if !ok || !isTerminal(f) {
			return
		}
		p.w = f
	}
	errs := 0
	var ttft []float64
	for _, d := range m.rows {
		if d.ErrorKind != nil {
			errs++
		}
		if d.TTFTMs != nil {
			ttft = append(ttft, *d.TTFTMs)
		}
	}
	p50 := "-"
	if len(ttft) > 0 {
		sort.Float64s(ttft)
		p50 = fmt.Sprintf("%.1f ms", interval.PercentileOf(ttft, 50)) // the table's rule
	}
	fmt.Fprintf(p.w, "\r\x1b[K%5.1f s: %d done, %d in flight, %d errors, p50 ttft %s", elapsed.Seconds(), len(m.rows), inFlight, errs, p50)
	p.shown = true
}

// end clears the status line.
func (p *progressLine) end() {
	if p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
}

func isTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}
