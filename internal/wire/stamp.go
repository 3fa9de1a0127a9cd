package wire

import "time"

// Source says how the arrival time of a read was taken.
type Source uint8

const (
	// SourceNone is the zero value: no read.
	SourceNone Source = iota
	// SourceKernel is the kernel's receive timestamp (SO_TIMESTAMPNS) of
	// the last TCP segment the read copied, placed on the monotonic clock.
	// It does not depend on when any thread got round to the read. A read
	// that finds several segments waiting gets the last one's time, an
	// upper bound for chunks that came in the earlier ones.
	SourceKernel
	// SourceEpoll is the clock read on the poller thread right after
	// recvmsg returned.
	SourceEpoll
	// SourceThread is the clock read on the stream's own reader thread
	// right after a blocking recvmsg returned.
	SourceThread
	// SourceNetpoll is the clock read on a reader goroutine right after
	// net/http's Read returned: the read waited for Go's netpoller and
	// scheduler, which a busy CPU delays.
	SourceNetpoll
	// SourceMixed is for Info only: the content chunks' stamps did not all
	// come from one source.
	SourceMixed
)

var sourceNames = [...]string{"", "kernel", "epoll-thread", "read-thread", "go-netpoll", "mixed"}

// String is the source's name in results: "kernel", "epoll-thread",
// "read-thread", "go-netpoll" or "mixed" ("" for SourceNone).
func (s Source) String() string {
	if int(s) < len(sourceNames) {
		return sourceNames[s]
	}
	return "unknown"
}

// Stamp is when the bytes of one read arrived, on the request's clock.
type Stamp struct {
	// At is the arrival time: the kernel's stamp when the read carried
	// one, else Read.
	At time.Duration
	// Read is when the read returned (At <= Read).
	Read time.Duration
	Src  Source
}

// ReadStamp is a stamp taken when a read returned, with no kernel stamp.
func ReadStamp(read time.Duration, src Source) Stamp {
	return Stamp{At: read, Read: read, Src: src}
}

// MaxClockSkew is how far a kernel stamp may seem to lie after the read
// that returned it before it is refused: the wall and monotonic readings
// of one time.Now are a few nanoseconds apart.
const MaxClockSkew = time.Microsecond

// Clock reads the monotonic clock as time since one request began.
type Clock struct{ Base time.Time }

// NewClock starts a clock now.
func NewClock() Clock { return Clock{Base: time.Now()} }

// Now is the time since the clock's base.
func (c Clock) Now() time.Duration { return time.Since(c.Base) }
