package stream

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// errorCase runs Do against a misbehaving server and checks the error.
type errorCase struct {
	name   string
	server func(t *testing.T) string // returns the base URL
	req    Request
	kind   Kind
	status int
	want   []string // substrings of the message
	check  func(t *testing.T, res *Result)
}

func handlerURL(h http.HandlerFunc) func(t *testing.T) string {
	return func(t *testing.T) string { return newServer(t, h).URL }
}

func scriptURL(parts ...string) func(t *testing.T) string {
	return func(t *testing.T) string { return newServer(t, &scripted{parts: parts}).URL }
}

func answer(status int, ctype, body string) func(t *testing.T) string {
	return handlerURL(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", ctype)
		w.WriteHeader(status)
		w.Write([]byte(body))
	})
}

// stall sends some events, then nothing until the client leaves.
func stall(parts ...string) func(t *testing.T) string {
	return handlerURL(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) // lets the server notice the client leaving
		f := sseHeaders(w)
		for _, p := range parts {
			w.Write([]byte(p))
		}
		f.Flush()
		<-r.Context().Done()
	})
}

// callerTerms are words only a caller knows: its command-line flags and
// Lua options.
var callerTerms = regexp.MustCompile(`--[a-z]|opts\.|_ms\b|stream\(\)`)

var errorCases = []errorCase{
	{
		name:   "nothing listening",
		server: closedPort,
		kind:   KindConnect,
		want:   []string{"nothing is listening", "connection refused"},
		// The package names no flag or option of its callers' (checked
		// for every case below); runtime adds those hints.
	},
	{
		name: "reset before headers",
		server: func(t *testing.T) string {
			return rawServer(t, func(c net.Conn) {})
		},
		kind: KindConnect,
		want: []string{"closed before response headers arrived"},
	},
	{
		name: "context too small",
		server: answer(400, "application/json",
			`{"error":{"code":400,"message":"request (5000 tokens) exceeds the available context size (4096 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":5000,"n_ctx":4096}}`),
		kind:   KindHTTP,
		status: 400,
		want:   []string{"HTTP 400", "exceed_context_size_error", "request (5000 tokens) exceeds", "the prompt (5000 tokens) exceeds the context (4096 tokens)", "fewer documents", "bigger -c"},
	},
	{
		name:   "context too small, old wording",
		server: answer(400, "application/json", `{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error"}}`),
		kind:   KindHTTP,
		status: 400,
		want:   []string{"the prompt exceeds the server's context", "bigger -c"},
	},
	{
		name:   "loading",
		server: answer(503, "application/json", `{"error":{"message":"Loading model","type":"unavailable_error","code":503}}`),
		kind:   KindHTTP,
		status: 503,
		want:   []string{"HTTP 503", "Loading model", "/health"},
	},
	{
		name:   "error body is not JSON",
		server: answer(502, "text/html", "<html><body>Bad Gateway"+strings.Repeat(" filler", 100)+"</body></html>"),
		kind:   KindHTTP,
		status: 502,
		want:   []string{"HTTP 502 Bad Gateway", "the body starts", "<html><body>Bad Gateway", "bytes)"},
	},
	{
		name:   "server did not stream",
		server: answer(200, "application/json", `{"choices":[{"message":{"content":"all at once"}}]}`),
		kind:   KindNotStream,
		status: 200,
		want:   []string{"did not stream", `"application/json"`, `"stream": true`, "proxy", "all at once"},
	},
	{
		name: "compressed although no encoding was asked for",
		server: handlerURL(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.Header().Set("Content-Encoding", "gzip")
			w.Write([]byte("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"))
		}),
		kind:   KindEncoded,
		status: 200,
		want:   []string{"compressed", "Content-Encoding: gzip", "uncompressed", `"\x1f\x8b`},
	},
	{
		name:   "data is not JSON",
		server: scriptURL(roleEvent(), "data: {not json\n\n"),
		kind:   KindBadData,
		status: 200,
		want:   []string{"is not valid JSON", `"{not json"`},
	},
	{
		name:   "data is not an object",
		server: scriptURL("data: 42\n\n"),
		kind:   KindBadData,
		status: 200,
		want:   []string{"is not a chat-completion chunk", `"42"`},
	},
	{
		name:   "object without choices",
		server: scriptURL(roleEvent(), `data: {"id":"x","object":"something"}`+"\n\n"),
		kind:   KindBadData,
		status: 200,
		want:   []string{`no "choices"`, `"{\"id\":\"x\"`},
	},
	{
		name:   "error event mid-stream",
		server: scriptURL(roleEvent(), contentEvent("a"), `data: {"error":{"code":500,"message":"the slot died","type":"server_error"}}`+"\n\n"),
		kind:   KindServer,
		status: 200,
		want:   []string{"error mid-stream", "after 1 content chunks", "server_error", "the slot died"},
		check: func(t *testing.T, res *Result) {
			if len(res.Chunks) != 1 || res.Info.Done {
				t.Errorf("result %+v: want the chunk before the error and no Done", res)
			}
		},
	},
	{
		name:   "ends without DONE",
		server: scriptURL(roleEvent(), contentEvent("a"), contentEvent("b")),
		kind:   KindTruncated,
		status: 200,
		want:   []string{"without data: [DONE]", "after 2 content chunks"},
		check: func(t *testing.T, res *Result) {
			if len(res.Chunks) != 2 || res.Info.Done || res.TotalMs < res.Info.TTFTMs {
				t.Errorf("result %+v: want 2 chunks, no Done, total >= ttft", res)
			}
		},
	},
	{
		name:   "ends inside an event",
		server: scriptURL(roleEvent(), contentEvent("a"), `data: {"choices":[{"del`),
		kind:   KindTruncated,
		status: 200,
		want:   []string{"without data: [DONE]", "in the middle of an event"},
	},
	{
		name: "connection dropped",
		server: func(t *testing.T) string {
			return rawServer(t, func(c net.Conn) {
				ev := contentEvent("a")
				c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"))
				c.Write([]byte(strconv.FormatInt(int64(len(ev)), 16) + "\r\n" + ev + "\r\n"))
				c.Write([]byte("40\r\ndata: {\"cho"))
			})
		},
		kind:   KindDropped,
		status: 200,
		want:   []string{"connection broke mid-stream", "after 1 content chunks", "in the middle of an event"},
	},
	{
		name:   "idle",
		server: stall(roleEvent(), contentEvent("a")),
		req:    Request{IdleTimeout: 100 * time.Millisecond},
		kind:   KindIdle,
		status: 200,
		want:   []string{"nothing arrived for 100ms", "idle timeout", "1 content chunks"},
	},
	{
		name:   "idle before headers",
		server: func(t *testing.T) string { return rawServer(t, func(c net.Conn) { time.Sleep(time.Second) }) },
		req:    Request{IdleTimeout: 100 * time.Millisecond},
		kind:   KindIdle,
		want:   []string{"response headers were not complete 100ms after the request was sent", "idle timeout", "0 content chunks"},
	},
	{
		// Fails before this change: each header byte reset the idle
		// timer, so only the whole-request timeout ended the request.
		name: "headers a byte at a time",
		server: func(t *testing.T) string {
			return rawServer(t, func(c net.Conn) {
				head := "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nX-Slow: " + strings.Repeat("a", 1<<16)
				for i := range len(head) {
					if _, err := c.Write([]byte{head[i]}); err != nil {
						return
					}
					time.Sleep(100 * time.Millisecond)
				}
			})
		},
		req:  Request{IdleTimeout: 300 * time.Millisecond, Timeout: 5 * time.Second},
		kind: KindIdle,
		want: []string{"response headers were not complete 300ms after the request was sent", "idle timeout"},
	},
	{
		name: "overall timeout",
		server: func(t *testing.T) string {
			return newServer(t, newEndless(10*time.Millisecond)).URL
		},
		req:    Request{Timeout: 150 * time.Millisecond},
		kind:   KindTimeout,
		status: 200,
		want:   []string{"longer than its 150ms timeout"},
	},
}

