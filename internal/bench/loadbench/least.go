package main

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"sync"
	"time"

	"ttftlab/internal/monoclock"
)

// runLeast is the least work a Go client can do per chunk: one
// goroutine per stream reading its socket through Go's netpoller, the
// clock read after each Read, and only the send stamps picked out of the
// bytes (no HTTP parsing, no SSE, no JSON, nothing kept but the stamps).
// Its CPU time per chunk is what the kernel's receive path and Go's
// scheduler cost on this machine, the floor under any client's figure.
func runLeast(rawURL string, streams int) (clientRun, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return clientRun{}, err
	}
	lines := make([][]string, streams)
	errs := make([]error, streams)
	var wg sync.WaitGroup
	cpuBefore := cpuSeconds()
	start := time.Now()
	for i := range streams {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lines[i], errs[i] = leastStream(u.Host)
		}()
	}
	wg.Wait()
	wall := time.Since(start).Seconds()
	cpu := cpuSeconds() - cpuBefore
	var all []string
	for i := range streams {
		if errs[i] != nil {
			return clientRun{}, errs[i]
		}
		all = append(all, lines[i]...)
	}
	return clientRun{lines: all, cpuS: cpu, wallS: wall, heapB: -1}, nil
}

var contentKey = []byte(`"content":"`)

// leastStream reads one stream and returns "send arrival" lines, in ns.
func leastStream(host string) ([]string, error) {
	c, err := net.Dial("tcp", host)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	if _, err := io.WriteString(c, request(host)); err != nil {
		return nil, err
	}
	var out []string
	buf := make([]byte, 64<<10)
	for {
		n, err := c.Read(buf)
		at := monoclock.Now()
		out = sendStamps(out, buf[:n], at)
		if err != nil {
			return out, nil
		}
	}
}

// request is what every Go client of the harness sends.
func request(host string) string {
	const body = `{"messages":[{"role":"user","content":"x"}],"stream":true}`
	return fmt.Sprintf("POST /v1/chat/completions HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", host, len(body), body)
}

// sendStamps appends "send arrival" for each content chunk's send stamp
// in b.
func sendStamps(out []string, b []byte, at int64) []string {
	for {
		i := bytes.Index(b, contentKey)
		if i < 0 {
			return out
		}
		b = b[i+len(contentKey):]
		j := bytes.IndexByte(b, '"')
		if j < 0 {
			return out
		}
		if _, err := strconv.ParseInt(string(b[:j]), 10, 64); err == nil {
			out = append(out, string(b[:j])+" "+strconv.FormatInt(at, 10))
		}
		b = b[j:]
	}
}
