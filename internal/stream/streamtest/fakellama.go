// Package streamtest serves answers shaped like llama-server's streamed
// chat completions, for tests of code that reads them.
package streamtest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// FakeLlama answers GET /health as llama-server does ({"status":"ok"}) and
// every other request the way llama-server streams: a role
// event, one content event per piece (Delay apart), a final event with
// finish_reason and timings (cache_n 4, prompt_n 11, prompt_ms 1.5,
// predicted_n = the number of pieces), then [DONE]. It records request
// bodies and every byte sent, and notices when a client hangs up early.
type FakeLlama struct {
	Pieces []string
	Delay  time.Duration
	// Usage adds a usage chunk (choices: []) before [DONE].
	Usage bool
	// MidError ends the stream with an error event after the pieces, and
	// no [DONE], as llama-server does.
	MidError bool
	// Reached, when set, is closed once After pieces were sent.
	After   int
	Reached chan struct{}

	mu     sync.Mutex
	bodies []string
	sent   strings.Builder
	gone   chan struct{}
	once   sync.Once
}

// Start serves f until the test ends and returns its base URL.
func (f *FakeLlama) Start(t testing.TB) string {
	t.Helper()
	f.gone = make(chan struct{})
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return srv.URL
}

func (f *FakeLlama) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && r.URL.Path == "/health" {
		// As llama-server answers it: a health probe is not a stream, and
		// one that streamed as long as a long answer would be taken for a
		// server that never answers.
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"status":"ok"}`)
		return
	}
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.bodies = append(f.bodies, string(body))
	f.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	send := func(s string) {
		// Recorded before writing: the client may read the last bytes and
		// the test compare before this handler runs again.
		f.mu.Lock()
		f.sent.WriteString(s)
		f.mu.Unlock()
		if _, err := io.WriteString(w, s); err == nil {
			w.(http.Flusher).Flush()
		}
	}
	send(`data: {"choices":[{"delta":{"role":"assistant","content":null},"finish_reason":null,"index":0}],"object":"chat.completion.chunk"}` + "\n\n")
	for i, p := range f.Pieces {
		if i == f.After && f.Reached != nil {
			close(f.Reached)
		}
		select {
		case <-r.Context().Done():
			f.once.Do(func() { close(f.gone) })
			return
		case <-time.After(f.Delay):
		}
		q, _ := json.Marshal(p)
		send(`data: {"choices":[{"delta":{"content":` + string(q) + `},"finish_reason":null,"index":0}],"object":"chat.completion.chunk"}` + "\n\n")
	}
	if f.MidError {
		send(`data: {"error":{"code":500,"message":"slot failed","type":"server_error"}}` + "\n\n")
		return
	}
	n, _ := json.Marshal(len(f.Pieces))
	send(`data: {"choices":[{"delta":{},"finish_reason":"stop","index":0}],"timings":{"cache_n":4,"prompt_n":11,"prompt_ms":1.5,"predicted_n":` + string(n) + `}}` + "\n\n")
	if f.Usage {
		send(`data: {"choices":[],"usage":{"prompt_tokens":11,"completion_tokens":3}}` + "\n\n")
	}
	send("data: [DONE]\n\n")
}

// Bodies returns the request bodies received so far.
func (f *FakeLlama) Bodies() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.bodies...)
}

// LastBody decodes the last request body.
func (f *FakeLlama) LastBody(t testing.TB) map[string]any {
	t.Helper()
	bodies := f.Bodies()
	if len(bodies) == 0 {
		t.Fatal("the server got no request")
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(bodies[len(bodies)-1]), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// Sent is every byte written to clients so far.
func (f *FakeLlama) Sent() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sent.String()
}

// Gone is closed when a client hung up before the answer ended.
func (f *FakeLlama) Gone() <-chan struct{} { return f.gone }

// WaitGone fails the test unless a client hangs up early within 10 s.
func (f *FakeLlama) WaitGone(t testing.TB) {
	t.Helper()
	select {
	case <-f.gone:
	case <-time.After(10 * time.Second):
		t.Fatal("the server never saw the connection close")
	}
}
