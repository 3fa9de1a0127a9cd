package repl

import (
	"context"
	"os"
	"syscall"
	"testing"
)

// fakeInput records whether the terminal was restored.
type fakeInput struct{ closed int }

func (f *fakeInput) readLine(string) (string, error) { return "", nil }
func (f *fakeInput) remember(string)                 {}
func (f *fakeInput) Close() error                    { f.closed++; return nil }

func signalSession(t *testing.T, terminal bool) (*session, *fakeInput, *[]int) {
	p := newPiped(t, "http://127.0.0.1:1")
	var exits []int
	p.cfg.Terminal = terminal
	p.cfg.HardExit = func(code int) { exits = append(exits, code) }
	s := newSession(p.cfg)
	in := &fakeInput{}
	s.input = in
	return s, in, &exits
}

func TestSecondCtrlCExitsAtOnce(t *testing.T) {
	s, in, exits := signalSession(t, true)
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	s.onSignal(os.Interrupt)
	if ctx.Err() == nil || len(*exits) != 0 {
		t.Fatalf("the first Ctrl-C must cancel the statement only (exits %v)", *exits)
	}
	s.onSignal(os.Interrupt)
	if len(*exits) != 1 || (*exits)[0] != 130 || in.closed == 0 {
		t.Fatalf("the second Ctrl-C must restore the terminal and exit 130: exits %v, closed %d", *exits, in.closed)
	}
}

func TestCtrlCAtTheTerminalPromptIsIgnored(t *testing.T) {
	s, in, exits := signalSession(t, true)
	s.onSignal(os.Interrupt)
	if len(*exits) != 0 || in.closed != 0 {
		t.Fatalf("exits %v closed %d", *exits, in.closed)
	}
	// Reading a pipe, Ctrl-C ends the session.
	s, _, exits = signalSession(t, false)
	s.onSignal(os.Interrupt)
	if len(*exits) != 1 || (*exits)[0] != 130 {
		t.Fatalf("exits %v", *exits)
	}
}

func TestTerminateRestoresTheTerminal(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP} {
		s, in, exits := signalSession(t, true)
		s.onSignal(sig)
		if len(*exits) != 1 || (*exits)[0] != 128+int(sig) || in.closed == 0 {
			t.Fatalf("%v: exits %v, closed %d", sig, *exits, in.closed)
		}
	}
}
