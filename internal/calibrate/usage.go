package calibrate

import (
	"runtime/metrics"
	"syscall"

	"ttftlab/internal/stream"
)

// usage is a snapshot of the process's costs. runtime/metrics is read
// rather than runtime.ReadMemStats, which stops the world and would stall
// the very reader goroutine being measured.
type usage struct {
	cpuNs      int64  // user + system CPU time of the process
	readerNs   int64  // of which the stream package's reader threads
	allocs     uint64 // heap allocations so far, tiny ones included
	allocBytes uint64
	heapLive   uint64 // live heap as marked by the last GC
	heapInUse  uint64 // heap objects now, garbage not yet collected included
}

var usageMetrics = []string{
	"/gc/heap/allocs:objects",
	"/gc/heap/tiny/allocs:objects",
	"/gc/heap/allocs:bytes",
	"/gc/heap/live:bytes",
	"/memory/classes/heap/objects:bytes",
}

// usageReader reuses its sample slice, so a snapshot allocates nothing.
type usageReader struct{ samples []metrics.Sample }

func newUsageReader() *usageReader {
	s := make([]metrics.Sample, len(usageMetrics))
	for i, name := range usageMetrics {
		s[i].Name = name
	}
	return &usageReader{samples: s}
}

func (r *usageReader) read() usage {
	metrics.Read(r.samples)
	v := func(i int) uint64 {
		if r.samples[i].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		return r.samples[i].Value.Uint64()
	}
	return usage{cpuNs: int64(stream.ProcessCPU()), readerNs: int64(stream.ReaderCPU()), allocs: v(0) + v(1), allocBytes: v(2), heapLive: v(3), heapInUse: v(4)}
}

// peakRSSBytes is the process's resident-set high-water mark.
func peakRSSBytes() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Maxrss * 1024
}
