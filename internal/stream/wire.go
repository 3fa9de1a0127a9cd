package stream

import (
	"fmt"
	"net/url"

	"ttftlab/internal/wire"
)

// Wire chooses how Do reads the answer. The zero value takes the most exact
// way the platform and the URL allow; the others exist so that the ways can
// be measured against each other (ttftlab calibrate --wire).
type Wire uint8

const (
	// WireAuto is WireEpoll where it works (Linux, http:// and https://),
	// else WireNetHTTP.
	WireAuto Wire = iota
	// WireEpoll is ttftlab's own HTTP/1.1 client on a raw socket: one
	// locked OS thread of the process waits in epoll_wait for every open
	// stream and reads and stamps a socket as soon as it is readable, with
	// the kernel's receive timestamp when the kernel gives one.
	WireEpoll
	// WireThread is the same client with a locked OS thread of the
	// stream's own blocking in recvmsg.
	WireThread
	// WireNetHTTP is net/http on Go's netpoller, with a reader goroutine
	// that stamps each read (every platform but Linux).
	WireNetHTTP
)

var wireNames = [...]string{"auto", "epoll", "thread", "go-netpoll"}

func (w Wire) String() string {
	if int(w) < len(wireNames) {
		return wireNames[w]
	}
	return "unknown"
}

// ParseWire reads a Wire's name: auto, epoll, thread or go-netpoll.
func ParseWire(s string) (Wire, error) {
	for i, n := range wireNames {
		if s == n {
			return Wire(i), nil
		}
	}
	return WireAuto, fmt.Errorf("unknown wire %q: want auto, epoll, thread or go-netpoll", s)
}

// choose is the wire a request to u takes: the raw-socket client serves
// http:// and https:// (crypto/tls over its reads) where the platform has
// it.
func (w Wire) choose(u *url.URL, opt options) Wire {
	if !wire.Supported || w == WireNetHTTP {
		return WireNetHTTP
	}
	if w == WireThread {
		return WireThread
	}
	return WireEpoll
}
