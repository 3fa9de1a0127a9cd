package wire

import (
	"io"
	"runtime"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// order keeps arrival times from going backwards: TCP delivers the bytes
// of a later read after those of an earlier one, but two reads of one
// segment carry the same kernel time, placed on the monotonic clock with
// a few nanoseconds of jitter each.
func (c *Conn) order(st *Stamp) {
	if st.At < c.prevAt {
		st.At = c.prevAt
	}
	c.prevAt = st.At
}

// readReady reads what the socket has, on the poller thread: every read
// is stamped and queued at once, and the caller's goroutine is woken as
// the hand-off policy says.
func (c *Conn) readReady(p *poller) {
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
		c.last.Store(int64(st.Read))
		msg := Msg{Data: c.a.took(n), St: st, Err: c.endErr(n, e)}
		var full bool
		parked, full = c.h.Push(msg)
		if msg.Err != nil {
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
func (c *Conn) endErr(n int, e syscall.Errno) error {
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
func (c *Conn) threadLoop() {
	runtime.LockOSThread()
	defer close(c.threadDone)
	defer readerThread()()
	defer c.a.release(c.h)
	var yielded time.Duration
	for {
		if now := c.sock.clk.Now(); now-yielded >= yieldEvery {
			runtime.Gosched() // see yieldEvery
			yielded = now
		}
		buf := c.a.space(c.h)
		n, st, e := c.sock.recv(buf, true, SourceThread)
		if e == unix.EINTR {
			continue
		}
		c.order(&st)
		c.last.Store(int64(st.Read))
		msg := Msg{Data: c.a.took(n), St: st, Err: c.endErr(n, e)}
		_, full := c.h.Push(msg)
		c.h.Signal()
		if msg.Err != nil {
			return
		}
		if full {
			if _, ok := <-c.roomChan(); !ok {
				return
			}
		}
	}
}
