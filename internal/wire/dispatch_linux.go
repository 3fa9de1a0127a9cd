package wire

import (
	"os"
	"sync/atomic"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// dispatcher wakes, for the poller, the caller goroutines of the streams
// one epoll_wait batch has readied: the poller hands it the batch's
// hand-offs and writes its eventfd once, and the dispatcher (an ordinary
// goroutine, woken by the kernel through Go's netpoller, running on a P of
// its own) readies each of them with a channel send, which costs no system
// call. The goroutines so readied wait in that P's run queue, where the
// other Ps steal them as usual; a channel send from the poller thread
// itself would leave them on the poller's P (see eventWake). While the
// dispatcher is busy, batches posted meanwhile cost no eventfd write at
// all: it takes them before it parks again.
//
// The poller never waits for the dispatcher: a batch goes onto a
// lock-free list linked through the hand-offs themselves (no allocation),
// and the eventfd is written with a raw system call, which keeps the
// poller's P. What a stream's caller learns of a read moves from one
// eventfd per read to one per batch; the read's stamp, taken at the
// recvmsg, does not.
type dispatcher struct {
	// head is the last hand-off posted and not yet taken; each links to
	// the one posted before it (Handoff.nextReady).
	head atomic.Pointer[Handoff]
	// sleeping is set while the dispatcher parks on the eventfd (or is
	// about to): whoever clears it writes the eventfd.
	sleeping atomic.Bool
	stop     atomic.Bool
	done     chan struct{}

	fd int // the eventfd, also owned by f
	f  *os.File
	rc syscall.RawConn

	writes atomic.Int64 // eventfd writes, for tests
}

func newDispatcher() (*dispatcher, error) {
	fd, f, rc, err := newEventfd("dispatch")
	if err != nil {
		return nil, err
	}
	d := &dispatcher{fd: fd, f: f, rc: rc, done: make(chan struct{})}
	go d.run()
	return d, nil
}

// post hands over hand-offs whose goroutines are to be woken; called by
// the poller thread, once per batch, with hand-offs it claimed (so none
// is on the list twice). hs may be reused once post returns.
func (d *dispatcher) post(hs []*Handoff) {
	if len(hs) == 0 {
		return
	}
	// Chain the batch first to last, then put it on the list in one step.
	for i := len(hs) - 1; i > 0; i-- {
		hs[i].nextReady = hs[i-1]
	}
	first, last := hs[len(hs)-1], hs[0]
	for {
		old := d.head.Load()
		last.nextReady = old
		if d.head.CompareAndSwap(old, first) {
			break
		}
	}
	d.rouse()
}

// rouse writes the eventfd if the dispatcher sleeps (or is about to).
// The list (or stop) is written before sleeping is read here, and the
// dispatcher sets sleeping before it looks at the list again, so one of
// the two sees the other's write: no batch waits for a later one.
func (d *dispatcher) rouse() {
	if d.sleeping.Load() && d.sleeping.CompareAndSwap(true, false) {
		d.writes.Add(1)
		// A raw write: an eventfd write never blocks, and the poller
		// keeps its P (see sock.recv).
		unix.RawSyscall(unix.SYS_WRITE, uintptr(d.fd), uintptr(unsafe.Pointer(&eventOne[0])), uintptr(len(eventOne)))
	}
}

// shutdown stops the dispatcher once it has woken everything posted
// before, and waits for it to end.
func (d *dispatcher) shutdown() {
	d.stop.Store(true)
	d.rouse()
	<-d.done
	d.f.Close()
}

// run is the dispatcher's goroutine. It stays in one RawConn.Read of its
// eventfd for good, doing its work in the callback: Read clears a
// readiness that came before it starts, so a Read per sleep would have to
// try a read of the eventfd before every wait (and find it empty);
// inside one Read, a write made after sleeping is set, even one that
// comes before the callback returns, is a readiness the next wait finds.
// Woken, it reads the counter back to zero (a readiness left over makes
// that read fail with EAGAIN, which costs nothing more than a look at an
// empty list).
func (d *dispatcher) run() {
	defer close(d.done)
	var b [8]byte
	woken := false
	d.rc.Read(func(fd uintptr) bool {
		if woken {
			unix.Read(int(fd), b[:])
		}
		woken = true
		for {
			if h := d.head.Swap(nil); h != nil {
				deliver(h)
				continue
			}
			if d.stop.Load() {
				return true
			}
			d.sleeping.Store(true)
			if d.head.Load() == nil && !d.stop.Load() {
				return false // park until rouse writes
			}
			if !d.sleeping.CompareAndSwap(true, false) {
				return false // rouse took it: its write is on the way
			}
		}
	})
}

// deliver wakes the goroutines of a list taken from head, in the order
// they were posted.
func deliver(h *Handoff) {
	// The list runs last posted first; reverse it.
	var prev *Handoff
	for h != nil {
		next := h.nextReady
		h.nextReady = prev
		prev, h = h, next
	}
	for h = prev; h != nil; {
		// Read the link before the wake-up: once woken, the goroutine may
		// park again and the poller post h anew.
		next := h.nextReady
		h.nextReady = nil
		h.wakeUp()
		h = next
	}
}
