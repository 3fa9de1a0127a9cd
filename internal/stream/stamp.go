package stream

import (
	"syscall"
	"time"

	"ttftlab/internal/wire"
)

// StampSource says how the arrival time of a read was taken (see
// wire.Source).
type StampSource = wire.Source

const (
	// SourceNone is the zero value: no read.
	SourceNone = wire.SourceNone
	// SourceKernel is the kernel's receive timestamp (SO_TIMESTAMPNS) of
	// the last TCP segment the read copied, placed on the monotonic clock.
	SourceKernel = wire.SourceKernel
	// SourceEpoll is the clock read on the poller thread right after
	// recvmsg returned.
	SourceEpoll = wire.SourceEpoll
	// SourceThread is the clock read on the stream's own reader thread
	// right after a blocking recvmsg returned.
	SourceThread = wire.SourceThread
	// SourceNetpoll is the clock read on a reader goroutine right after
	// net/http's Read returned.
	SourceNetpoll = wire.SourceNetpoll
	// SourceMixed is for Info only: the content chunks' stamps did not all
	// come from one source.
	SourceMixed = wire.SourceMixed
)

const (
	// DefaultHandOff applies when Request.HandOff is 0 and OnChunk is
	// set; DefaultHandOffNoCallback when no callback waits for chunks.
	DefaultHandOff           = wire.DefaultHandOff
	DefaultHandOffNoCallback = wire.DefaultHandOffNoCallback
)

// stamp is when the bytes of one read arrived, on the request's clock.
type stamp struct {
	// at is the arrival time: the kernel's stamp when the read carried
	// one, else read.
	at time.Duration
	// read is when the read returned (at <= read).
	read time.Duration
	src  StampSource
}

// readMsg is one read as the caller's goroutine works with it.
type readMsg struct {
	data []byte
	st   stamp
	err  error
}

func fromWire(m wire.Msg) readMsg {
	return readMsg{data: m.Data, st: stamp{at: m.St.At, read: m.St.Read, src: m.St.Src}, err: m.Err}
}

// forWire is the clock as the wire package takes it.
func (c clock) forWire() wire.Clock { return wire.Clock{Base: c.base} }

// ReaderCPU is the CPU time the raw-socket readers' threads (the poller,
// and WireThread readers) have used so far, the running ones included: the
// readers' share of ttftlab's cost.
func ReaderCPU() time.Duration { return wire.ReaderCPU() }

// ProcessCPU is the process's user plus system CPU time so far (0 where
// it cannot be read): what ReaderCPU is a share of.
func ProcessCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// ReaderWait is how long the reader threads have waited, runnable, for a
// CPU and how many times they were put on one (wire.ReaderWait); ok false
// where the kernel does not say.
func ReaderWait() (time.Duration, int64, bool) { return wire.ReaderWait() }
