package stream

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// countingProxy is an HTTP proxy on loopback: CONNECT opens a tunnel, an
// absolute-form request is forwarded with its body streamed back as it
// comes. It counts both and keeps what it was asked.
type countingProxy struct {
	*httptest.Server
	connects, forwards atomic.Int32
	mu                 sync.Mutex
	targets            []string // CONNECT targets and forwarded URLs
	auth               []string // Proxy-Authorization values
}

func newCountingProxy(t *testing.T) *countingProxy {
	p := &countingProxy{}
	p.Server = httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(p.Close)
	return p
}

func (p *countingProxy) note(target, auth string) {
	p.mu.Lock()
	p.targets = append(p.targets, target)
	p.auth = append(p.auth, auth)
	p.mu.Unlock()
}

func (p *countingProxy) serve(w http.ResponseWriter, r *http.Request) {
	p.note(r.RequestURI, r.Header.Get("Proxy-Authorization"))
	if r.Method == http.MethodConnect {
		p.connects.Add(1)
		up, err := net.Dial("tcp", r.Host)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		down, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			up.Close()
			return
		}
		down.Write([]byte("HTTP/1.1 200 Connection established\r\n\r\n"))
		go func() { io.Copy(up, down); up.Close() }()
		io.Copy(down, up)
		down.Close()
		return
	}
	if !strings.HasPrefix(r.RequestURI, "http://") {
		http.Error(w, "not a proxy request: "+r.RequestURI, http.StatusBadRequest)
		return
	}
	p.forwards.Add(1)
	out, err := http.NewRequestWithContext(r.Context(), r.Method, r.RequestURI, r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	out.Header = r.Header.Clone()
	out.Header.Del("Proxy-Authorization")
	resp, err := (&http.Transport{Proxy: nil}).RoundTrip(out)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	f := w.(http.Flusher)
	buf := make([]byte, 32<<10)
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			w.Write(buf[:n])
			f.Flush()
		}
		if err != nil {
			return
		}
	}
}

// resolver is what a test injects: the standard rules never proxy
// loopback.
func (p *countingProxy) resolver(user string) func(*url.URL) (*url.URL, error) {
	u, _ := url.Parse(p.URL)
	if user != "" {
		u.User = url.UserPassword(user, "secret")
	}
	return func(*url.URL) (*url.URL, error) { return u, nil }
}

func pacedEvents(n int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f := sseHeaders(w)
		w.Write([]byte(roleEvent()))
		f.Flush()
		for i := range n {
			time.Sleep(time.Millisecond)
			w.Write([]byte(contentEvent(string(rune('a' + i%26)))))
			f.Flush()
		}
		w.Write([]byte(finalEvent("stop") + doneEvent))
	})
}

// http:// through an HTTP proxy: the request goes to the proxy in
// absolute form (with the proxy's user as Proxy-Authorization), on every
// wire, and the raw-socket wires keep their kernel stamps.
func TestStreamThroughHTTPProxy(t *testing.T) {
	srv := newServer(t, pacedEvents(10))
	eachWire(t, func(t *testing.T, w Wire) {
		p := newCountingProxy(t)
		res, err := Do(context.Background(), Request{URL: srv.URL, Body: chatBody(), Wire: w, Proxy: p.resolver("ann")})
		if err != nil || len(res.Chunks) != 10 || !res.Info.Done {
			t.Fatalf("err %v, %d chunks, done %v", err, len(res.Chunks), res.Info.Done)
		}
		if p.forwards.Load() != 1 || p.connects.Load() != 0 {
			t.Fatalf("proxy forwarded %d, tunnelled %d: want the one request forwarded", p.forwards.Load(), p.connects.Load())
		}
		if want := srv.URL + DefaultPath; p.targets[0] != want || !strings.HasPrefix(p.auth[0], "Basic ") {
			t.Errorf("proxy asked for %q with authorization %q, want %q with Basic", p.targets[0], p.auth[0], want)
		}
		if w != WireNetHTTP && res.Info.StampSource != SourceKernel {
			t.Errorf("source %s through the proxy, want kernel", res.Info.StampSource)
		}
	})
}

