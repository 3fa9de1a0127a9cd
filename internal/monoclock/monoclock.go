// Package monoclock reads CLOCK_MONOTONIC, the clock every process on the
// machine shares, and places Go's own monotonic time readings on it, so
// stamps taken by different programs (a server, ttftlab, a Python client)
// can be subtracted from one another.
package monoclock

import (
	"time"
	_ "unsafe" // for go:linkname

	"golang.org/x/sys/unix"
)

// Now returns CLOCK_MONOTONIC in nanoseconds, read where time.Now reads
// it: Go's runtime clock, the vDSO's clock_gettime(CLOCK_MONOTONIC) on
// Linux, tens of nanoseconds. A system call (Sys) costs a microsecond on a
// virtual machine with the kernel's mitigations, and it reads the clock in
// the middle of that: a server that stamps a chunk with it before writing
// the chunk spends the system call's way out between the two.
func Now() int64 { return nanotime() }

// nanotime is Go's runtime clock: CLOCK_MONOTONIC in nanoseconds on Linux,
// unshifted (time.Now's monotonic reading is it less the process's start).
// The runtime keeps this name for packages that link to it (go.dev/issue/67401).
//
//go:linkname nanotime runtime.nanotime
func nanotime() int64

// Sys returns CLOCK_MONOTONIC in nanoseconds by the clock_gettime system
// call: the reference Now is held to.
func Sys() int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		panic("monoclock: clock_gettime(CLOCK_MONOTONIC) failed: " + err.Error())
	}
	return ts.Nano()
}

// Mapping places instants read with time.Now on CLOCK_MONOTONIC. Go reads
// that same clock for its monotonic readings but subtracts a private
// start value, so the two differ by a constant that Mapping measures.
type Mapping struct {
	base     time.Time
	baseMono int64 // base on CLOCK_MONOTONIC
	// ErrNs bounds the mapping's error: half the narrowest window in
	// which a CLOCK_MONOTONIC read was bracketed by two time.Now reads.
	ErrNs int64
}

// samples is how many bracketed reads NewMapping takes; the narrowest
// wins, so a preemption during one of them does not matter.
const samples = 64

// NewMapping measures the offset between time.Now's monotonic readings and
// CLOCK_MONOTONIC.
func NewMapping() Mapping {
	m := Mapping{ErrNs: -1}
	for range samples {
		before := time.Now()
		mono := Now()
		after := time.Now()
		width := after.Sub(before).Nanoseconds()
		if m.ErrNs < 0 || width < 2*m.ErrNs {
			// The read happened somewhere in [before, after]: the middle
			// is off by at most half the width.
			m.base = before.Add(time.Duration(width / 2))
			m.baseMono = mono
			m.ErrNs = (width + 1) / 2
		}
	}
	return m
}

// Mono returns t on CLOCK_MONOTONIC in nanoseconds. t must carry a
// monotonic reading (come from time.Now in this process).
func (m Mapping) Mono(t time.Time) int64 {
	return m.baseMono + t.Sub(m.base).Nanoseconds()
}

// FromRealtime returns a CLOCK_REALTIME instant (ns since the Unix epoch,
// as the kernel stamps a received packet) on CLOCK_MONOTONIC, through the
// wall-clock reading the mapping's time.Now carried. A step of the wall
// clock since the mapping was made moves the result by as much.
func (m Mapping) FromRealtime(ns int64) int64 {
	return m.baseMono + ns - m.base.UnixNano()
}
