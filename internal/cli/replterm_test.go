package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// TestReplChildProcess is not a test of its own: with TTFTLAB_REPL_CHILD=1
// it runs ttftlab's command line (the arguments after "--") on the
// process's own standard streams, a pseudo-terminal or pipes set up by the
// tests below, and exits with its code.
func TestReplChildProcess(t *testing.T) {
	if os.Getenv("TTFTLAB_REPL_CHILD") != "1" {
		t.Skip("runs only as the child process of the repl tests")
	}
	args := os.Args
	for i, a := range args {
		if a == "--" {
			args = args[i+1:]
			break
		}
	}
	os.Exit(Main(context.Background(), args, OS()))
}

// childCommand runs ttftlab ARGS in a child process with a private state
// folder (history).
func childCommand(state string, args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], append([]string{"-test.run=^TestReplChildProcess$", "--"}, args...)...)
	cmd.Env = append(os.Environ(), "TTFTLAB_REPL_CHILD=1", "TERM=xterm", "TTFTLAB_STATE="+state)
	return cmd
}

// termSession is ttftlab running on a pseudo-terminal, as a person at a
// terminal runs it.
type termSession struct {
	t    *testing.T
	cmd  *exec.Cmd
	ptmx *os.File // our end
	tty  *os.File // the child's terminal, kept open to read its mode
	mu   sync.Mutex
	out  bytes.Buffer // everything the child wrote
	mark int          // expect searches after this offset
	read chan struct{}
}

func startTerm(t *testing.T, state string, args ...string) *termSession {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatalf("opening a pseudo-terminal: %v", err)
	}
	if err := pty.Setsize(ptmx, &pty.Winsize{Rows: 50, Cols: 200}); err != nil {
		t.Fatal(err)
	}
	cmd := childCommand(state, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	// A session of its own with the terminal as controlling terminal, so
	// Ctrl-C typed there becomes its SIGINT.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &termSession{t: t, cmd: cmd, ptmx: ptmx, tty: tty, read: make(chan struct{})}
	go func() {
		defer close(s.read)
		buf := make([]byte, 4096)
		for {
			n, err := ptmx.Read(buf)
			s.mu.Lock()
			s.out.Write(buf[:n])
			s.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
		ptmx.Close()
		tty.Close()
		if t.Failed() {
			t.Logf("terminal output:\n%s", s.text())
		}
	})
	return s
}

// csi matches terminal control sequences, which line editing writes
// between the characters.
var csi = regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]`)

// text is the output so far without control sequences.
func (s *termSession) text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return csi.ReplaceAllString(s.out.String(), "")
}

// raw is the output so far as written.
func (s *termSession) raw() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.out.String()
}

// send types keys.
func (s *termSession) send(keys string) {
	s.t.Helper()
	if _, err := io.WriteString(s.ptmx, keys); err != nil {
		s.t.Fatalf("typing %q: %v", keys, err)
	}
}

// expect waits until want appears after the last match and returns the
// output between the two.
func (s *termSession) expect(want string, limit time.Duration) string {
	s.t.Helper()
	_, before := s.expectAny(limit, want)
	return before
}

// expectAny waits until one of wants appears after the last match and
// returns the first to appear and the output before it.
func (s *termSession) expectAny(limit time.Duration, wants ...string) (string, string) {
	s.t.Helper()
	deadline := time.Now().Add(limit)
	for {
		all := s.text()
		start := min(s.mark, len(all))
		best, at := "", -1
		for _, w := range wants {
			if i := strings.Index(all[start:], w); i >= 0 && (at < 0 || i < at) {
				best, at = w, i
			}
		}
		if at >= 0 {
			s.mark = start + at + len(best)
			return best, all[start : start+at]
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("none of %q within %v; output since the last match:\n%s", wants, limit, all[start:])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// wait waits for the child to exit and returns its exit code.
func (s *termSession) wait(limit time.Duration) int {
	s.t.Helper()
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case <-done:
		return s.cmd.ProcessState.ExitCode()
	case <-time.After(limit):
		s.t.Fatalf("ttftlab repl still runs after %v", limit)
		return -1
	}
}

// requireCookedMode fails unless the terminal is back in its normal mode
// (echo and line editing by the kernel on), as liner found it.
func (s *termSession) requireCookedMode() {
	s.t.Helper()
	tio, err := unix.IoctlGetTermios(int(s.tty.Fd()), unix.TCGETS)
	if err != nil {
		s.t.Fatal(err)
	}
	if tio.Lflag&unix.ECHO == 0 || tio.Lflag&unix.ICANON == 0 || tio.Lflag&unix.ISIG == 0 {
		s.t.Fatalf("the terminal was left in raw mode (lflag %#o)", tio.Lflag)
	}
}

// requireRawMode fails unless line editing has the terminal (echo off).
func (s *termSession) requireRawMode() {
	s.t.Helper()
	tio, err := unix.IoctlGetTermios(int(s.tty.Fd()), unix.TCGETS)
	if err != nil {
		s.t.Fatal(err)
	}
	if tio.Lflag&unix.ECHO != 0 {
		s.t.Fatalf("echo is on: line editing does not have the terminal")
	}
}
