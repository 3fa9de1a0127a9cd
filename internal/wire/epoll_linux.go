package wire

import (
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// sysEpollPwait2 is epoll_pwait2 (Linux 5.11), the same number on every
// architecture since the system call tables were unified.
const sysEpollPwait2 = 441

// noPwait2 is set once the kernel turned epoll_pwait2 down.
var noPwait2 atomic.Bool

// epollWait waits for events for at most timeout (negative: no limit).
// epoll_pwait2 takes the timeout in nanoseconds, which deferred hand-offs
// of a fraction of a millisecond need; older kernels get epoll_wait,
// rounded up to whole milliseconds.
func epollWait(epfd int, events []unix.EpollEvent, timeout time.Duration) (int, error) {
	if !noPwait2.Load() {
		var ts *unix.Timespec
		if timeout >= 0 {
			t := unix.NsecToTimespec(int64(timeout))
			ts = &t
		}
		n, _, e := unix.Syscall6(sysEpollPwait2, uintptr(epfd), uintptr(unsafe.Pointer(&events[0])),
			uintptr(len(events)), uintptr(unsafe.Pointer(ts)), 0, 0)
		if e != unix.ENOSYS {
			if e != 0 {
				return 0, e
			}
			return int(n), nil
		}
		noPwait2.Store(true)
	}
	ms := -1
	if timeout >= 0 {
		ms = int((timeout + time.Millisecond - 1) / time.Millisecond)
	}
	return unix.EpollWait(epfd, events, ms)
}
