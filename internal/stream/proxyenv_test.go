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

// refusingProxy answers every request, CONNECT included, with status.
func refusingProxy(t *testing.T, status int) string {
	t.Helper()
	p := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if status == http.StatusProxyAuthRequired {
			w.Header().Set("Proxy-Authenticate", `Basic realm="proxy"`)
		}
		w.WriteHeader(status)
	}))
	t.Cleanup(p.Close)
	return p.URL
}

// A proxy's failure names the proxy, the variable that named it, its
// answer and what to do; never the server or its key: a 407 (to a
// forwarded request or a tunnel, on a stream and a Get), a 403 said as
// possibly the proxy's, and a proxy URL that does not parse refused with
// its variable before anything is sent or looked up. net/http reads the
// environment once per process, so each case runs in a child process.
// Fails before this change: "HTTP 407 Proxy Authentication Required with
// an empty body", a 403 as the server's alone, and the malformed URL
// re-parsed into a host "http" that was looked up.
func TestEnvironmentProxyFailures(t *testing.T) {
	if c := os.Getenv("TTFTLAB_PROXY_CASE"); c != "" {
		proxyFailureChild(t, c)
		return
	}
	p407, p403 := refusingProxy(t, http.StatusProxyAuthRequired), refusingProxy(t, http.StatusForbidden)
	for _, c := range []struct{ name, env string }{
		{"407", "HTTP_PROXY=" + p407},
		{"407-tunnel", "https_proxy=" + p407},
		{"403", "http_proxy=" + p403},
		{"malformed", "HTTP_PROXY=http://user:secret@127.0.0.1:badport"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestEnvironmentProxyFailures$", "-test.count=1", "-test.v")
			cmd.Env = append(os.Environ(), "TTFTLAB_PROXY_CASE="+c.name, "PROXY_URL="+strings.SplitN(c.env, "=", 2)[1],
				"HTTP_PROXY=", "http_proxy=", "HTTPS_PROXY=", "https_proxy=", "NO_PROXY=", "no_proxy=", "REQUEST_METHOD=", c.env)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("child: %v\n%s", err, out)
			}
		})
	}
}

func proxyFailureChild(t *testing.T, c string) {
	proxy := strings.TrimPrefix(os.Getenv("PROXY_URL"), "http://")
	server := "http://" + proxyChildHost
	var want []string
	switch c {
	case "407":
		want = []string{"the proxy " + proxy + " (from HTTP_PROXY) answered 407 Proxy Authentication Required",
			"put them in HTTP_PROXY (http://USER:PASSWORD@HOST:PORT)", "NO_PROXY=" + proxyChildHost}
	case "407-tunnel":
		server = "https://" + proxyChildHost
		want = []string{"the proxy " + proxy + " (from https_proxy)", "407 Proxy Authentication Required",
			"put them in https_proxy", "NO_PROXY=" + proxyChildHost}
	case "403":
		want = []string{"HTTP 403 Forbidden", "the request went through the proxy " + proxy + " (from http_proxy), which may be what refused it",
			"NO_PROXY=" + proxyChildHost}
		if note := RouteFor(server).Note(server+"/v1/models", 403); !strings.Contains(note, "(from http_proxy)") {
			t.Errorf("Note = %q, want the proxy named", note)
		}
	case "malformed":
		want = []string{"HTTP_PROXY=http://user:xxxxx@127.0.0.1:badport is not a proxy URL", "fix HTTP_PROXY"}
	}
	check := func(what string, err error) {
		t.Helper()
		if err == nil {
			t.Fatalf("%s: no error", what)
		}
		for _, w := range want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q lacks %q", what, err, w)
			}
		}
		bad := []string{"secret", "lookup", "resolve", "API key"}
		if c != "403" {
			bad = append(bad, "empty body")
		}
		for _, bad := range bad {
			if strings.Contains(err.Error(), bad) {
				t.Errorf("%s: %q holds %q", what, err, bad)
			}
		}
	}
	_, err := Do(context.Background(), Request{URL: server, Body: chatBody()})
	check("stream", err)
	if c == "407-tunnel" && !strings.Contains(err.Error(), "refused a tunnel to "+proxyChildHost+":443") {
		t.Errorf("stream: %q does not name the refused tunnel", err)
	}
	status, _, err := Get(context.Background(), server+"/health")
	if c == "403" {
		if status != 403 || err != nil {
			t.Errorf("get: %d %v, want the 403 as an answer", status, err)
		}
		return
	}
	check("get", err)
}

// TestMalformedProxyURLHidesItsPassword: a proxy variable that does not
// parse is named with its password as xxxxx, whatever its shape: without
// a scheme (net/http's own error quoted the whole URL) or with a password
// holding "/" or "@".
func TestMalformedProxyURLHidesItsPassword(t *testing.T) {
	for _, value := range []string{
		"user:hunter2@proxy:badport",
		"http://user:hun/ter2@127.0.0.1:badport",
		"http://user:hun@ter2@127.0.0.1:badport",
	} {
		t.Setenv("HTTP_PROXY", value)
		t.Setenv("http_proxy", "")
		_, _, err := envProxy(&url.URL{Scheme: "http", Host: "llm.invalid:8080"})
		if err == nil {
			t.Errorf("%s: no error", value)
			continue
		}
		if msg := err.Error(); strings.Contains(msg, "ter2") || !strings.Contains(msg, "xxxxx") {
			t.Errorf("%s: %s", value, msg)
		}
	}
}
