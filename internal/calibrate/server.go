package calibrate

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"ttftlab/internal/monoclock"
)

// Server answers every request with the schedule's stream, one connection
// at a time (a second client waits in the listen queue, so two streams
// never share the CPU), and appends each request's send stamps to a file.
type Server struct {
	Schedule Schedule
	// StampsPath receives every request's send stamps (see stamps.go),
	// written before data: [DONE], so a client that has seen [DONE]
	// finds its stamps complete.
	StampsPath string
	// FirstRequest numbers the first request (0 means 1); later ones count
	// up from it.
	FirstRequest int
	// Log receives one line per request; nil for none.
	Log io.Writer
	// TLS, when set, makes the server speak https: the handshake comes
	// before the request is read, so it is outside every stamp.
	TLS *tls.Config

	served int
}

const (
	requestTimeout = 10 * time.Second // to read a request
	stallTimeout   = 30 * time.Second // beyond the schedule, for a client that stops reading
)

// Serve accepts connections until ctx ends or ln fails.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	if err := s.Schedule.Validate(); err != nil {
		return err
	}
	stop := context.AfterFunc(ctx, func() { ln.Close() })
	defer stop()
	for {
		conn, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return nil
			}
			return fmt.Errorf("calibration server on %s: accept: %w", ln.Addr(), err)
		}
		s.served++
		s.handle(conn, max(s.FirstRequest, 1)+s.served-1)
	}
}

// Scheme is the server's URL scheme: http, or https with TLS.
func (s *Server) Scheme() string {
	if s.TLS != nil {
		return "https"
	}
	return "http"
}

// handle serves one connection and logs how it went.
func (s *Server) handle(conn net.Conn, request int) {
	defer conn.Close()
	if s.TLS != nil {
		tc := tls.Server(conn, s.TLS)
		tc.SetDeadline(time.Now().Add(requestTimeout))
		err := tc.Handshake()
		tc.SetDeadline(time.Time{})
		if err != nil {
			// Like an unreadable request: a record, so the numbering holds.
			appendStamps(s.StampsPath, request, s.Schedule, []int64{0})
			if s.Log != nil {
				fmt.Fprintf(s.Log, "request %d: TLS handshake: %v\n", request, err)
			}
			return
		}
		conn = tc
	}
	sent, err := s.answer(conn, request)
	if s.Log == nil {
		return
	}
	if err != nil {
		fmt.Fprintf(s.Log, "request %d: %d of %d chunks sent: %v\n", request, sent, s.Schedule.Chunks, err)
		return
	}
	fmt.Fprintf(s.Log, "request %d: %d chunks sent (%s)\n", request, sent, s.Schedule.Name())
}

// answer reads the request and streams the schedule; it returns how many
// content chunks were written.
//
// Every connection leaves a record in the stamps file, even one whose
// request could not be read (its chunk 0 is then 0), so whoever numbers
// the requests can tell which ones reached the server.
func (s *Server) answer(conn net.Conn, request int) (int, error) {
	stamps := make([]int64, s.Schedule.Chunks+1)
	sent, err := s.respond(conn, stamps)
	werr := appendStamps(s.StampsPath, request, s.Schedule, stamps[:sent+1])
	if err != nil {
		return sent, err
	}
	if werr != nil {
		return sent, werr
	}
	sentMs := float64(stamps[sent]-stamps[0]) / 1e6
	end := append(frame(nil, finalEvent(sent, sentMs), []byte(doneEvent)), endOfBody...)
	_, err = conn.Write(end)
	return sent, err
}

// respond reads the request and streams the schedule.
func (s *Server) respond(conn net.Conn, stamps []int64) (int, error) {
	if err := readRequest(conn); err != nil {
		return 0, err
	}
	conn.SetWriteDeadline(time.Now().Add(s.Schedule.Duration() + stallTimeout))
	stop := startPacing()
	defer stop()
	return s.stream(conn, stamps)
}

// readRequest consumes one HTTP request, body included (unread bytes
// would turn the final close into a reset).
func readRequest(conn net.Conn) error {
	conn.SetReadDeadline(time.Now().Add(requestTimeout))
	defer conn.SetReadDeadline(time.Time{})
	req, err := http.ReadRequest(bufio.NewReader(conn))
	if err != nil {
		return fmt.Errorf("reading the request: %w", err)
	}
	_, err = io.Copy(io.Discard, req.Body)
	return err
}

// stream writes the headers with the role chunk, then the content on
// schedule. stamps[0] is when the headers were written, stamps[i] when
// the write carrying chunk i began: CLOCK_MONOTONIC read right before the
// write, nothing in between. The clock is read by system call (Sys), as
// for every calibration figure in docs/BENCHMARKS.md: read through the
// vDSO instead, the median stamp error fell at 1,000 chunks/s and rose
// at 20,000 (docs/BENCHMARKS-log.md, "The paced server's send stamps
// through the vDSO"), so the figures would no longer compare with the ones before.
func (s *Server) stream(conn net.Conn, stamps []int64) (sent int, err error) {
	sch := s.Schedule
	b := sch.burstSize()
	head := append([]byte(responseHead), frame(nil, []byte(roleEvent))...)
	stamps[0] = monoclock.Sys()
	if _, err := conn.Write(head); err != nil {
		return 0, err
	}
	gap := sch.Gap().Nanoseconds()
	buf := make([]byte, 0, b*len(contentEvent(1))*2+32)
	for w := 0; w < sch.Writes(); w++ {
		first, last := w*b+1, min((w+1)*b, sch.Chunks)
		buf = frameContent(buf, first, last)
		if gap > 0 {
			sleepUntil(stamps[0] + int64(w+1)*gap)
		}
		at := monoclock.Sys()
		if _, err := conn.Write(buf); err != nil {
			return sent, err
		}
		for i := first; i <= last; i++ {
			stamps[i] = at
		}
		sent = last
	}
	return sent, nil
}
