// Command floorclient shows the floor of stamp error on a machine: a
// blocking read(2) on a plain socket and CLOCK_MONOTONIC read as soon as
// it returns, with no HTTP, SSE or JSON work at all. Whatever a real
// client adds sits on top of this. It only understands the calibration
// server's answers (it counts content events per read), so it serves
// `ttftlab calibrate --client floor=...` and nothing else.
//
//	floorclient URL ARRIVALS_FILE
package main

import (
	"bytes"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"syscall"

	"ttftlab/internal/monoclock"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: floorclient URL ARRIVALS_FILE")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "floorclient:", err)
		os.Exit(1)
	}
}

func run(rawURL, out string) error {
	fd, err := connect(rawURL)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	body := `{"stream":true}`
	req := fmt.Sprintf("POST /v1/chat/completions HTTP/1.1\r\nHost: calibrate\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	if _, err := syscall.Write(fd, []byte(req)); err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString("# floorclient arrivals: chunk index, CLOCK_MONOTONIC ns right after read(2)\n")
	buf := make([]byte, 1<<20)
	content := []byte(`"delta":{"content":"`)
	n := 0
	for {
		k, err := syscall.Read(fd, buf)
		at := monoclock.Now()
		if err != nil {
			return err
		}
		if k == 0 {
			return fmt.Errorf("the stream ended without data: [DONE]")
		}
		for range bytes.Count(buf[:k], content) {
			n++
			fmt.Fprintf(&b, "%d\t%d\n", n, at)
		}
		if bytes.Contains(buf[:k], []byte("data: [DONE]")) {
			return os.WriteFile(out, []byte(b.String()), 0o644)
		}
	}
}

// connect opens a blocking IPv4 TCP socket to the URL's host, with
// Nagle off, outside Go's netpoller.
func connect(rawURL string) (int, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return -1, err
	}
	addr, err := net.ResolveTCPAddr("tcp4", u.Host)
	if err != nil {
		return -1, err
	}
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		return -1, err
	}
	sa := &syscall.SockaddrInet4{Port: addr.Port}
	copy(sa.Addr[:], addr.IP.To4())
	if err := syscall.Connect(fd, sa); err != nil {
		syscall.Close(fd)
		return -1, fmt.Errorf("connect %s: %w", u.Host, err)
	}
	syscall.SetsockoptInt(fd, syscall.IPPROTO_TCP, syscall.TCP_NODELAY, 1)
	return fd, nil
}
