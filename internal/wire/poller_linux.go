package wire

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// poller is the process's reader for raw-path streams: one goroutine
// locked to its OS thread, blocking in epoll_wait over every open stream's
// socket. The kernel wakes that thread itself when data arrives, so a
// stream's reads do not wait for Go's scheduler to poll the network; a
// busy caller's goroutine or a slow callback cannot delay them either. One
// wake-up can serve many ready sockets, which is what lets hundreds of
// concurrent streams share the thread. It starts with the first stream and
// stops when the last one is released, taking its thread with it.
type poller struct {
	epfd int
	evfd int   // an eventfd in the set, to wake the loop for stopping
	clk  Clock // the poller's own clock, for hand-off deadlines
	stop atomic.Bool
	done chan struct{}
	tid  int
	// from is what the poller's thread had used and waited before it
	// became the poller (a thread runs other goroutines until one locks
	// it): the readers' figures count from there.
	from threadUse

	mu    sync.Mutex
	conns map[uint32]*Conn
	next  uint32

	pending []*Conn // streams with a deferred wake-up; loop only
	// ready holds the hand-offs whose goroutines this batch woke, for
	// disp; loop only.
	ready []*Handoff
	disp  *dispatcher
}

// yieldEvery is how often the poller passes through Go's scheduler. A
// goroutine that only ever blocks in system calls keeps its P's schedule
// tick unchanged, so after 10 ms Go's sysmon retakes the P at every one of
// its system calls and, having retaken one, polls every 20 µs: thousands of
// wake-ups a second, more CPU than a slow stream's reading. A yield
// before sleeping, now and then, avoids that for the price of one
// scheduling round.
const yieldEvery = 5 * time.Millisecond

// wakeID is the epoll data of the poller's eventfd; streams count from 1.
const wakeID = 0

// pollers is the process's poller and its readers' figures.
var pollers pollerSet

type pollerSet struct {
	mu    sync.Mutex
	cur   *poller
	users int
	// ended is what the reader threads (pollers, WireThread readers)
	// that have ended used and waited as readers; its wait and runs are
	// -1 once a thread's could not be read. useMu guards it (not mu: a
	// poller ends while detach holds mu).
	useMu sync.Mutex
	ended threadUse
	// running points at the live poller, for ReaderCPU.
	running atomic.Pointer[poller]
	// threads holds the running WireThread readers: thread id ->
	// threadUse, what the thread had when it became a reader.
	threads sync.Map
}

// attach registers c with the process's poller, starting it if needed.
func attach(c *Conn) error {
	pollers.mu.Lock()
	defer pollers.mu.Unlock()
	if pollers.cur == nil {
		p, err := startPoller()
		if err != nil {
			return err
		}
		pollers.cur = p
	}
	p := pollers.cur
	p.mu.Lock()
	p.next++
	if p.next == wakeID {
		p.next++
	}
	c.p, c.id = p, p.next
	p.conns[c.id] = c
	p.mu.Unlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := p.watch(c, unix.EPOLL_CTL_ADD); err != nil {
		p.forget(c)
		return err
	}
	c.watching = true
	pollers.users++
	return nil
}

// detach unregisters c, stopping the poller after its last stream. When
// it returns, the poller thread no longer touches c's socket.
func detach(c *Conn) {
	c.mu.Lock()
	c.unwatch()
	c.detached.Store(true)
	c.mu.Unlock()
	c.p.forget(c)
	pollers.mu.Lock()
	defer pollers.mu.Unlock()
	if pollers.users--; pollers.users == 0 {
		pollers.cur.shutdown()
		pollers.cur = nil
		trimArenas()
	}
}

// ReaderCPU is the CPU time the raw-socket readers' threads (the poller,
// and WireThread readers) have used so far as readers, the running ones
// included: the readers' share of ttftlab's cost.
func ReaderCPU() time.Duration {
	return time.Duration(readersUse().cpu)
}

// ReaderWait is how long the raw-socket readers' threads (the poller, and
// WireThread readers) have waited, runnable, for a CPU so far as readers,
// the running ones included (the kernel's run_delay of each thread,
// /proc/self/task/TID/schedstat), and how many times they were put on a
// CPU. A reader that waits leaves data in its sockets; chunks of one
// stream that arrive meanwhile are read together and share the later
// one's stamp. ok is false when the kernel does not keep the figures (a
// kernel without scheduler statistics).
func ReaderWait() (d time.Duration, runs int64, ok bool) {
	u := readersUse()
	if u.wait < 0 {
		return 0, 0, false
	}
	return time.Duration(u.wait), u.runs, true
}

