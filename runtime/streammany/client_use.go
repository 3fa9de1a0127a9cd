package streammany

import (
	goruntime "runtime"
	"time"

	"ttftlab/internal/artifact"
	"ttftlab/internal/stream"
)

// usage is what the process has cost so far: its CPU, and its reader
// threads' CPU and wait for a CPU (waitOK false where the kernel does not
// say).
type usage struct {
	cpu, readerCPU, readerWait time.Duration
	readerRuns                 int64
	waitOK                     bool
}

func clientUsage() usage {
	u := usage{cpu: stream.ProcessCPU(), readerCPU: stream.ReaderCPU()}
	u.readerWait, u.readerRuns, u.waitOK = stream.ReaderWait()
	return u
}

// clientUse is the summary's client: the cost between a and b over
// elapsed; nil when the process's CPU could not be read.
func clientUse(a, b usage, elapsed time.Duration) *artifact.ClientUse {
	if b.cpu <= 0 {
		return nil
	}
	c := &artifact.ClientUse{Cores: goruntime.NumCPU(), CPUMs: msOf(b.cpu - a.cpu), ReaderCPUMs: msOf(b.readerCPU - a.readerCPU)}
	if elapsed > 0 {
		c.Busy = float64(b.cpu-a.cpu) / (float64(elapsed) * float64(c.Cores))
	}
	if a.waitOK && b.waitOK {
		c.ReaderWaitMs = artifact.Num(msOf(max(b.readerWait-a.readerWait, 0)))
		c.ReaderRuns = artifact.Num(float64(max(b.readerRuns-a.readerRuns, 0)))
	}
	return c
}
