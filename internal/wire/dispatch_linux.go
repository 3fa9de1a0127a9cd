package wire

import (
	"os"
	"sync"
	"sync/atomic"
	"syscall"

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
// What a stream's caller learns of a read moves from one eventfd per read
// to one per batch; the read's stamp, taken at the recvmsg, does not.
type dispatcher struct {
	mu       sync.Mutex
	q        []*Handoff
	sleeping bool // parked on the eventfd: the next post writes it
	stop     bool
	done     chan struct{}

	f  *os.File
	rc syscall.RawConn

	writes atomic.Int64 // eventfd writes, for tests
}

func newDispatcher() (*dispatcher, error) {
	fd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), "dispatch")
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil, err
	}
	d := &dispatcher{f: f, rc: rc, done: make(chan struct{})}
	go d.run()
	return d, nil
}

// post hands over hand-offs whose goroutines are to be woken; called by
// the poller thread, once per batch. hs may be reused once post returns.
func (d *dispatcher) post(hs []*Handoff) {
	d.mu.Lock()
	d.q = append(d.q, hs...)
	wake := d.sleeping
	d.sleeping = false
	d.mu.Unlock()
	if wake {
		d.writes.Add(1)
		d.f.Write(eventOne)
	}
}

// shutdown stops the dispatcher once it has woken everything posted
// before, and waits for it to end.
func (d *dispatcher) shutdown() {
	d.mu.Lock()
	d.stop = true
	wake := d.sleeping
	d.sleeping = false
	d.mu.Unlock()
	if wake {
		d.f.Write(eventOne)
	}
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
// empty queue).
func (d *dispatcher) run() {
	defer close(d.done)
	var batch []*Handoff
	var b [8]byte
	woken := false
	d.rc.Read(func(fd uintptr) bool {
		if woken {
			unix.Read(int(fd), b[:])
		}
		woken = true
		for {
			d.mu.Lock()
			if len(d.q) == 0 {
				stop := d.stop
				d.sleeping = !stop
				d.mu.Unlock()
				return stop
			}
			batch, d.q = d.q, batch[:0]
			d.mu.Unlock()
			for i, h := range batch {
				h.wakeUp()
				batch[i] = nil
			}
		}
	})
}
