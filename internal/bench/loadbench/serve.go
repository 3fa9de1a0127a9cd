package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sort"
	"strconv"
	"sync"
	"syscall"
	"time"
	"ttftlab/internal/interval"

	"ttftlab/internal/monoclock"
)

// serve answers every connection with one stream of chunks content chunks
// at rate per second, each carrying its send time as text. GET /report
// answers instead with the server's CPU time so far and how far behind
// their plan the content chunks of the streams that ended since the last
// GET /report were written (serverReport), and starts that count anew.
func serve(args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	rate := fs.Float64("rate", 20, "content chunks per second of each stream")
	chunks := fs.Int("chunks", 100, "content chunks per stream")
	addr := fs.String("addr", "127.0.0.1:0", "where to listen")
	if err := fs.Parse(args); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	fmt.Printf("http://%s\n", ln.Addr())
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() { <-ctx.Done(); ln.Close() }()
	gap := time.Duration(float64(time.Second) / *rate)
	for {
		c, err := ln.Accept()
		if err != nil {
			return nil
		}
		go stream(c, *chunks, gap)
	}
}

func stream(c net.Conn, chunks int, gap time.Duration) {
	defer c.Close()
	req, err := http.ReadRequest(bufio.NewReader(c))
	if err != nil {
		return
	}
	io.Copy(io.Discard, req.Body)
	if req.URL.Path == "/report" {
		body, _ := json.Marshal(writesLate.report())
		fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(body), body)
		return
	}
	w := bufio.NewWriterSize(c, 4096)
	fmt.Fprint(w, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n")
	fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\",\"content\":null},\"index\":0}]}\n\n")
	w.Flush()
	start := time.Now()
	var line []byte
	late := make([]float64, 0, chunks)
	defer func() { writesLate.add(late) }()
	for i := 1; i <= chunks; i++ {
		plan := start.Add(time.Duration(i) * gap)
		time.Sleep(time.Until(plan))
		late = append(late, float64(time.Since(plan).Microseconds()))
		line = append(line[:0], `data: {"choices":[{"delta":{"content":"`...)
		line = strconv.AppendInt(line, monoclock.Now(), 10)
		line = append(line, `"},"finish_reason":null,"index":0}]}`+"\n\n"...)
		if _, err := c.Write(line); err != nil {
			return
		}
	}
	writesLate.add(late) // before the end is written: a client that saw it finds it counted
	late = nil
	fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"length\",\"index\":0}]}\n\ndata: [DONE]\n\n")
	w.Flush()
}

// writesLate gathers, stream by stream, how late each content chunk's
// write was against its plan (the stream's start plus i gaps): a server
// that cannot keep up sends fewer chunks a second than it was asked to,
// and spares the client the load its figures claim.
var writesLate lateLog

type lateLog struct {
	mu sync.Mutex
	us []float64
}

func (l *lateLog) add(us []float64) {
	if len(us) == 0 {
		return
	}
	l.mu.Lock()
	l.us = append(l.us, us...)
	l.mu.Unlock()
}

// serverReport is GET /report's answer: the server's CPU time so far
// (getrusage, user + system), and how late the writes were, in µs.
type serverReport struct {
	CPUNs int64   `json:"cpu_ns"`
	N     int     `json:"n"`
	P50Us float64 `json:"p50_us"`
	P99Us float64 `json:"p99_us"`
	MaxUs float64 `json:"max_us"`
}

// report tells what was gathered and starts anew.
func (l *lateLog) report() serverReport {
	l.mu.Lock()
	us := l.us
	l.us = nil
	l.mu.Unlock()
	r := serverReport{CPUNs: int64(cpuSeconds() * 1e9), N: len(us)}
	if len(us) > 0 {
		sort.Float64s(us)
		r.P50Us, r.P99Us, r.MaxUs = interval.PercentileOf(us, 50), interval.PercentileOf(us, 99), us[len(us)-1]
	}
	return r
}
