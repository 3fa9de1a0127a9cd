package stream

import (
	"io"
	"sync/atomic"
)

// netReader moves a net/http response body to a handoff, stamping each
// read: the path for https and for platforms without the raw-socket
// client. Its reads wait in Go's netpoller, so their stamps are
// SourceNetpoll.
type netReader struct {
	body io.Reader
	clk  clock
	h    *handoff
	last *atomic.Int64 // the last read's time, for the idle limit
	room chan struct{} // a paused reader waits here for take to catch up
	quit chan struct{} // closed by the caller when it stops listening
	done chan struct{} // closed when the goroutine has returned
}

func startNetReader(body io.Reader, clk clock, h *handoff, last *atomic.Int64) *netReader {
	r := &netReader{body: body, clk: clk, h: h, last: last,
		room: make(chan struct{}, 1), quit: make(chan struct{}), done: make(chan struct{})}
	h.resume = func() {
		select {
		case r.room <- struct{}{}:
		default:
		}
	}
	go r.loop()
	return r
}

// loop reads until an error. Nothing happens between Read returning and the
// clock being read.
func (r *netReader) loop() {
	defer close(r.done)
	var a arena
	defer a.release(r.h)
	for {
		buf := a.space(r.h)
		n, err := r.body.Read(buf)
		at := r.clk.now()
		r.last.Store(int64(at))
		_, full := r.h.push(readMsg{data: a.took(n), st: readStamp(at, SourceNetpoll), err: err})
		r.h.signal()
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

// stop waits for the goroutine. The connection must already be closed, so
// a pending Read returns.
func (r *netReader) stop() {
	close(r.quit)
	<-r.done
}
