package wire

import (
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// Linux timestamps received packets only while some socket asks for it,
// and the first socket to ask (after none did) only schedules the switch:
// a kernel worker flips it later, which on a busy CPU can take long
// enough for a whole stream to arrive unstamped. So the first raw-path
// request of the process turns it on with a socket of its own, waits until
// a packet on loopback comes back stamped, and keeps that socket open for
// the process's life, so that later streams' own requests take effect at
// once. The cost is one descriptor and a clock read per received packet.

// primeWait bounds the wait for the switch; past it the streams go on and
// their reads keep their own stamps until it happens.
const primeWait = time.Second

var kernelStampsOn struct {
	once sync.Once
	fd   int // the socket that keeps them on; -1 if priming failed
}

// primeKernelStamps makes sure received packets are being stamped.
func primeKernelStamps() {
	kernelStampsOn.once.Do(func() { kernelStampsOn.fd = prime() })
}

// prime opens a loopback TCP pair, asks for stamps on its receiving end
// and sends bytes across until one arrives stamped (or primeWait passes).
// It returns the receiving end, which stays open.
func prime() int {
	ln, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1
	}
	defer unix.Close(ln)
	loop := &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}
	if unix.Bind(ln, loop) != nil || unix.Listen(ln, 1) != nil {
		return -1
	}
	addr, err := unix.Getsockname(ln)
	if err != nil {
		return -1
	}
	cl, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1
	}
	defer unix.Close(cl)
	if unix.Connect(cl, addr) != nil {
		return -1
	}
	sv, _, err := unix.Accept4(ln, unix.SOCK_CLOEXEC)
	if err != nil {
		return -1
	}
	if unix.SetsockoptInt(sv, unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1) != nil || !stampedSoon(cl, sv) {
		unix.Close(sv)
		return -1
	}
	return sv
}

// stampedSoon sends one byte at a time from cl to sv until sv receives one
// with a kernel stamp.
func stampedSoon(cl, sv int) bool {
	buf := make([]byte, 16)
	oob := make([]byte, 64)
	for deadline := time.Now().Add(primeWait); time.Now().Before(deadline); time.Sleep(200 * time.Microsecond) {
		if _, err := unix.Write(cl, []byte{1}); err != nil {
			return false
		}
		_, oobn, _, _, err := unix.Recvmsg(sv, buf, oob, 0)
		if err != nil {
			return false
		}
		if _, ok := kernelStamp(oob[:oobn]); ok {
			return true
		}
	}
	return false
}
