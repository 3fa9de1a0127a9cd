package stream

import (
	"io"
	"sync"
	"time"
)

const (
	// arenaSize is the buffer that successive reads fill one after another;
	// a new one is taken when less than minRead is left.
	arenaSize = 64 << 10
	minRead   = 16 << 10
	// queueLen is how many reads may wait for the caller's goroutine before
	// the reader blocks. The reader must keep reading while callbacks run,
	// or the stamps would measure the callbacks instead of the server.
	queueLen = 256
)

// arenas recycles read buffers across requests, so a stream costs no
// allocation per read.
var arenas = sync.Pool{New: func() any {
	b := make([]byte, arenaSize)
	return &b
}}

// readMsg is one read handed from the reader goroutine to the caller's.
type readMsg struct {
	data []byte        // what the read returned; valid until free of its arena arrives
	at   time.Duration // clock right after Read returned
	err  error         // the read's error; the last message carries one
	free *[]byte       // an arena all earlier messages used up, to recycle
}

// reader moves a response body from the socket to a channel, stamping each
// read.
type reader struct {
	body  io.Reader
	clk   clock
	idle  *time.Timer // reset after every read; nil when there is no idle limit
	idleD time.Duration
	out   chan readMsg
	quit  chan struct{} // closed by the caller when it stops listening
	done  chan struct{} // closed when the goroutine has returned
}

func startReader(body io.Reader, clk clock, idle *time.Timer, idleD time.Duration) *reader {
	r := &reader{body: body, clk: clk, idle: idle, idleD: idleD,
		out: make(chan readMsg, queueLen), quit: make(chan struct{}), done: make(chan struct{})}
	go r.loop()
	return r
}

// loop reads until an error. Nothing happens between Read returning and the
// clock being read.
func (r *reader) loop() {
	defer close(r.done)
	arena := arenas.Get().(*[]byte)
	buf, off := *arena, 0
	for {
		if len(buf)-off < minRead {
			if !r.send(readMsg{free: arena}) {
				return
			}
			arena = arenas.Get().(*[]byte)
			buf, off = *arena, 0
		}
		n, err := r.body.Read(buf[off:])
		at := r.clk.now()
		if r.idle != nil {
			r.idle.Reset(r.idleD)
		}
		msg := readMsg{data: buf[off : off+n : off+n], at: at, err: err}
		off += n
		if !r.send(msg) || err != nil {
			return
		}
	}
}

func (r *reader) send(m readMsg) bool {
	select {
	case r.out <- m:
		return true
	case <-r.quit:
		return false
	}
}

// stop tells the goroutine nobody listens any more and waits for it. The
// connection must already be closed, so a pending Read returns.
func (r *reader) stop() {
	close(r.quit)
	<-r.done
}