func TestDoErrors(t *testing.T) { eachWire(t, testErrors) }

func testErrors(t *testing.T, w Wire) {
	for _, c := range errorCases {
		t.Run(c.name, func(t *testing.T) {
			base := c.server(t)
			req := c.req
			req.URL, req.Body, req.Wire = base, chatBody(), w
			res, err := Do(context.Background(), req)
			if res == nil {
				t.Fatal("Do returned no Result")
			}
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("err = %v, want an *Error", err)
			}
			if se.Kind != c.kind || se.Status != c.status {
				t.Errorf("kind %q status %d, want %q %d", se.Kind, se.Status, c.kind, c.status)
			}
			msg := err.Error()
			wantURL := base + DefaultPath
			if se.URL != wantURL || !strings.Contains(msg, wantURL) {
				t.Errorf("error does not name %s: %q", wantURL, msg)
			}
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error lacks %q:\n%s", w, msg)
				}
			}
			if callerTerms.MatchString(msg) {
				t.Errorf("error names a caller's flag or option (%q): %s", callerTerms.FindString(msg), msg)
			}
			if c.check != nil {
				c.check(t, res)
			}
		})
	}
}

func TestDoServerErrorFields(t *testing.T) {
	url := answer(400, "application/json", `{"error":{"code":400,"message":"bad","type":"invalid_request_error"}}`)(t)
	_, err := Do(context.Background(), Request{URL: url, Body: chatBody()})
	var se *Error
	if !errors.As(err, &se) || se.Type != "invalid_request_error" || se.Message != "bad" || se.Status != 400 {
		t.Fatalf("err = %#v", err)
	}
}

