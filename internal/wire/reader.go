package wire

import (
	"io"
	"sync/atomic"
)

// NetReader moves a net/http response body to a handoff, stamping each
// read: the path for https and for platforms without the raw-socket
// client. Its reads wait in Go's netpoller, so their stamps are
// SourceNetpoll.
type NetReader struct {
	body io.Reader
	clk  Clock
	h    *Handoff
	last *atomic.Int64 // the last read's time, for the idle limit
	room chan struct{} // a paused reader waits here for take to catch up
	quit chan struct{} // closed by the caller when it stops listening
	done chan struct{} // closed when the goroutine has returned
}

// StartReader starts a goroutine that reads body into h, stamping each
// read with clk when it returned (SourceNetpoll) and storing that time in
// last.
func StartReader(body io.Reader, clk Clock, h *Handoff, last *atomic.Int64) *NetReader {
	r := &NetReader{body: body, clk: clk, h: h, last: last,
		room: make(chan struct{}, 1), quit: make(chan struct{}), done: make(chan struct{})}
	h.SetResume(func() {
		select {
		case r.room <- struct{}{}:
		default:
		}
	})
	go r.loop()
	return r
}

// loop reads until an error. Nothing happens between Read returning and the
// clock being read.
func (r *NetReader) loop() {
	defer close(r.done)
	var a arena
	defer a.release(r.h)
	for {
		buf := a.space(r.h)
		n, err := r.body.Read(buf)
		at := r.clk.Now()
		r.last.Store(int64(at))
		_, full := r.h.Push(Msg{Data: a.took(n), St: ReadStamp(at, SourceNetpoll), Err: err})
		r.h.Signal()
		if err != nil {
			return
		}
		if full {
			select {
			case <-r.room:
			case <-r.quit:
				return
			}
		}
	}
}

// Stop waits for the goroutine. The connection must already be closed, so
// a pending Read returns.
func (r *NetReader) Stop() {
	close(r.quit)
	<-r.done
}
