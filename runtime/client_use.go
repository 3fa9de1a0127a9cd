package runtime

import (
	goruntime "runtime"
	"syscall"
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
	waitOK, cpuOK              bool
}

func clientUsage() usage {
	u := usage{readerCPU: stream.ReaderCPU()}
	u.readerWait, u.readerRuns, u.waitOK = stream.ReaderWait()
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		u.cpu, u.cpuOK = time.Duration(ru.Utime.Nano()+ru.Stime.Nano()), true
	}
	return u
}

// clientUse is the summary's client: the cost between a and b over
// elapsed; nil when the process's CPU could not be read.
func clientUse(a, b usage, elapsed time.Duration) *artifact.ClientUse {
	if !a.cpuOK || !b.cpuOK {
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
