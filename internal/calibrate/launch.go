package calibrate

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Launcher starts a calibration server for one schedule, numbering its
// requests from firstRequest and appending send stamps to stampsPath. It
// returns the server's base URL and a function that stops it.
type Launcher func(ctx context.Context, s Schedule, stampsPath string, firstRequest int) (url string, stop func() error, err error)

// InProcess runs the server in this process: simplest, but its CPU time
// and allocations then count as the client's, and its pacing thread
// competes with the client's goroutines inside one Go scheduler.
func InProcess(ctx context.Context, s Schedule, stampsPath string, firstRequest int) (string, func() error, error) {
	return inProcess(ctx, s, stampsPath, firstRequest, nil)
}

// inProcess serves s in this process, over https when conf is set.
func inProcess(ctx context.Context, s Schedule, stampsPath string, firstRequest int, conf *tls.Config) (string, func() error, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, fmt.Errorf("calibration server: cannot listen on loopback: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	srv := &Server{Schedule: s, StampsPath: stampsPath, FirstRequest: firstRequest, TLS: conf}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	stop := func() error {
		cancel()
		return <-done
	}
	return srv.Scheme() + "://" + ln.Addr().String(), stop, nil
}

// Child runs the server as a separate process, started as
//
//	command... --serve 127.0.0.1:0 --rate R --chunks N --burst --burst-size B --stamps FILE --first-request K
//
// (command is e.g. the ttftlab binary and "calibrate"); the process must
// print its URL on the first line of its standard output and stop on
// SIGTERM. A process of its own keeps the server's CPU time, allocations
// and scheduling out of the client's figures.
func Child(command []string) Launcher {
	return func(ctx context.Context, s Schedule, stampsPath string, firstRequest int) (string, func() error, error) {
		args := append(append([]string{}, command[1:]...), "--serve", "127.0.0.1:0",
			"--rate", strconv.FormatFloat(s.Rate, 'g', -1, 64), "--chunks", strconv.Itoa(s.Chunks),
			"--burst", "--burst-size", strconv.Itoa(s.burstSize()), "--stamps", stampsPath,
			"--first-request", strconv.Itoa(firstRequest))
		cmd := exec.Command(command[0], args...)
		var errOut tailBuffer
		cmd.Stderr = &errOut
		out, err := cmd.StdoutPipe()
		if err != nil {
			return "", nil, err
		}
		if err := cmd.Start(); err != nil {
			return "", nil, fmt.Errorf("cannot start the calibration server %s: %w", command[0], err)
		}
		stop := func() error { return stopChild(cmd) }
		url, err := readURL(out)
		if err != nil {
			stop()
			return "", nil, fmt.Errorf("calibration server (%s): %w; its errors: %s", strings.Join(cmd.Args, " "), err, errOut.String())
		}
		go io.Copy(io.Discard, out)
		return url, stop, nil
	}
}

// readURL reads the first line the child prints and finds its URL.
func readURL(r io.Reader) (string, error) {
	line, err := bufio.NewReader(r).ReadString('\n')
	for _, f := range strings.Fields(line) {
		if strings.HasPrefix(f, "http://") || strings.HasPrefix(f, "https://") {
			return f, nil
		}
	}
	if err == nil {
		err = errors.New("no http:// or https:// URL in it")
	}
	return "", fmt.Errorf("did not announce its address (first line %q): %v", strings.TrimSpace(line), err)
}

// stopChild asks the server to stop, then kills it if it does not within
// a few seconds.
func stopChild(cmd *exec.Cmd) error {
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(5 * time.Second):
		cmd.Process.Kill()
		<-done
		return fmt.Errorf("the calibration server (pid %d) did not stop on SIGTERM and was killed", cmd.Process.Pid)
	}
}

// tailBuffer keeps the last bytes written to it, for error messages about
// a child process; safe for the goroutine exec copies with.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > outputLimit {
		t.buf = t.buf[len(t.buf)-outputLimit:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.buf))
}
