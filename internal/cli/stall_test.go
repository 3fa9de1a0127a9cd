package cli

import (
	"bufio"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"ttftlab/internal/servers"
)

// stallFake is a server on a raw socket that takes connections and
// misbehaves as its mode says. It records the request lines it read.
type stallFake struct {
	ln    net.Listener
	mode  stallMode
	mu    sync.Mutex
	lines []string
	conns []net.Conn
}

// stallMode is how a stallFake misbehaves.
type stallMode int

const (
	neverAnswers stallMode = iota // reads the request and keeps the connection, silent
	endlessBody                   // answers a 200 event stream that never ends
	closesAtOnce                  // reads the request and closes the connection
	healthOnly                    // answers /health and /v1/models, holds every other request silent
)

func startStallFake(t *testing.T, mode stallMode) (*stallFake, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &stallFake{ln: ln, mode: mode}
	go f.serve()
	t.Cleanup(f.close)
	return f, "http://" + ln.Addr().String()
}

func (f *stallFake) serve() {
	for {
		c, err := f.ln.Accept()
		if err != nil {
			return
		}
		f.mu.Lock()
		f.conns = append(f.conns, c)
		f.mu.Unlock()
		go f.handle(c)
	}
}

func (f *stallFake) handle(c net.Conn) {
	req, err := http.ReadRequest(bufio.NewReader(c))
	if err != nil {
		return
	}
	f.mu.Lock()
	f.lines = append(f.lines, req.Method+" "+req.URL.Path)
	f.mu.Unlock()
	switch {
	case f.mode == healthOnly && req.URL.Path == "/health":
		c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 15\r\n\r\n{\"status\":\"ok\"}"))
		return
	case f.mode == healthOnly && req.URL.Path == "/v1/models":
		c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 22\r\n\r\n{\"data\":[{\"id\":\"m1\"}]}"))
		return
	}
	switch f.mode {
	case neverAnswers, healthOnly:
		return // the connection stays open, unanswered, until close
	case closesAtOnce:
		c.Close()
		return
	}
	if _, err := c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n")); err != nil {
		return
	}
	for {
		if _, err := c.Write([]byte(": keep-alive\n\n")); err != nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (f *stallFake) close() {
	f.ln.Close()
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range f.conns {
		c.Close()
	}
}

func (f *stallFake) requests() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.lines...)
}

// shortProbes makes the probe rounds of this test short, so a stalling
// server costs a fraction of a second.
func shortProbes(t *testing.T) {
	timeout, note := servers.ProbeTimeout, servers.NoteAfter
	servers.ProbeTimeout, servers.NoteAfter = 800*time.Millisecond, 100*time.Millisecond
	t.Cleanup(func() { servers.ProbeTimeout, servers.NoteAfter = timeout, note })
}

// TestRunStallingServer: a server that takes connections and never
// answers, or answers every path with a stream that never ends, is named
// as such after one short probe round (the console saying what it waits
// for meanwhile); no script request is sent to it.
// Fails before this change: three probes of 5 s each passed in silence,
// then the script's stream waited for its idle timeout (never-answering)
// or its --request-timeout (the endless stream).
func TestRunStallingServer(t *testing.T) {
	shortProbes(t)
	for _, c := range []struct {
		name string
		mode stallMode
		want string
	}{
		{"silent", neverAnswers, "but never answered GET /health within " + servers.ProbeTimeout.String()},
		{"endless", endlessBody, "but answered GET /health with HTTP 200 and a body that did not end within " + servers.ProbeTimeout.String()},
	} {
		t.Run(c.name, func(t *testing.T) {
			fake, url := startStallFake(t, c.mode)
			script := epScript(t, `stream({{role = "user", content = "hi"}})`)
			code, stdout, stderr := runCLI("run", script, "--server", url, "--out", t.TempDir(), "--request-timeout", "1m")
			t.Logf("run:\n%s%s", stdout, stderr)
			if code != 1 {
				t.Errorf("exit %d, want 1", code)
			}
			if !strings.Contains(stderr, "something accepts connections at "+url+" "+c.want) ||
				!strings.Contains(stderr, "does not answer as an LLM server") {
				t.Errorf("stderr does not name the stalling server (%q)", c.want)
			}
			if c.mode == neverAnswers && !strings.Contains(stderr, "waiting for "+url+" to answer GET /health") {
				t.Errorf("stderr does not say what ttftlab waits for")
			}
			for _, r := range fake.requests() {
				if strings.HasPrefix(r, "POST") {
					t.Errorf("the script's request was sent to the stalling server: %s", r)
				}
			}
		})
	}
}

