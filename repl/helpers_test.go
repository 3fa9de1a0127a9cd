package repl

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

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

// fakeServer streams pieces like llama-server, delay apart. reached, when
// set, is closed once `after` pieces were sent. gone is closed when the
// client hung up early.
type fakeServer struct {
	pieces  []string
	delay   time.Duration
	after   int
	reached chan struct{}
	gone    chan struct{}
	once    sync.Once
}

func newFakeServer(t *testing.T, f *fakeServer) string {
	t.Helper()
	f.gone = make(chan struct{})
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return srv.URL
}

func (f *fakeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	w.Header().Set("Content-Type", "text/event-stream")
	send := func(s string) {
		io.WriteString(w, s)
		w.(http.Flusher).Flush()
	}
	send(`data: {"choices":[{"delta":{"role":"assistant","content":null},"finish_reason":null,"index":0}]}` + "\n\n")
	for i, p := range f.pieces {
		if i == f.after && f.reached != nil {
			close(f.reached)
		}
		select {
		case <-r.Context().Done():
			f.once.Do(func() { close(f.gone) })
			return
		case <-time.After(f.delay):
		}
		q, _ := json.Marshal(p)
		send(`data: {"choices":[{"delta":{"content":` + string(q) + `},"finish_reason":null,"index":0}]}` + "\n\n")
	}
	send(`data: {"choices":[{"delta":{},"finish_reason":"stop","index":0}],"timings":{"cache_n":4,"prompt_n":11,"prompt_ms":1.5,"predicted_n":` +
		jsonInt(len(f.pieces)) + `}}` + "\n\n")
	send("data: [DONE]\n\n")
}

func jsonInt(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
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