// threadUse is a thread's CPU time and run-queue wait, in ns, and how
// many times it was put on a CPU; wait and runs are -1 when they cannot
// be read.
type threadUse struct{ cpu, wait, runs int64 }

func useOf(tid int) threadUse {
	w, r := threadWait(tid)
	return threadUse{threadCPU(tid), w, r}
}

// since is u less what the thread had at from.
func (u threadUse) since(from threadUse) threadUse {
	d := threadUse{cpu: u.cpu - from.cpu, wait: u.wait - from.wait, runs: u.runs - from.runs}
	if u.wait < 0 || from.wait < 0 {
		d.wait, d.runs = -1, -1
	}
	return d
}

// plus adds two uses; an unknown wait makes the sum's unknown.
func (u threadUse) plus(v threadUse) threadUse {
	s := threadUse{cpu: u.cpu + v.cpu, wait: u.wait + v.wait, runs: u.runs + v.runs}
	if u.wait < 0 || v.wait < 0 {
		s.wait, s.runs = -1, -1
	}
	return s
}

// readersUse is what the readers that ended used and waited, and what the
// running ones have since they became readers.
func readersUse() threadUse {
	pollers.useMu.Lock()
	u := pollers.ended
	pollers.useMu.Unlock()
	if p := pollers.running.Load(); p != nil {
		u = u.plus(useOf(p.tid).since(p.from))
	}
	pollers.threads.Range(func(tid, from any) bool {
		u = u.plus(useOf(tid.(int)).since(from.(threadUse)))
		return true
	})
	return u
}

// end adds what a reader thread used and waited as a reader to the sums
// of those that ended; an unknown wait makes that sum unknown.
func (ps *pollerSet) end(u threadUse) {
	ps.useMu.Lock()
	defer ps.useMu.Unlock()
	ps.ended = ps.ended.plus(u)
}

// readerThread counts the calling locked thread as a reader until the
// returned function is called on it, as its last act.
func readerThread() (done func()) {
	tid := unix.Gettid()
	from := useOf(tid)
	pollers.threads.Store(tid, from)
	return func() {
		pollers.end(useOf(tid).since(from))
		pollers.threads.Delete(tid)
	}
}

// threadWait is the time thread tid of this process has spent runnable
// but not running, in ns, and how many times it was put on a CPU: the
// second and third figures of its schedstat; -1, -1 when they cannot be
// read.
func threadWait(tid int) (wait, runs int64) {
	b, err := os.ReadFile("/proc/self/task/" + strconv.Itoa(tid) + "/schedstat")
	if err != nil {
		return -1, -1
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return -1, -1
	}
	w, err1 := strconv.ParseInt(f[1], 10, 64)
	r, err2 := strconv.ParseInt(f[2], 10, 64)
	if err1 != nil || err2 != nil {
		return -1, -1
	}
	return w, r
}

func startPoller() (*poller, error) {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, err
	}
	evfd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		unix.Close(epfd)
		return nil, err
	}
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: wakeID}
	if err := unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, evfd, &ev); err != nil {
		unix.Close(epfd)
		unix.Close(evfd)
		return nil, err
	}
	d, err := newDispatcher()
	if err != nil {
		unix.Close(epfd)
		unix.Close(evfd)
		return nil, err
	}
	p := &poller{epfd: epfd, evfd: evfd, clk: NewClock(), done: make(chan struct{}), conns: map[uint32]*Conn{}, disp: d}
	started := make(chan struct{})
	go p.loop(started)
	<-started
	return p, nil
}

// watch adds or re-arms c's socket in the set (level-triggered: data left
// unread is reported again).
func (p *poller) watch(c *Conn, op int) error {
	ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLRDHUP, Fd: int32(c.id)}
	return unix.EpollCtl(p.epfd, op, c.sock.fd, &ev)
}

// pause stops reporting c's socket until resumeWatch; c.mu is held.
func (p *poller) pause(c *Conn) {
	ev := unix.EpollEvent{Fd: int32(c.id)}
	unix.EpollCtl(p.epfd, unix.EPOLL_CTL_MOD, c.sock.fd, &ev)
}

