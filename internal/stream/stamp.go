package stream

import "time"

// StampSource says how the arrival time of a read was taken.
type StampSource uint8

const (
	// SourceNone is the zero value: no read.
	SourceNone StampSource = iota
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
func (s StampSource) String() string {
	if int(s) < len(sourceNames) {
		return sourceNames[s]
	}
	return "unknown"
}

// stamp is when the bytes of one read arrived, on the request's clock.
type stamp struct {
	// at is the arrival time: the kernel's stamp when the read carried
	// one, else read.
	at time.Duration
	// read is when the read returned (at <= read).
	read time.Duration
	src  StampSource
}

// readStamp is a stamp taken when a read returned, with no kernel stamp.
func readStamp(read time.Duration, src StampSource) stamp {
	return stamp{at: read, read: read, src: src}
}

// maxClockSkew is how far a kernel stamp may seem to lie after the read
// that returned it before it is refused: the wall and monotonic readings
// of one time.Now are a few nanoseconds apart.
const maxClockSkew = time.Microsecond