// TestLabLoadOnATakenPort: lab and load on a port where something takes
// connections but never answers, or closes them unanswered, say that
// something is there but not an LLM server; they neither announce the
// synthetic model nor try to start llama-server on the taken port.
// Fails before this change: "no server answers at URL ... serving the
// SYNTHETIC model", then "port ... is already taken".
func TestLabLoadOnATakenPort(t *testing.T) {
	shortProbes(t)
	// A start would fail at once on this binary: nothing may get that far.
	t.Setenv("LLAMA_SERVER", filepath.Join(t.TempDir(), "no-llama-server"))
	for _, mode := range []struct {
		name string
		mode stallMode
		want string
	}{
		{"silent", neverAnswers, "but never answered GET /health within"},
		{"closes", closesAtOnce, "but closed the connection without answering GET /health"},
	} {
		for _, cmd := range [][]string{{"lab"}, {"load", "--duration", "1s", "--concurrency", "1"}} {
			t.Run(mode.name+"/"+cmd[0], func(t *testing.T) {
				fake, url := startStallFake(t, mode.mode)
				args := append(append([]string(nil), cmd...), "--server", url, "--out", t.TempDir())
				code, stdout, stderr := runCLI(args...)
				t.Logf("%s:\n%s%s", cmd[0], stdout, stderr)
				if code != 1 {
					t.Errorf("exit %d, want 1", code)
				}
				out := stdout + stderr
				if !strings.Contains(out, "something accepts connections at "+url+" "+mode.want) ||
					!strings.Contains(out, "does not answer as an LLM server") {
					t.Errorf("the output does not say something is there but not an LLM server (%q)", mode.want)
				}
				for _, wrong := range []string{"SYNTHETIC", "no server answers", "already taken", "llama-server"} {
					if strings.Contains(out, wrong) {
						t.Errorf("the output says %q", wrong)
					}
				}
				for _, r := range fake.requests() {
					if strings.HasPrefix(r, "POST") {
						t.Errorf("a request was sent to it: %s", r)
					}
				}
			})
		}
	}
}

// TestRunServerStallsPastHealth: a server that answers /health and
// /v1/models but holds every other GET gets one short round for the
// key check (/props) and one for the kind's paths, each saying what it
// waits for, and the kind line says they never answered.
// Fails before this change: the key check's GET /props waited its own
// 5 s in silence, and the kind line said only that none "answered as its
// server does".
func TestRunServerStallsPastHealth(t *testing.T) {
	shortProbes(t)
	_, url := startStallFake(t, healthOnly)
	script := epScript(t, `print("ran")`)
	code, stdout, stderr := runCLI("run", script, "--server", url, "--out", t.TempDir())
	t.Logf("run:\n%s%s", stdout, stderr)
	if code != 0 {
		t.Errorf("exit %d, want 0", code)
	}
	if !strings.Contains(stderr, "waiting for "+url+" to answer GET /props (at most") {
		t.Errorf("stderr does not say the key check waits for /props alone")
	}
	if !strings.Contains(stderr, "answered within "+servers.ProbeTimeout.String()+")") {
		t.Errorf("the kind line does not say the paths never answered")
	}
}