func (p *poller) forget(c *Conn) {
	p.mu.Lock()
	delete(p.conns, c.id)
	p.mu.Unlock()
}

func (p *poller) lookup(id uint32) *Conn {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.conns[id]
}

// shutdown ends the loop and waits for its thread to go.
func (p *poller) shutdown() {
	p.stop.Store(true)
	one := uint64(1)
	unix.Write(p.evfd, (*[8]byte)(unsafe.Pointer(&one))[:])
	<-p.done
}

// loop waits for readable sockets and reads them. The goroutine never
// unlocks its thread, so the thread ends with the loop.
func (p *poller) loop(started chan<- struct{}) {
	runtime.LockOSThread()
	p.tid = unix.Gettid()
	p.from = useOf(p.tid)
	pollers.running.Store(p)
	close(started)
	defer p.exit()
	events := make([]unix.EpollEvent, 256)
	var yielded time.Duration
	for !p.stop.Load() {
		if now := p.clk.Now(); now-yielded >= yieldEvery {
			runtime.Gosched()
			yielded = now
		}
		n, err := epollWait(p.epfd, events, p.timeout())
		if err != nil && err != unix.EINTR {
			panic("wire: epoll_wait failed: " + err.Error())
		}
		for _, ev := range events[:max(n, 0)] {
			if ev.Fd == wakeID {
				continue // only ever written to stop the loop
			}
			if c := p.lookup(uint32(ev.Fd)); c != nil {
				c.readReady(p)
			}
		}
		p.firePending()
		if len(p.ready) > 0 {
			p.disp.post(p.ready)
			clear(p.ready)
			p.ready = p.ready[:0]
		}
	}
}

func (p *poller) exit() {
	pollers.end(useOf(p.tid).since(p.from))
	pollers.running.CompareAndSwap(p, nil)
	unix.Close(p.epfd)
	unix.Close(p.evfd)
	p.disp.shutdown()
	close(p.done)
}

// wake applies the hand-off policy to a stream whose caller's goroutine
// is parked: wake it now if it was last woken at least handOff ago, or if
// the stream ended (nothing more will come to batch with), else when that
// much time has passed. A stream read every few microseconds then costs
// its caller one wake-up per handOff, not one per read, while a stream
// slower than that is handed every read at once.
func (p *poller) wake(c *Conn, ended bool) {
	now := p.clk.Now()
	if ended || c.handOff < 0 || now-c.lastWake >= c.handOff {
		if p.signal(c) {
			c.lastWake = now
		}
		return
	}
	if c.wakeAt == 0 {
		c.wakeAt = c.lastWake + c.handOff
		p.pending = append(p.pending, c)
	}
}

// signal wakes c's caller goroutine if it is parked and something is
// queued, through the dispatcher at the end of the batch; it reports
// whether it will.
func (p *poller) signal(c *Conn) bool {
	if !c.h.claim() {
		return false
	}
	p.ready = append(p.ready, c.h)
	return true
}

// firePending delivers the deferred wake-ups that are due.
func (p *poller) firePending() {
	if len(p.pending) == 0 {
		return
	}
	now := p.clk.Now()
	keep := p.pending[:0]
	for _, c := range p.pending {
		if c.wakeAt > now {
			keep = append(keep, c)
			continue
		}
		c.wakeAt = 0
		if !c.detached.Load() && p.signal(c) {
			c.lastWake = now
		}
	}
	clear(p.pending[len(keep):])
	p.pending = keep
}

// timeout is how long epoll_wait may sleep: until the next deferred
// wake-up, or for ever (-1).
func (p *poller) timeout() time.Duration {
	if len(p.pending) == 0 {
		return -1
	}
	next := p.pending[0].wakeAt
	for _, c := range p.pending[1:] {
		next = min(next, c.wakeAt)
	}
	return max(next-p.clk.Now(), 0)
}

// threadCPU is the CPU time of thread tid of this process, in ns.
func threadCPU(tid int) int64 {
	// The per-thread CPU clock of a thread id (what
	// pthread_getcpuclockid returns): CPUCLOCK_SCHED with the per-thread
	// bit.
	clock := int32(^uint32(tid)<<3 | 6)
	var ts unix.Timespec
	if unix.ClockGettime(clock, &ts) != nil {
		return 0
	}
	return ts.Nano()
}
