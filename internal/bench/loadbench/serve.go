package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"ttftlab/internal/monoclock"
)

// serve answers every connection with one stream of chunks content chunks
// at rate per second, each carrying its send time as text.
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
	w := bufio.NewWriterSize(c, 4096)
	fmt.Fprint(w, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n")
	fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\",\"content\":null},\"index\":0}]}\n\n")
	w.Flush()
	start := time.Now()
	var line []byte
	for i := 1; i <= chunks; i++ {
		time.Sleep(time.Until(start.Add(time.Duration(i) * gap)))
		line = append(line[:0], `data: {"choices":[{"delta":{"content":"`...)
		line = strconv.AppendInt(line, monoclock.Now(), 10)
		line = append(line, `"},"finish_reason":null,"index":0}]}`+"\n\n"...)
		if _, err := c.Write(line); err != nil {
			return
		}
	}
	fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"length\",\"index\":0}]}\n\ndata: [DONE]\n\n")
	w.Flush()
}
