package wire

import (
	"context"
	"math"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// Conn is the connection of one raw-path request: a socket of its own
// (outside Go's netpoller), read by the poller thread or by a thread of
// its own, whose reads go through a handoff to the caller's goroutine.
type Conn struct {
	sock sock
	h    *Handoff
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
	ev         *eventWake // nil in poller mode

	start atomic.Int64 // t0 since clk.Base; valid once wrote is set
	wrote atomic.Bool

	prevAt time.Duration // the last read's arrival time; reader only
}

// dialRaw connects with net's dialer (name resolution, timeouts and errors
// as on the net/http path), then takes the socket out of Go's netpoller:
// it duplicates the descriptor and closes net's copy, so readiness wakes
// only the reader chosen here.
func Dial(ctx context.Context, addr string, opt Options) (*Conn, error) {
	clk, kernel := opt.Clock, opt.KernelStamps
	conn, err := DialNoDelay(ctx, "tcp", addr)
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
	c := &Conn{sock: sock{fd: fd, clk: clk, local: conn.LocalAddr(), remote: conn.RemoteAddr()}, h: NewHandoff(), last: opt.Last}
	if c.last == nil {
		c.last = new(atomic.Int64)
	}
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
func (c *Conn) Close() error {
	c.mu.Lock()
	if !c.closed {
		c.closed = true
		c.unwatch()
		unix.Shutdown(c.sock.fd, unix.SHUT_RDWR)
	}
	c.mu.Unlock()
	c.h.Push(Msg{St: ReadStamp(c.sock.clk.Now(), SourceNone), Err: net.ErrClosed})
	c.h.Signal()
	return nil
}

// T0 returns when the request's first byte was written, if it was.
func (c *Conn) T0() (time.Duration, bool) {
	if !c.wrote.Load() {
		return 0, false
	}
	return time.Duration(c.start.Load()), true
}

// Handoff is where the connection's reads arrive, for the caller's
// goroutine to take.
func (c *Conn) Handoff() *Handoff { return c.h }

// Start starts the reader of the chosen mode. handOff bounds how long a
// read may wait before the caller's goroutine is woken (ModeEpoll; see
// stream.Request.HandOff); negative wakes it for every read.
func (c *Conn) Start(mode Mode, handOff time.Duration) error {
	c.handOff = handOff
	c.lastWake = math.MinInt64 / 2 // the first read is handed over at once
	// The first buffer is taken here, on the caller's goroutine: taken by
	// the reader, an empty free list (many streams starting at once) would
	// make the poller thread allocate, and assist the GC, before the read
	// it was woken for.
	c.a.buf = getArena()
	if mode == ModeThread {
		if err := unix.SetNonblock(c.sock.fd, false); err != nil {
			return err
		}
		// A reader thread of its own wakes the caller through an eventfd
		// of its own; the poller's streams share its dispatcher.
		ev, err := newEventWake()
		if err != nil {
			return err
		}
		c.ev, c.h.ev = ev, ev
		c.threadDone = make(chan struct{})
		c.h.resume = c.resumeThread
		go c.threadLoop()
		return nil
	}
	c.h.resume = c.resumeWatch
	return attach(c)
}

// Release stops the reader and closes the descriptor; the closer must
// already have shut the socket down.
func (c *Conn) Release() {
	if c.threadDone != nil {
		close(c.roomChan())
		<-c.threadDone
	} else if c.p != nil {
		detach(c)
	}
	unix.Close(c.sock.fd)
	if c.ev != nil {
		c.ev.close()
	}
	c.h.drain()
}

// unwatch removes the socket from the poller's set; c.mu is held.
func (c *Conn) unwatch() {
	if c.watching {
		c.watching = false
		unix.EpollCtl(c.p.epfd, unix.EPOLL_CTL_DEL, c.sock.fd, nil)
	}
}

// resumeWatch watches the socket again after a pause at maxBacklog.
func (c *Conn) resumeWatch() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.closed && !c.ended && c.watching {
		c.p.watch(c, unix.EPOLL_CTL_MOD)
	}
}

// roomChan is where a paused reader thread waits; release closes it.
func (c *Conn) roomChan() chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.room == nil {
		c.room = make(chan struct{}, 1)
	}
	return c.room
}

// resumeThread lets a paused reader thread go on.
func (c *Conn) resumeThread() {
	select {
	case c.roomChan() <- struct{}{}:
	default:
	}
}
