package wire

import (
	"sync"
	"time"
)

const (
	// arenaSize is the buffer that successive reads fill one after another;
	// a new one is taken when less than minRead is left.
	arenaSize = 64 << 10
	minRead   = 16 << 10
	// maxBacklog is how many bytes may wait for (or be in the hands of)
	// the caller's goroutine before the reader stops reading that stream
	// until it catches up. It
	// only bounds memory when a server outruns the caller for a long time
	// (an unpaced stream; a callback far slower than the server over tens
	// of thousands of chunks): a slow on_chunk never makes the reader wait
	// before that, so it cannot push back into the stamps. Info.ReadPauses
	// counts the pauses.
	maxBacklog = 8 << 20
	// freeArenas bounds the recycled buffers: enough for a whole backlog,
	// so a reader kept busy allocates none; keptArenas is what stays once
	// no stream reads any more (trimArenas).
	freeArenas = maxBacklog/arenaSize + 8
	keptArenas = 16
	// DefaultHandOff applies when Request.HandOff is 0 and OnChunk is
	// set; DefaultHandOffNoCallback when no callback waits for chunks.
	DefaultHandOff           = 500 * time.Microsecond
	DefaultHandOffNoCallback = 2 * time.Millisecond
)

// arenas recycles read buffers across requests, so a stream costs no
// allocation per read. A plain free list rather than a sync.Pool: the
// poller thread takes from it, and a pool emptied by every GC would make
// that thread allocate (and assist the GC) right after a collection.
var arenas struct {
	mu   sync.Mutex
	free []*[]byte
}

func getArena() *[]byte {
	arenas.mu.Lock()
	if n := len(arenas.free); n > 0 {
		b := arenas.free[n-1]
		arenas.free = arenas.free[:n-1]
		arenas.mu.Unlock()
		return b
	}
	arenas.mu.Unlock()
	b := make([]byte, arenaSize)
	return &b
}

func putArena(b *[]byte) {
	arenas.mu.Lock()
	if len(arenas.free) < freeArenas {
		arenas.free = append(arenas.free, b)
	}
	arenas.mu.Unlock()
}

// trimArenas lets go of recycled buffers beyond keptArenas.
func trimArenas() {
	arenas.mu.Lock()
	if len(arenas.free) > keptArenas {
		clear(arenas.free[keptArenas:])
		arenas.free = arenas.free[:keptArenas]
	}
	arenas.mu.Unlock()
}

// arena is the buffer a reader fills read after read.
type arena struct {
	buf *[]byte
	off int
}

// space returns where the next read goes, first handing the used-up buffer
// to the caller's goroutine (through h, after every read that points into
// it) when less than minRead is left.
func (a *arena) space(h *Handoff) []byte {
	if a.buf != nil && len(*a.buf)-a.off >= minRead {
		return (*a.buf)[a.off:]
	}
	if a.buf != nil {
		h.Push(Msg{free: a.buf})
	}
	a.buf, a.off = getArena(), 0
	return *a.buf
}

// release hands the last buffer to the caller's goroutine when the reader
// stops.
func (a *arena) release(h *Handoff) {
	if a.buf != nil {
		h.Push(Msg{free: a.buf})
		a.buf = nil
	}
}

// took marks n bytes of the space as used and returns them.
func (a *arena) took(n int) []byte {
	b := (*a.buf)[a.off : a.off+n : a.off+n]
	a.off += n
	return b
}

// Msg is one read handed from the reader to the caller's goroutine.
type Msg struct {
	Data []byte  // what the read returned; valid until the next Next after the arena is used up
	St   Stamp   // when it arrived
	Err  error   // the read's error; the last message carries one
	free *[]byte // an arena all earlier messages used up, to recycle
}

// Handoff carries reads from a reader to the caller's goroutine. The
// reader never waits for the caller: the queue grows (up to maxBacklog),
// and waking the caller is the reader's decision, so a reader serving many
// streams can batch wake-ups while every read keeps its own stamp.
type Handoff struct {
	mu sync.Mutex
	q  []Msg
	// queued is the data in q, taken the data of the batch the caller's
	// goroutine works through: together what the reader may not outrun
	// by more than maxBacklog.
	queued, taken int
	waiting       bool // the caller's goroutine is parked in take
	paused        bool // the reader stopped at maxBacklog until take finds room again
	pauses        int
	wake          chan struct{}
	// ev, when set, replaces wake: see eventWake.
	ev waker
	// resume restarts a paused reader; called by take outside the lock.
	resume func()
	// nextReady links the hand-offs a poller batch posted to its
	// dispatcher; the poller writes it after a claim, the dispatcher
	// before the wake-up.
	nextReady *Handoff

	// The caller's side: the batch being worked through, and a read put
	// back (unread) to come first.
	batch []Msg
	bi    int
	back  *Msg
}

