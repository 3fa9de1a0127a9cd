// Package wire is ttftlab's own HTTP/1.1 client on a raw socket and the
// readers that stamp every read: the layer below stream.
//
// On Linux a connection's socket is taken out of Go's netpoller and read
// either by one process-wide poller thread (a goroutine locked to its OS
// thread, blocking in epoll_wait over every open connection) or by a
// locked thread of the connection's own; each read is stamped with the
// kernel's receive timestamp when the kernel gives one, else when the read
// returned, and handed to the caller's goroutine through a Handoff that
// never makes the reader wait. The HTTP parts (the request head, the
// response head, the body's framing) work on the reads' bytes in place, so
// every byte keeps the stamp of the read that brought it. StartReader
// stamps the reads of any io.Reader the same way (net/http's bodies).
package wire

import (
	"context"
	"net"
	"sync/atomic"
	"time"
)

// DialTimeout bounds connecting.
const DialTimeout = 10 * time.Second

// Mode chooses the reader of a raw connection.
type Mode uint8

const (
	// ModeEpoll: the process's poller thread reads the socket.
	ModeEpoll Mode = iota
	// ModeThread: a locked OS thread of the connection's own blocks in
	// recvmsg.
	ModeThread
)

func (m Mode) String() string {
	if m == ModeThread {
		return "thread"
	}
	return "epoll"
}

// Options configure Dial.
type Options struct {
	// Clock is the request's clock: every stamp counts from its base.
	Clock Clock
	// KernelStamps asks for the kernel's receive timestamps.
	KernelStamps bool
	// Last, when set, is stored the time of every read (for an idle
	// limit), one atomic store per read.
	Last *atomic.Int64
}

// DialNoDelay dials and sets TCP_NODELAY. Go sets it by default; it is
// set explicitly because a delayed request write would shift t0.
func DialNoDelay(ctx context.Context, network, addr string) (net.Conn, error) {
	d := net.Dialer{Timeout: DialTimeout}
	conn, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	if tcp, ok := conn.(*net.TCPConn); ok {
		if err := tcp.SetNoDelay(true); err != nil {
			conn.Close()
			return nil, err
		}
	}
	return conn, nil
}
