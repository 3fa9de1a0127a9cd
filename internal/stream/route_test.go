package stream

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

// TestRouteIsPassedNotReread: a route chosen once carries its proxy and
// the variable that named it to the request (a Get given it goes through
// that proxy, though the environment names none for the host) and to
// what names the proxy (the 407 it answered, Note, Stall); a route with
// no proxy names none.
func TestRouteIsPassedNotReread(t *testing.T) {
	var seen string
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = r.RequestURI
		w.Header().Set("Proxy-Authenticate", `Basic realm="proxy"`)
		w.WriteHeader(http.StatusProxyAuthRequired)
	}))
	defer proxy.Close()
	p, err := url.Parse(proxy.URL)
	if err != nil {
		t.Fatal(err)
	}
	rt := Route{proxy: p, from: "HTTP_PROXY"}
	target := "http://" + proxyChildHost + "/health"
	_, _, err = Get(context.Background(), target, GetOptions{Route: &rt})
	var pe *ProxyError
	if seen != target || !errors.As(err, &pe) || !strings.Contains(err.Error(), "the proxy "+p.Host+" (from HTTP_PROXY) answered 407") {
		t.Errorf("through the route: the proxy saw %q, err %v", seen, err)
	}
	if n := rt.Note(target, 403); !strings.Contains(n, "the request went through the proxy "+p.Host+" (from HTTP_PROXY)") {
		t.Errorf("Note = %q", n)
	}
	if e := rt.Stall(target, 3*time.Second); e == nil || !strings.Contains(e.Error(), "the proxy "+p.Host+" (from HTTP_PROXY) took the request but no whole answer came within 3s") ||
		!strings.Contains(e.Error(), "NO_PROXY="+proxyChildHost) {
		t.Errorf("Stall = %v", e)
	}
	none := Route{}
	if none.Note(target, 403) != "" || none.Stall(target, time.Second) != nil {
		t.Errorf("a route without a proxy named one")
	}
}
