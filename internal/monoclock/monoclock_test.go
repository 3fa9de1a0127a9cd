package monoclock

import (
	"testing"
	"time"
)

func TestNowAdvances(t *testing.T) {
	a := Now()
	time.Sleep(2 * time.Millisecond)
	if b := Now(); b-a < int64(2*time.Millisecond) {
		t.Fatalf("CLOCK_MONOTONIC advanced %d ns over a 2 ms sleep", b-a)
	}
}

// Now reads the clock the system call reads: every Now between two
// system-call reads lies between them.
func TestNowIsTheSystemClock(t *testing.T) {
	for range 1000 {
		lo := Sys()
		got := Now()
		hi := Sys()
		if got < lo || got > hi {
			t.Fatalf("Now %d outside the system calls' [%d, %d]", got, lo, hi)
		}
	}
}

// A time.Now read between two CLOCK_MONOTONIC reads must map between them,
// give or take the mapping's stated error. (How small that error is on a
// machine is a benchmark's question, not a test's: a busy machine may
// widen every bracket.)
func TestMappingBracketedByDirectReads(t *testing.T) {
	m := NewMapping()
	if m.ErrNs < 0 {
		t.Fatalf("mapping error %d ns: no bracket was taken", m.ErrNs)
	}
	for range 100 {
		lo := Now()
		got := m.Mono(time.Now())
		hi := Now()
		if got < lo-m.ErrNs || got > hi+m.ErrNs {
			t.Fatalf("mapped %d outside [%d, %d] ± %d ns", got, lo, hi, m.ErrNs)
		}
	}
}

// A CLOCK_REALTIME read between two CLOCK_MONOTONIC reads maps between
// them, give or take the mapping's stated error.
func TestFromRealtimeBracketed(t *testing.T) {
	m := NewMapping()
	for range 100 {
		lo := Now()
		got := m.FromRealtime(time.Now().UnixNano())
		hi := Now()
		if got < lo-m.ErrNs || got > hi+m.ErrNs {
			t.Fatalf("mapped %d outside [%d, %d] ± %d ns", got, lo, hi, m.ErrNs)
		}
	}
}

func BenchmarkNow(b *testing.B) {
	for b.Loop() {
		Now()
	}
}

func BenchmarkSys(b *testing.B) {
	for b.Loop() {
		Sys()
	}
}
