package stream

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Events shaped like llama-server's.
func roleEvent() string {
	return `data: {"choices":[{"finish_reason":null,"index":0,"delta":{"role":"assistant","content":null}}],"created":1,"id":"c1","model":"m","object":"chat.completion.chunk"}` + "\n\n"
}

func contentEvent(text string) string {
	return fmt.Sprintf(`data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":%q}}],"created":1,"id":"c1","model":"m","object":"chat.completion.chunk"}`+"\n\n", text)
}

func finalEvent(reason string) string {
	return `data: {"choices":[{"finish_reason":"` + reason + `","index":0,"delta":{}}],"created":1,"id":"c1","model":"m","object":"chat.completion.chunk",` +
		`"timings":{"cache_n":0,"prompt_n":12,"prompt_ms":3.5,"predicted_n":3,"predicted_ms":1.2}}` + "\n\n"
}

const doneEvent = "data: [DONE]\n\n"

// sseHeaders starts an event-stream answer.
func sseHeaders(w http.ResponseWriter) http.Flusher {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	f := w.(http.Flusher)
	f.Flush()
	return f
}

// scripted answers with the given writes, flushing and pausing after each,
// and records everything it sent.
type scripted struct {
	parts []string
	pause time.Duration

	mu   sync.Mutex
	sent strings.Builder
}

func (s *scripted) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f := sseHeaders(w)
	for _, p := range s.parts {
		// Recorded before writing: the client may finish before this
		// handler runs again.
		s.mu.Lock()
		s.sent.WriteString(p)
		s.mu.Unlock()
		if _, err := w.Write([]byte(p)); err != nil {
			return
		}
		f.Flush()
		time.Sleep(s.pause)
	}
}

func (s *scripted) sentBytes() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sent.String()
}

// endless sends a content chunk every pause until the client goes away,
// then closes gone.
type endless struct {
	pause time.Duration
	gone  chan struct{}
}

func newEndless(pause time.Duration) *endless {
	return &endless{pause: pause, gone: make(chan struct{})}
}

func (e *endless) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer close(e.gone)
	io.Copy(io.Discard, r.Body) // lets the server notice the client leaving
	f := sseHeaders(w)
	w.Write([]byte(roleEvent()))
	f.Flush()
	for i := 0; ; i++ {
		select {
		case <-r.Context().Done():
			return
		case <-time.After(e.pause):
		}
		w.Write([]byte(contentEvent(fmt.Sprintf(" t%d", i))))
		f.Flush()
	}
}

// waitGone fails the test when the handler has not seen the client leave.
func (e *endless) waitGone(t *testing.T) {
	t.Helper()
	select {
	case <-e.gone:
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not notice the closed connection")
	}
}

// rawServer accepts one connection at a time and lets fn write whatever it
// likes to it, bypassing net/http, to misbehave at the byte level.
func rawServer(t *testing.T, fn func(c net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				readRequest(c)
				fn(c)
			}()
		}
	}()
	return "http://" + ln.Addr().String()
}

// readRequest consumes a request's head and a small body, so the client's
// write completes before the script answers.
func readRequest(c net.Conn) {
	buf := make([]byte, 64<<10)
	c.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	for {
		n, err := c.Read(buf)
		if err != nil || strings.Contains(string(buf[:n]), "}") {
			break
		}
	}
	c.SetReadDeadline(time.Time{})
}

// closedPort returns an address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr
}

func chatBody() []byte {
	b, err := EncodeBody(map[string]any{
		"messages": []any{map[string]any{"role": "user", "content": "Tell a story <3 & more"}},
		"stream":   true,
	})
	if err != nil {
		panic(err)
	}
	return b
}

func newServer(t testing.TB, h http.Handler) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// wires are the ways Do can read an answer; tests of the wire run on each
// (off Linux the raw-socket ones fall back to net/http).
var wires = []Wire{WireEpoll, WireThread, WireNetHTTP}

// eachWire runs test on every wire.
func eachWire(t *testing.T, test func(t *testing.T, w Wire)) {
	for _, w := range wires {
		t.Run(w.String(), func(t *testing.T) { test(t, w) })
	}
}
