package wire

import (
	"net"
	"os"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// sock is the socket of one raw-path request and what a read of it needs;
// only the one reading touches it.
type sock struct {
	fd     int
	clk    Clock
	kernel bool // SO_TIMESTAMPNS is on
	local  net.Addr
	remote net.Addr
	hdr    unix.Msghdr
	iov    unix.Iovec
	oob    [64]byte // room for one SCM_TIMESTAMPNS message
}

// recv reads once into p. The clock is read right after recvmsg returns,
// before anything else. With blocking false the call does not wait (the
// poller knows the socket is readable) and holds on to its P, since a
// non-blocking recvmsg cannot stall the scheduler.
func (s *sock) recv(p []byte, blocking bool, src Source) (int, Stamp, syscall.Errno) {
	s.iov.Base = &p[0]
	s.iov.SetLen(len(p))
	s.hdr.Iov, s.hdr.Iovlen = &s.iov, 1
	s.hdr.Control = &s.oob[0]
	s.hdr.SetControllen(len(s.oob))
	var n uintptr
	var e syscall.Errno
	if blocking {
		n, _, e = unix.Syscall(unix.SYS_RECVMSG, uintptr(s.fd), uintptr(unsafe.Pointer(&s.hdr)), 0)
	} else {
		n, _, e = unix.RawSyscall(unix.SYS_RECVMSG, uintptr(s.fd), uintptr(unsafe.Pointer(&s.hdr)), unix.MSG_DONTWAIT)
	}
	now := time.Now()
	st := ReadStamp(now.Sub(s.clk.Base), src)
	if e != 0 {
		return 0, st, e
	}
	if s.kernel && s.hdr.Controllen > 0 {
		s.placeKernelStamp(&st, now)
	}
	return int(n), st, 0
}

// placeKernelStamp puts the kernel's receive time of the read on the
// request's clock. The kernel stamps with CLOCK_REALTIME; the read's own
// time.Now carries both clocks, so the kernel stamp's age (wall time of the
// read minus the kernel's wall time) is subtracted from the read's
// monotonic time. A wall-clock step between the two would show as an age
// below zero or beyond the request's life; such stamps are refused and the
// read keeps its own.
func (s *sock) placeKernelStamp(st *Stamp, now time.Time) {
	kern, ok := kernelStamp(s.oob[:s.hdr.Controllen])
	if !ok {
		return
	}
	age := time.Duration(now.UnixNano() - kern)
	if age < -MaxClockSkew || age > st.Read {
		return
	}
	st.At, st.Src = st.Read-max(age, 0), SourceKernel
}

// kernelStamp finds SCM_TIMESTAMPNS in the control messages of a recvmsg
// and returns it in nanoseconds of CLOCK_REALTIME, without allocating.
func kernelStamp(oob []byte) (int64, bool) {
	for len(oob) >= unix.SizeofCmsghdr {
		h := (*unix.Cmsghdr)(unsafe.Pointer(&oob[0]))
		if h.Len < unix.SizeofCmsghdr || uint64(h.Len) > uint64(len(oob)) {
			return 0, false
		}
		if h.Level == unix.SOL_SOCKET && h.Type == unix.SCM_TIMESTAMPNS &&
			int(h.Len) >= unix.CmsgLen(int(unsafe.Sizeof(unix.Timespec{}))) {
			ts := (*unix.Timespec)(unsafe.Pointer(&oob[unix.CmsgLen(0)]))
			return ts.Nano(), true
		}
		next := unix.CmsgSpace(int(h.Len) - unix.CmsgLen(0))
		if next <= 0 || next > len(oob) {
			return 0, false
		}
		oob = oob[next:]
	}
	return 0, false
}

// readError words a failed read as the net package would.
func (s *sock) readError(e syscall.Errno) error {
	return &net.OpError{Op: "read", Net: "tcp", Source: s.local, Addr: s.remote, Err: os.NewSyscallError("read", e)}
}

// writeError words a failed write as the net package would.
func (s *sock) writeError(e syscall.Errno) error {
	return &net.OpError{Op: "write", Net: "tcp", Source: s.local, Addr: s.remote, Err: os.NewSyscallError("write", e)}
}
