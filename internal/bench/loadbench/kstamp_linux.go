package main

import (
	"fmt"
	"net"
	"net/url"
	"runtime"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"ttftlab/internal/monoclock"
)

// kstampClients are the least a client that keeps the kernel's receive
// stamps can do: one OS thread, the streams' sockets blocking-connected,
// SO_TIMESTAMPNS on, and then only reads, each read's stamp taken from its
// control message, and the send stamps picked out of the bytes (no HTTP,
// SSE or JSON, nothing kept but the stamps). kstamp-epoll waits in
// epoll_wait and makes one recvmsg per ready socket, as ttftlab's poller
// does; kstamp-uring arms one multishot IORING_OP_RECVMSG per socket on an
// io_uring, its buffers from a provided-buffer ring, and reaps every
// completion one io_uring_enter brings. What they cost per chunk is the
// kernel's receive path with stamps on this machine, the floor under
// ttftlab's figure; their lateness is what any client with kernel stamps
// gets when it spends no more than that.
var kstampClients = map[string]func(rawURL string, streams int) (clientRun, error){
	"kstamp-epoll": func(u string, n int) (clientRun, error) { return runKstamp(u, n, readEpoll) },
	"kstamp-uring": func(u string, n int) (clientRun, error) { return runKstamp(u, n, readUring) },
}

// kstampReader reads every socket until it ends, calling got with each
// read's bytes and its kernel stamp (CLOCK_REALTIME, ns; 0: none).
type kstampReader func(fds []int, got func(b []byte, kernNs int64)) error

func runKstamp(rawURL string, streams int, read kstampReader) (clientRun, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return clientRun{}, err
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	// the kernel stamps in CLOCK_REALTIME, the server in CLOCK_MONOTONIC
	clocks := monoclock.NewMapping()
	var out []string
	cpuBefore := cpuSeconds()
	start := time.Now()
	fds, err := dialStamped(u.Host, streams)
	if err == nil {
		err = read(fds, func(b []byte, kern int64) {
			at := int64(0)
			if kern != 0 {
				at = clocks.FromRealtime(kern)
			}
			out = sendStamps(out, b, at)
		})
	}
	wall := time.Since(start).Seconds()
	cpu := cpuSeconds() - cpuBefore
	for _, fd := range fds {
		unix.Close(fd)
	}
	if err != nil {
		return clientRun{}, err
	}
	return clientRun{lines: out, cpuS: cpu, wallS: wall, heapB: -1}, nil
}

// dialStamped connects streams sockets to host, one after the other, with
// receive stamps on, sends each the request, and makes them non-blocking.
func dialStamped(host string, streams int) (fds []int, err error) {
	ap, err := net.ResolveTCPAddr("tcp4", host)
	if err != nil {
		return nil, err
	}
	sa := &unix.SockaddrInet4{Port: ap.Port}
	copy(sa.Addr[:], ap.IP.To4())
	req := []byte(request(host))
	for range streams {
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			return fds, err
		}
		fds = append(fds, fd)
		if err := unix.Connect(fd, sa); err != nil {
			return fds, err
		}
		if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1); err != nil {
			return fds, err
		}
		if _, err := unix.Write(fd, req); err != nil {
			return fds, err
		}
		if err := unix.SetNonblock(fd, true); err != nil {
			return fds, err
		}
	}
	return fds, nil
}

// stampSpace is the control room a recvmsg needs for SCM_TIMESTAMPNS.
var stampSpace = unix.CmsgSpace(int(unsafe.Sizeof(unix.Timespec{})))

// kernStamp is the SCM_TIMESTAMPNS in a read's control messages, the only
// one these sockets ask for; 0 without it.
func kernStamp(oob []byte) int64 {
	if len(oob) < stampSpace {
		return 0
	}
	h := (*unix.Cmsghdr)(unsafe.Pointer(&oob[0]))
	if h.Level != unix.SOL_SOCKET || h.Type != unix.SCM_TIMESTAMPNS {
		return 0
	}
	return (*unix.Timespec)(unsafe.Pointer(&oob[unix.CmsgLen(0)])).Nano()
}

