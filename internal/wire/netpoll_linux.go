package wire

import (
	"io"
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// NetpollConn is a TCP connection left on Go's netpoller, for a library
// that reads it itself (a WebSocket's), whose reads are stamped as the
// raw-socket client stamps its own: each Read is one recvmsg, the clock
// read right after it returned, and with KernelStamps the kernel's
// receive time of the last segment it copied (SO_TIMESTAMPNS). A read
// that finds no bytes waits in the netpoller, so a read's own time is
// SourceNetpoll; its kernel stamp does not depend on when the goroutine
// got round to the read.
type NetpollConn struct {
	*net.TCPConn
	raw  syscall.RawConn
	sock sock
	last Stamp
}

// NewNetpollConn stamps c's reads on clk; kernel asks for the kernel's
// receive stamps (best effort: without them each read keeps its own).
func NewNetpollConn(c *net.TCPConn, clk Clock, kernel bool) (*NetpollConn, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return nil, err
	}
	nc := &NetpollConn{TCPConn: c, raw: raw,
		sock: sock{fd: -1, clk: clk, local: c.LocalAddr(), remote: c.RemoteAddr()}}
	if kernel {
		primeKernelStamps()
		var serr error
		if err := raw.Control(func(fd uintptr) {
			serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1)
		}); err == nil && serr == nil {
			nc.sock.kernel = true
		}
	}
	return nc, nil
}

// Read reads once and keeps the read's stamp for Last.
func (c *NetpollConn) Read(p []byte) (int, error) {
	n, st, err := c.ReadStamped(p)
	if n > 0 {
		c.last = st
	}
	return n, err
}

// Last is the stamp of the last read that brought bytes. Only the
// reading goroutine may call it.
func (c *NetpollConn) Last() Stamp { return c.last }

// ReadStamped reads once into p and returns the read's stamp.
func (c *NetpollConn) ReadStamped(p []byte) (int, Stamp, error) {
	if len(p) == 0 {
		return 0, Stamp{}, nil
	}
	var (
		n  int
		st Stamp
		e  syscall.Errno
	)
	err := c.raw.Read(func(fd uintptr) bool {
		c.sock.fd = int(fd)
		for {
			n, st, e = c.sock.recv(p, false, SourceNetpoll)
			if e != unix.EINTR {
				return e != unix.EAGAIN
			}
		}
	})
	switch {
	case err != nil:
		return 0, st, err
	case e != 0:
		return 0, st, c.sock.readError(e)
	case n == 0:
		return 0, st, io.EOF
	}
	return n, st, nil
}
