package stream

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
)

// proxyChildHost is a name that only the proxy ever sees: the child
// process asks for it through HTTP_PROXY, so it is never resolved.
const proxyChildHost = "ttftlab-proxy-test.invalid"

// Without Request.Proxy the environment decides, by net/http's rules:
// HTTP_PROXY carries a stream (on the raw-socket wire, kernel-stamped) and
// a Get to the proxy, and NO_PROXY exempts a host. net/http reads the
// environment once per process, so a child process runs the requests.
func TestEnvironmentProxyHonoured(t *testing.T) {
	if os.Getenv("TTFTLAB_PROXY_CHILD") == "1" {
		environmentProxyChild(t)
		return
	}
	var seen atomic.Int32
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.RequestURI, "http://"+proxyChildHost+"/") {
			http.Error(w, "unexpected "+r.RequestURI, http.StatusBadRequest)
			return
		}
		seen.Add(1)
		if r.Method == http.MethodGet {
			io.WriteString(w, "ok")
			return
		}
		f := sseHeaders(w)
		w.Write([]byte(contentEvent("via proxy") + doneEvent))
		f.Flush()
	}))
	defer proxy.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^TestEnvironmentProxyHonoured$", "-test.count=1")
	cmd.Env = append(os.Environ(), "TTFTLAB_PROXY_CHILD=1", "HTTP_PROXY="+proxy.URL, "http_proxy="+proxy.URL,
		"NO_PROXY=exempt.invalid", "no_proxy=exempt.invalid", "REQUEST_METHOD=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if seen.Load() != 2 {
		t.Fatalf("the proxy saw %d requests, want the stream and the get\n%s", seen.Load(), out)
	}
}

func environmentProxyChild(t *testing.T) {
	// Never resolve the name: stop before any request if it is not proxied.
	if p, err := proxyFor(nil, &url.URL{Scheme: "http", Host: proxyChildHost}); p == nil || err != nil {
		t.Fatalf("HTTP_PROXY not taken: proxy %v, err %v", p, err)
	}
	res, err := Do(context.Background(), Request{URL: "http://" + proxyChildHost, Body: chatBody()})
	if err != nil || len(res.Chunks) != 1 || res.Chunks[0].Text != "via proxy" {
		t.Fatalf("stream: err %v, chunks %+v", err, res.Chunks)
	}
	if res.Info.StampSource != SourceKernel {
		t.Errorf("source %s: want the raw-socket wire through the proxy", res.Info.StampSource)
	}
	if status, body, err := Get(context.Background(), "http://"+proxyChildHost+"/health"); err != nil || status != 200 || string(body) != "ok" {
		t.Fatalf("get: %d %q %v", status, body, err)
	}
	if p, err := proxyFor(nil, &url.URL{Scheme: "http", Host: "exempt.invalid"}); p != nil || err != nil {
		t.Errorf("NO_PROXY host proxied through %v (%v)", p, err)
	}
}