// readEpoll waits in epoll_wait (level-triggered) and reads each ready
// socket once per wake.
func readEpoll(fds []int, got func([]byte, int64)) error {
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return err
	}
	defer unix.Close(ep)
	for i, fd := range fds {
		if err := unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, fd, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(i)}); err != nil {
			return err
		}
	}
	buf := make([]byte, 64<<10)
	oob := make([]byte, stampSpace)
	events := make([]unix.EpollEvent, 256)
	var hdr unix.Msghdr
	var iov unix.Iovec
	for open := len(fds); open > 0; {
		n, err := unix.EpollWait(ep, events, -1)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		for _, ev := range events[:n] {
			fd := fds[ev.Fd]
			iov.Base = &buf[0]
			iov.SetLen(len(buf))
			hdr.Iov, hdr.Iovlen = &iov, 1
			hdr.Control = &oob[0]
			hdr.SetControllen(len(oob))
			r, _, e := unix.RawSyscall(unix.SYS_RECVMSG, uintptr(fd), uintptr(unsafe.Pointer(&hdr)), unix.MSG_DONTWAIT)
			switch {
			case e == unix.EAGAIN:
			case e != 0:
				return fmt.Errorf("recvmsg: %w", e)
			case r == 0: // the stream ended
				unix.EpollCtl(ep, unix.EPOLL_CTL_DEL, fd, nil)
				open--
			default:
				got(buf[:r], kernStamp(oob[:hdr.Controllen]))
			}
		}
	}
	return nil
}

// readUring arms a multishot recvmsg on every socket and reaps what each
// io_uring_enter brings. A multishot receive the kernel ends while data
// still flows (its buffers ran out) is armed again.
func readUring(fds []int, got func([]byte, int64)) error {
	r, err := newURing(4096)
	if err != nil {
		return err
	}
	defer r.close()
	const bufSize, group = 2048, 1
	bufs, err := r.provideBuffers(8192, bufSize, group)
	if err != nil {
		return err
	}
	// the template a multishot recvmsg reads once: no name, room for the
	// stamp
	var tmpl unix.Msghdr
	tmpl.SetControllen(stampSpace)
	arm := func(i int) error {
		s, err := r.sqe()
		if err != nil {
			return err
		}
		*s = uringSQE{opcode: opRecvMsg, flags: sqeBufferSelect, ioprio: recvMultishot, fd: int32(fds[i]),
			addr: uint64(uintptr(unsafe.Pointer(&tmpl))), len: 1, bufGroup: group, userData: uint64(i)}
		return nil
	}
	for i := range fds {
		if err := arm(i); err != nil {
			return err
		}
	}
	open := len(fds)
	for open > 0 {
		if err := r.enter(1); err != nil {
			return err
		}
		for c := range r.completions() {
			i := int(c.userData)
			more := c.flags&cqeMore != 0
			data := false
			if c.flags&cqeBuffer != 0 {
				bid := uint16(c.flags >> 16)
				if c.res > 0 {
					b := bufs.buf(bid)
					name, ctl, pay := recvmsgOut(b)
					if pay > 0 {
						data = true
						got(b[16+name+ctl:16+name+ctl+pay], kernStamp(b[16+name:16+name+ctl]))
					}
				}
				bufs.give(bid)
			}
			switch {
			case more:
			case c.res == -int32(unix.ENOBUFS) || data:
				if err := arm(i); err != nil {
					return err
				}
			case c.res < 0:
				return fmt.Errorf("recvmsg: %w", unix.Errno(-c.res))
			default: // the stream ended
				open--
			}
		}
		bufs.publish()
	}
	return nil
}

// recvmsgOut reads the header a multishot recvmsg puts before each
// buffer's name, control messages and payload (struct
// io_uring_recvmsg_out): their lengths.
func recvmsgOut(b []byte) (name, ctl, payload int) {
	h := (*[4]uint32)(unsafe.Pointer(&b[0]))
	return int(h[0]), int(h[1]), int(h[2])
}
