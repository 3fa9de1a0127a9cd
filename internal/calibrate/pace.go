package calibrate

import (
	"runtime"

	"golang.org/x/sys/unix"

	"ttftlab/internal/monoclock"
)

// startPacing pins the calling goroutine to its thread and makes that
// thread's sleeps precise; stop undoes both.
//
// The server sleeps until absolute CLOCK_MONOTONIC times. time.Sleep
// cannot serve: Go rounds sleeps under a millisecond up to one, and 20,000
// chunks/s needs 50 µs gaps. clock_nanosleep with an absolute deadline on
// a thread whose timer slack is 1 ns wakes within some 10-20 µs, without
// spinning a core the clients need.
func startPacing() (stop func()) {
	runtime.LockOSThread()
	unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0) // best effort: without it sleeps are ~50 µs late
	return func() {
		unix.Prctl(unix.PR_SET_TIMERSLACK, 0, 0, 0, 0) // 0 restores the default
		runtime.UnlockOSThread()
	}
}

// sleepUntil returns at or after the CLOCK_MONOTONIC time deadline (ns).
func sleepUntil(deadline int64) {
	ts := unix.NsecToTimespec(deadline)
	for monoclock.Now() < deadline {
		if err := unix.ClockNanosleep(unix.CLOCK_MONOTONIC, unix.TIMER_ABSTIME, &ts, nil); err != nil && err != unix.EINTR {
			return
		}
	}
}
