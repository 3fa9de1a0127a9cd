package calibrate

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Client is another program to compare with ttftlab. It is run as
//
//	COMMAND... URL ARRIVALS_FILE
//
// must send one request to URL, read the stream to the end, and write one
// line per content chunk to ARRIVALS_FILE: the chunk's index (from 1)
// and CLOCK_MONOTONIC nanoseconds when it had the chunk (see stamps.go).
type Client struct {
	Name    string
	Command []string
}

// ParseClient reads NAME=COMMAND, the command split at spaces (no
// quoting), e.g. "python=python3 bench/pyclient.py".
func ParseClient(s string) (Client, error) {
	name, cmd, ok := strings.Cut(s, "=")
	fields := strings.Fields(cmd)
	if !ok || strings.TrimSpace(name) == "" || len(fields) == 0 {
		return Client{}, fmt.Errorf("client %q: want NAME=COMMAND, e.g. python=\"python3 bench/pyclient.py\"", s)
	}
	return Client{Name: strings.TrimSpace(name), Command: fields}, nil
}

// clientTimeout bounds an external client's run beyond the schedule.
const clientTimeout = 60 * time.Second

// outputLimit is how much of a failing client's output goes into the
// report.
const outputLimit = 2000

// runExternal runs c against url and returns its arrival stamps and its
// whole-process CPU time (interpreter start-up included).
func runExternal(ctx context.Context, c Client, url, dir string, request int, s Schedule) ([]int64, float64, error) {
	path := filepath.Join(dir, fmt.Sprintf("arrivals-%d-%s.tsv", request, safeName(c.Name)))
	ctx, cancel := context.WithTimeout(ctx, s.Duration()+clientTimeout)
	defer cancel()
	args := append(append([]string{}, c.Command[1:]...), url, path)
	cmd := exec.CommandContext(ctx, c.Command[0], args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	cpuMs := 0.0
	if cmd.ProcessState != nil {
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			cpuMs = float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e6
		}
	}
	if err != nil {
		return nil, cpuMs, fmt.Errorf("client %s (%s) failed: %v; its output: %s",
			c.Name, strings.Join(c.Command, " "), err, clip(out.String(), outputLimit))
	}
	arrive, err := ReadArrivals(path)
	if err != nil {
		return nil, cpuMs, fmt.Errorf("client %s: %w", c.Name, err)
	}
	return arrive, cpuMs, nil
}

// safeName keeps a client name usable in a file name.
func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == ' ' || r == filepath.Separator {
			return '_'
		}
		return r
	}, s)
}

func clip(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}
