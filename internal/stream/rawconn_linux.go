package stream

import (
	"context"
	"errors"
	"io"
	"math"
	"net"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// rawConn is the connection of one raw-path request: a socket of its own
// (outside Go's netpoller), read by the poller thread or by a thread of
// its own, whose reads go through a handoff to the caller's goroutine.
type rawConn struct {
	sock sock
	h    *handoff
	last *atomic.Int64 // the last read's time, for the idle limit

	// mu is held by whoever reads or shuts down the socket, so nothing
	// reads it once it is closed; the descriptor itself is closed only by
	// release, when no reader is left.
	mu       sync.Mutex
	closed   bool // shut down by the closer
	ended    bool // the reader saw EOF or an error
	watching bool // registered with the poller's epoll set
	a        arena

	// Poller mode.
	p        *poller
	id       uint32
	detached atomic.Bool
	handOff  time.Duration // see Request.HandOff; negative: wake at once
	// lastWake and wakeAt belong to the poller thread.
	lastWake, wakeAt time.Duration

	// Thread mode: the reader thread's end, and where it waits when
	// paused at maxBacklog.
	threadDone chan struct{}
	room       chan struct{}
	ev         *eventWake

	start atomic.Int64 // t0 since clk.base; valid once wrote is set
	wrote atomic.Bool

	prevAt time.Duration // the last read's arrival time; reader only
}

// order keeps arrival times from going backwards: TCP delivers the bytes
// of a later read after those of an earlier one, but two reads of one
// segment carry the same kernel time, placed on the monotonic clock with
// a few nanoseconds of jitter each.
func (c *rawConn) order(st *stamp) {
	if st.at < c.prevAt {
		st.at = c.prevAt
	}
	c.prevAt = st.at
}

// dialRaw connects with net's dialer (name resolution, timeouts and errors
// as on the net/http path), then takes the socket out of Go's netpoller:
// it duplicates the descriptor and closes net's copy, so readiness wakes
// only the reader chosen here.
func dialRaw(ctx context.Context, addr string, clk clock, kernel bool) (*rawConn, error) {
	conn, err := dialNoDelay(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	sc, err := conn.(*net.TCPConn).SyscallConn()
	if err != nil {
		return nil, err
	}
	fd, derr := -1, error(nil)
	if err := sc.Control(func(f uintptr) { fd, derr = unix.FcntlInt(f, unix.F_DUPFD_CLOEXEC, 0) }); err != nil {
		return nil, err
	}
	if derr != nil {
		return nil, &net.OpError{Op: "dial", Net: "tcp", Addr: conn.RemoteAddr(), Err: derr}
	}
	c := &rawConn{sock: sock{fd: fd, clk: clk, local: conn.LocalAddr(), remote: conn.RemoteAddr()}, h: newHandoff()}
	ev, err := newEventWake()
	if err != nil {
		unix.Close(fd)
		return nil, err
	}
	c.ev, c.h.ev = ev, ev
	// Best effort: without kernel stamps every read keeps its own stamp.
	if kernel {
		primeKernelStamps()
		c.sock.kernel = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1) == nil
	}
	return c, nil
}

// Close shuts the connection down for the closer: the server sees the
// close (and an RST for whatever it sends after it), the reader stops
// reading, and the caller's goroutine is woken with the news.
func (c *rawConn) Close() error {
	c.mu.Lock()
	if !c.closed {
		c.closed = true
		c.unwatch()
		unix.Shutdown(c.sock.fd, unix.SHUT_RDWR)
	}
	c.mu.Unlock()
	c.h.push(readMsg{st: readStamp(c.sock.clk.now(), SourceNone), err: net.ErrClosed})
	c.h.signal()
	return nil
}

// t0 returns when the request's first byte was written, if it was.
func (c *rawConn) t0() (time.Duration, bool) {
	if !c.wrote.Load() {
		return 0, false
	}
	return time.Duration(c.start.Load()), true
}

// startReading starts the reader of the chosen wire.
func (c *rawConn) startReading(w Wire, handOff time.Duration) error {
	c.handOff = handOff
	c.lastWake = math.MinInt64 / 2 // the first read is handed over at once
	if w == WireThread {
		if err := unix.SetNonblock(c.sock.fd, false); err != nil {
			return err
		}
		c.threadDone = make(chan struct{})
		c.h.resume = c.resumeThread
		go c.threadLoop()
		return nil
	}
	c.h.resume = c.resumeWatch
	return attach(c)
}

// release stops the reader and closes the descriptor; the closer must
// already have shut the socket down.
func (c *rawConn) release() {
	if c.threadDone != nil {
		close(c.roomChan())
		<-c.threadDone
	} else if c.p != nil {
		detach(c)
	}
	unix.Close(c.sock.fd)
	c.ev.close()
	c.h.drain()
}

// unwatch removes the socket from the poller's set; c.mu is held.
func (c *rawConn) unwatch() {
	if c.watching {
		c.watching = false
		unix.EpollCtl(c.p.epfd, unix.EPOLL_CTL_DEL, c.sock.fd, nil)
	}
}

// resumeWatch watches the socket again after a pause at maxBacklog.
func (c *rawConn) resumeWatch() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.closed && !c.ended && c.watching {
		c.p.watch(c, unix.EPOLL_CTL_MOD)
	}
}

