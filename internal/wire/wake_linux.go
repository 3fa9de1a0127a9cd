package wire

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// eventWake is how a reader thread of a stream's own (ModeThread) wakes
// the caller's goroutine: an eventfd that the goroutine waits on in Go's
// netpoller. (The poller's streams share one eventfd, the dispatcher's.) Readying the
// goroutine directly from the reader (a channel send) would leave it in
// the run queue of the reader's P, which the reader then takes into
// epoll_wait or recvmsg; Go's sysmon thread must then take that P back
// before the goroutine runs, and does so by waking every 20 µs for a
// while, for every read: on a slow stream that cost more CPU than the
// reading. Through the eventfd, the thread that waits in Go's netpoller is
// woken by the kernel and runs the goroutine itself.
type eventWake struct {
	f  *os.File // Write and Close are safe to race: after Close, Write fails
	rc syscall.RawConn
}

func newEventWake() (*eventWake, error) {
	_, f, rc, err := newEventfd("handoff")
	if err != nil {
		return nil, err
	}
	return &eventWake{f: f, rc: rc}, nil
}

// newEventfd is a non-blocking eventfd as a file of Go's netpoller (so a
// goroutine can wait on it there), with its raw descriptor.
func newEventfd(name string) (fd int, f *os.File, rc syscall.RawConn, err error) {
	fd, err = unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		return 0, nil, nil, err
	}
	f = os.NewFile(uintptr(fd), name)
	if rc, err = f.SyscallConn(); err != nil {
		f.Close()
		return 0, nil, nil, err
	}
	return fd, f, rc, nil
}

var eventOne = []byte{1, 0, 0, 0, 0, 0, 0, 0} // 1 as the eventfd's native-endian counter (little-endian hosts)

func (w *eventWake) wake() { w.f.Write(eventOne) }

// wait returns once wake has been called (since the last wait).
func (w *eventWake) wait() {
	var b [8]byte
	w.rc.Read(func(fd uintptr) bool {
		_, err := unix.Read(int(fd), b[:])
		return err != unix.EAGAIN
	})
}

func (w *eventWake) close() { w.f.Close() }