// https:// through an HTTP proxy: one CONNECT tunnel to the server, TLS
// inside it, on every wire; the raw-socket wires keep their kernel
// stamps.
func TestStreamThroughHTTPSProxyTunnel(t *testing.T) {
	srv := httptest.NewTLSServer(pacedEvents(10))
	defer srv.Close()
	conf := srv.Client().Transport.(*http.Transport).TLSClientConfig
	eachWire(t, func(t *testing.T, w Wire) {
		p := newCountingProxy(t)
		res, err := Do(context.Background(), Request{URL: srv.URL, Body: chatBody(), Wire: w, TLS: conf, Proxy: p.resolver("")})
		if err != nil || len(res.Chunks) != 10 || !res.Info.Done {
			t.Fatalf("err %v, %d chunks, done %v", err, len(res.Chunks), res.Info.Done)
		}
		if p.connects.Load() != 1 || p.forwards.Load() != 0 {
			t.Fatalf("proxy tunnelled %d, forwarded %d: want one CONNECT", p.connects.Load(), p.forwards.Load())
		}
		if want := strings.TrimPrefix(srv.URL, "https://"); p.targets[0] != want {
			t.Errorf("CONNECT to %q, want %q", p.targets[0], want)
		}
		if w != WireNetHTTP && res.Info.StampSource != SourceKernel {
			t.Errorf("source %s through the tunnel, want kernel", res.Info.StampSource)
		}
	})
}

// A proxy that refuses the tunnel fails the request with its answer; an
// unreachable proxy is named as the proxy.
func TestProxyRefusalAndAbsence(t *testing.T) {
	refusing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusProxyAuthRequired)
	}))
	defer refusing.Close()
	ru, _ := url.Parse(refusing.URL)
	_, err := Do(context.Background(), Request{URL: "https://127.0.0.1:9", Body: chatBody(),
		Proxy: func(*url.URL) (*url.URL, error) { return ru, nil }})
	if err == nil || !strings.Contains(err.Error(), "407") {
		t.Errorf("refused CONNECT: err %v, want the proxy's 407", err)
	}
	closed := closedPort(t)
	_, err = Do(context.Background(), Request{URL: "http://127.0.0.1:9", Body: chatBody(),
		Proxy: func(*url.URL) (*url.URL, error) { return url.Parse(closed) }})
	if err == nil || !strings.Contains(err.Error(), "cannot reach the proxy") {
		t.Errorf("closed proxy port: err %v, want the proxy named", err)
	}
}

// Get and Post honour the same proxy choice as streams: forwarded for
// http://, a CONNECT tunnel for https://.
func TestGetPostThroughProxy(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, `{"status":"ok"}`) })
	plain := newServer(t, h)
	secure := httptest.NewTLSServer(h)
	defer secure.Close()
	conf := secure.Client().Transport.(*http.Transport).TLSClientConfig
	p := newCountingProxy(t)
	opt := options{proxy: p.resolver(""), tls: conf}
	if status, body, _, err := send(context.Background(), http.MethodPost, plain.URL+"/tokenize", []byte(`{}`), opt); err != nil || status != 200 || string(body) != `{"status":"ok"}` {
		t.Fatalf("post over http: %d %q %v", status, body, err)
	}
	if status, _, _, err := get(context.Background(), secure.URL+"/health", opt); err != nil || status != 200 {
		t.Fatalf("get over https: %d %v", status, err)
	}
	if p.forwards.Load() != 1 || p.connects.Load() != 1 {
		t.Fatalf("proxy forwarded %d, tunnelled %d: want one of each", p.forwards.Load(), p.connects.Load())
	}
}
