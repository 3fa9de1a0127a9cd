package wire

import (
	"errors"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// WriteAll writes the request, reading the clock for t0 right before the
// first byte goes to the socket and calling afterT0 once that first write
// has returned.
func (c *Conn) WriteAll(head, body []byte, afterT0 func()) error {
	return c.write([][]byte{head, body}, true, afterT0)
}

// write writes bufs whole; with t0 set it reads the clock for t0 right
// before the first byte goes to the socket and calls afterT0 once that
// first write has returned.
func (c *Conn) write(bufs [][]byte, t0 bool, afterT0 func()) error {
	first := t0
	for len(bufs) > 0 {
		if first {
			c.start.Store(int64(c.sock.clk.Now()))
			c.wrote.Store(true)
		}
		n, e := c.sendmsg(bufs)
		if first {
			first = false
			if afterT0 != nil {
				afterT0()
			}
		}
		switch {
		case e == unix.EAGAIN:
			if err := c.waitWritable(); err != nil {
				return err
			}
			continue
		case e == unix.EINTR:
			continue
		case e != 0:
			return c.sock.writeError(e)
		}
		bufs = advance(bufs, n)
	}
	return nil
}

// advance drops n written bytes from the front of bufs.
func advance(bufs [][]byte, n int) [][]byte {
	for len(bufs) > 0 && n >= len(bufs[0]) {
		n -= len(bufs[0])
		bufs = bufs[1:]
	}
	if len(bufs) > 0 {
		bufs[0] = bufs[0][n:]
	}
	return bufs
}

// sendmsg writes bufs in one system call, without SIGPIPE.
func (c *Conn) sendmsg(bufs [][]byte) (int, syscall.Errno) {
	var iov [2]unix.Iovec
	k := 0
	for _, b := range bufs {
		if len(b) > 0 && k < len(iov) {
			iov[k].Base = &b[0]
			iov[k].SetLen(len(b))
			k++
		}
	}
	if k == 0 {
		return 0, 0
	}
	var hdr unix.Msghdr
	hdr.Iov = &iov[0]
	hdr.SetIovlen(k)
	n, _, e := unix.Syscall(unix.SYS_SENDMSG, uintptr(c.sock.fd), uintptr(unsafe.Pointer(&hdr)), unix.MSG_NOSIGNAL)
	return int(n), e
}

// ErrWriteClosed says the request could not be written because the
// connection was shut down meanwhile.
var ErrWriteClosed = errors.New("the connection was closed while the request was written")

// waitWritable waits until the socket takes more bytes (or fails).
func (c *Conn) waitWritable() error {
	fds := []unix.PollFd{{Fd: int32(c.sock.fd), Events: unix.POLLOUT}}
	for {
		_, err := unix.Poll(fds, -1)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		if fds[0].Revents&(unix.POLLHUP|unix.POLLERR|unix.POLLNVAL) != 0 && fds[0].Revents&unix.POLLOUT == 0 {
			return ErrWriteClosed
		}
		return nil
	}
}