func TestDoBadRequest(t *testing.T) {
	for _, u := range []string{"", "localhost:8080", "ftp://x", "http://"} {
		_, err := Do(context.Background(), Request{URL: u, Body: chatBody()})
		var se *Error
		if !errors.As(err, &se) || se.Kind != KindRequest || !strings.Contains(err.Error(), "http://HOST:PORT") {
			t.Errorf("URL %q: err = %v", u, err)
		}
	}
	// A password in the URL is never shown (fails before this change).
	for _, u := range []string{"http://user:pw-8c1d@127.0.0.1:1", "http://user:pw-8c1d@127.0.0.1:bad"} {
		_, err := Do(context.Background(), Request{URL: u, Body: chatBody()})
		var se *Error
		if !errors.As(err, &se) || strings.Contains(err.Error()+se.URL, "pw-8c1d") || !strings.Contains(err.Error(), "user:xxxxx@") {
			t.Errorf("URL with a password: err = %v, URL %q; want it as user:xxxxx@", err, se.URL)
		}
		if _, _, err := Get(context.Background(), u); err == nil || strings.Contains(err.Error(), "pw-8c1d") {
			t.Errorf("Get of a URL with a password: err = %v", err)
		}
	}
	if _, err := EncodeBody(map[string]any{"x": func() {}}); err == nil || !strings.Contains(err.Error(), "cannot encode the request body") {
		t.Errorf("unencodable body: err = %v", err)
	}
	_, err := Do(context.Background(), Request{URL: "http://127.0.0.1:1"})
	if se := (*Error)(nil); !errors.As(err, &se) || se.Kind != KindRequest || !strings.Contains(err.Error(), "body is empty") {
		t.Errorf("empty body: err = %v", err)
	}
}

func TestDoUnknownHost(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	var dnsErr *net.DNSError
	if _, err := net.DefaultResolver.LookupHost(ctx, "ttftlab-test.invalid"); !errors.As(err, &dnsErr) || !dnsErr.IsNotFound {
		t.Skipf("this machine's resolver does not fail fast for .invalid names (%v)", err)
	}
	_, err := Do(context.Background(), Request{URL: "http://ttftlab-test.invalid:8080", Body: chatBody()})
	if err == nil || !strings.Contains(err.Error(), `cannot resolve host "ttftlab-test.invalid"`) {
		t.Fatalf("err = %v", err)
	}
}

func TestDoRedirectIsReported(t *testing.T) {
	url := handlerURL(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://elsewhere:9/v1/chat/completions", http.StatusTemporaryRedirect)
	})(t)
	_, err := Do(context.Background(), Request{URL: url, Body: chatBody()})
	if err == nil || !strings.Contains(err.Error(), "redirects to") || !strings.Contains(err.Error(), "elsewhere:9") {
		t.Fatalf("err = %v", err)
	}
}

func TestDoRawOutFailure(t *testing.T) {
	url := scriptURL(roleEvent(), contentEvent("a"), doneEvent)(t)
	_, err := Do(context.Background(), Request{URL: url, Body: chatBody(), RawOut: failingWriter{}})
	var se *Error
	if !errors.As(err, &se) || se.Kind != KindRawOut || !errors.Is(err, errDiskFull) {
		t.Fatalf("err = %v", err)
	}
}

var errDiskFull = errors.New("disk full")

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errDiskFull }

// An https:// URL that points at a plain-HTTP server fails at once with
// what to change, both when the server answers the ClientHello with an
// HTTP error (Go's server) and when it stays silent, as llama-server does,
// waiting for a request line that never comes: then a plain HEAD on a
// second connection tells. Either way the handshake ends on that finding,
// not at its timeout (no time of the run is held to a constant).
func TestDoHTTPSToPlainServer(t *testing.T) {
	answering := newServer(t, http.NotFoundHandler()).Listener.Addr().String()
	silent := strings.TrimPrefix(rawPlainServer(t), "http://")
	for name, addr := range map[string]string{"answers the hello": answering, "silent to the hello": silent} {
		t.Run(name, func(t *testing.T) {
			_, err := Do(context.Background(), Request{URL: "https://" + addr, Body: chatBody()})
			var se *Error
			if !errors.As(err, &se) || se.Kind != KindConnect || !strings.Contains(err.Error(), "answered plain HTTP; use http://") {
				t.Fatalf("err = %v, want a connect error naming plain HTTP", err)
			}
			if !errors.Is(err, ErrPlainHTTP) || errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("err = %v: want the plain-HTTP finding, not the handshake's timeout", err)
			}
		})
	}
}

// rawPlainServer answers plain HTTP requests and says nothing to anything
// else (a TLS ClientHello) until the client leaves, like llama-server.
func rawPlainServer(t *testing.T) string {
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
				buf := make([]byte, 4096)
				n, _ := c.Read(buf)
				if bytes.HasPrefix(buf[:n], []byte("HEAD ")) || bytes.HasPrefix(buf[:n], []byte("GET ")) {
					c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"))
					return
				}
				io.Copy(io.Discard, c)
			}()
		}
	}()
	return "http://" + ln.Addr().String()
}