// waker wakes a goroutine parked in take from a reader's thread.
type waker interface {
	wake()
	wait()
}

func NewHandoff() *Handoff { return &Handoff{wake: make(chan struct{}, 1)} }

// push queues m. parked reports that the caller's goroutine is waiting
// (signal wakes it); full that the reader must stop reading until resume.
func (h *Handoff) Push(m Msg) (parked, full bool) {
	h.mu.Lock()
	h.q = append(h.q, m)
	h.queued += len(m.Data)
	if h.queued+h.taken >= maxBacklog && !h.paused {
		h.paused, full = true, true
		h.pauses++
	}
	parked = h.waiting
	h.mu.Unlock()
	return parked, full
}

// signal wakes the caller's goroutine if it is parked and something is
// queued; it reports whether it did.
func (h *Handoff) Signal() bool {
	if !h.claim() {
		return false
	}
	if h.ev != nil {
		h.ev.wake()
		return true
	}
	h.wakeUp()
	return true
}

// claim takes the caller's goroutine off waiting if it is parked and
// something is queued, for the claimer to wake it (wakeUp); it reports
// whether it did.
func (h *Handoff) claim() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.waiting || len(h.q) == 0 {
		return false
	}
	h.waiting = false
	return true
}

// wakeUp readies the caller's goroutine parked on the wake channel (or
// lets its next wait return at once).
func (h *Handoff) wakeUp() {
	select {
	case h.wake <- struct{}{}:
	default:
	}
}

// take waits until something is queued and returns all of it, handing dst
// (emptied) to the reader as its next queue, so steady streaming allocates
// nothing. The caller is done with the previous batch: a reader paused at
// maxBacklog resumes once less than half of it is left.
func (h *Handoff) take(dst []Msg) []Msg {
	h.mu.Lock()
	h.taken = 0
	if h.paused && h.queued < maxBacklog/2 {
		h.paused = false
		if h.resume != nil {
			h.mu.Unlock()
			h.resume()
			h.mu.Lock()
		}
	}
	for len(h.q) == 0 {
		h.waiting = true
		h.mu.Unlock()
		if h.ev != nil {
			h.ev.wait()
		} else {
			<-h.wake
		}
		h.mu.Lock()
	}
	got := h.q
	h.q, h.taken, h.queued = dst[:0], h.queued, 0
	h.mu.Unlock()
	return got
}

// Next returns the reader's next read, waiting for it, and recycles the
// used-up buffers on the way. Only the caller's goroutine calls it; a
// read's Data stays valid until its arena is used up, which is after the
// caller has moved on by a whole arena of later reads.
func (h *Handoff) Next() Msg {
	if m := h.back; m != nil {
		h.back = nil
		return *m
	}
	for {
		if h.bi == len(h.batch) {
			h.batch, h.bi = h.take(h.batch), 0
		}
		m := h.batch[h.bi]
		h.bi++
		if m.free != nil {
			putArena(m.free)
			continue
		}
		return m
	}
}

// unread makes m the next read Next returns.
func (h *Handoff) unread(m Msg) { h.back = &m }

// Recycle returns every buffer still held, by the caller's batch or the
// queue, once the reader has stopped.
func (h *Handoff) Recycle() {
	for _, m := range h.batch[h.bi:] {
		if m.free != nil {
			putArena(m.free)
		}
	}
	h.batch, h.bi = nil, 0
	h.drain()
}

// SetResume sets what restarts a reader paused at the backlog bound.
func (h *Handoff) SetResume(f func()) { h.resume = f }

// drain recycles the buffers of whatever is still queued, once the reader
// has stopped and nothing reads the messages any more.
func (h *Handoff) drain() {
	h.mu.Lock()
	q := h.q
	h.q, h.queued, h.taken = nil, 0, 0
	h.mu.Unlock()
	for _, m := range q {
		if m.free != nil {
			putArena(m.free)
		}
	}
}

// readPauses is how often the reader stopped at maxBacklog.
func (h *Handoff) ReadPauses() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.pauses
}

// Reads is where a request's reads come from, in order, each with its
// stamp: a Handoff (the socket's reads) or a TLSConn (the records
// decrypted from them).
type Reads interface {
	// Next returns the next read; its Data stays valid until the next call.
	Next() Msg
	// Recycle returns the buffers held, once the reader has stopped.
	Recycle()
	// ReadPauses is how often the reader stopped at the backlog bound.
	ReadPauses() int
}
