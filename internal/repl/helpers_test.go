package repl

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"ttftlab/runtime"
)

// syncBuffer is a bytes.Buffer safe to read while a session writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// piped is a session reading from a pipe, as `ttftlab repl < file` does.
type piped struct {
	cfg      Config
	out, err *syncBuffer
}

func newPiped(t *testing.T, server string) *piped {
	t.Helper()
	p := &piped{out: &syncBuffer{}, err: &syncBuffer{}}
	vm, err := runtime.New(context.Background(), runtime.Config{
		Server: server, Out: filepath.Join(t.TempDir(), "out"), Stdout: p.out, Stderr: p.err,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(vm.Close)
	p.cfg = Config{VM: vm, Out: p.out, Err: p.err}
	return p
}

// run feeds input and returns the exit code.
func (p *piped) run(input string) int {
	p.cfg.In = strings.NewReader(input)
	return Run(p.cfg)
}

// runPiped runs one session without a server.
func runPiped(t *testing.T, input string) (code int, stdout, stderr string) {
	t.Helper()
	p := newPiped(t, "http://127.0.0.1:1")
	code = p.run(input)
	return code, p.out.String(), p.err.String()
}

func mustContain(t *testing.T, what, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Fatalf("%s lacks %q:\n%s", what, w, got)
		}
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