// readReady reads what the socket has, on the poller thread: every read
// is stamped and queued at once, and the caller's goroutine is woken as
// the hand-off policy says.
func (c *rawConn) readReady(p *poller) {
	c.mu.Lock()
	if c.closed || c.ended || !c.watching {
		c.mu.Unlock()
		return
	}
	parked, ended := false, false
	for range maxReadsPerWake {
		buf := c.a.space(c.h)
		n, st, e := c.sock.recv(buf, false, SourceEpoll)
		if e == unix.EAGAIN || e == unix.EINTR {
			break
		}
		c.order(&st)
		c.last.Store(int64(st.read))
		msg := readMsg{data: c.a.took(n), st: st, err: c.endErr(n, e)}
		var full bool
		parked, full = c.h.push(msg)
		if msg.err != nil {
			c.ended, ended = true, true
			c.unwatch()
			c.a.release(c.h)
			break
		}
		if full {
			p.pause(c)
			break
		}
		if n < len(buf) {
			break
		}
	}
	c.mu.Unlock()
	if parked {
		p.wake(c, ended)
	}
}

// maxReadsPerWake bounds the reads of one socket per poller wake-up, so
// one fast stream cannot hold back the others' reads.
const maxReadsPerWake = 16

// endErr is a read's error: io.EOF for 0 bytes, the read error, or nil.
func (c *rawConn) endErr(n int, e syscall.Errno) error {
	switch {
	case e != 0:
		return c.sock.readError(e)
	case n == 0:
		return io.EOF
	}
	return nil
}

// threadLoop is the reader of WireThread: a locked OS thread blocking in
// recvmsg, woken by the kernel itself. The goroutine exits without
// unlocking, so its thread ends with it.
func (c *rawConn) threadLoop() {
	runtime.LockOSThread()
	defer close(c.threadDone)
	defer readerThread()()
	defer c.a.release(c.h)
	for {
		buf := c.a.space(c.h)
		n, st, e := c.sock.recv(buf, true, SourceThread)
		if e == unix.EINTR {
			continue
		}
		c.order(&st)
		c.last.Store(int64(st.read))
		msg := readMsg{data: c.a.took(n), st: st, err: c.endErr(n, e)}
		_, full := c.h.push(msg)
		c.h.signal()
		if msg.err != nil {
			return
		}
		if full {
			if _, ok := <-c.roomChan(); !ok {
				return
			}
		}
	}
}

// roomChan is where a paused reader thread waits; release closes it.
func (c *rawConn) roomChan() chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.room == nil {
		c.room = make(chan struct{}, 1)
	}
	return c.room
}

// resumeThread lets a paused reader thread go on.
func (c *rawConn) resumeThread() {
	select {
	case c.roomChan() <- struct{}{}:
	default:
	}
}

// writeAll writes the request, reading the clock for t0 right before the
// first byte goes to the socket and calling afterT0 once that first write
// has returned.
func (c *rawConn) writeAll(head, body []byte, afterT0 func()) error {
	bufs := [][]byte{head, body}
	first := true
	for len(bufs) > 0 {
		if first {
			c.start.Store(int64(c.sock.clk.now()))
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
func (c *rawConn) sendmsg(bufs [][]byte) (int, syscall.Errno) {
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

// errWriteClosed says the request could not be written because the
// connection was shut down meanwhile.
var errWriteClosed = errors.New("the connection was closed while the request was written")

// waitWritable waits until the socket takes more bytes (or fails).
func (c *rawConn) waitWritable() error {
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
			return errWriteClosed
		}
		return nil
	}
}
