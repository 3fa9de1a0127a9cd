package stream

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"ttftlab/internal/wire"
)

// proxyFor is the proxy for u: choose's answer, or without one the
// environment's by net/http's rules (envProxy).
func proxyFor(choose func(*url.URL) (*url.URL, error), u *url.URL) (*url.URL, error) {
	if choose == nil {
		p, _, err := envProxy(u)
		return p, err
	}
	return choose(u)
}

// Route is the proxy the requests to a server go through, chosen once for
// its URL (RouteFor, or a request's own choice as it starts) and passed
// on: to the request's connection, and to what names the proxy when the
// request fails or is refused (viaProxy, Note, Stall), none of which
// reads the environment again.
type Route struct {
	proxy *url.URL // nil: none
	// from is the variable that named the proxy (HTTPS_PROXY,
	// http_proxy, ...); "" when a caller's Proxy chose it.
	from string
	// err is a proxy that could not be chosen: a variable whose URL does
	// not parse (*ProxyError), or the caller's Proxy failing. A request
	// on this route fails with it before anything is sent.
	err error
}

// RouteFor is the proxy the environment names for requests to rawURL
// (envProxy), read once; GetOptions.Route passes it to each request.
func RouteFor(rawURL string) Route {
	u, err := url.Parse(rawURL)
	if err != nil {
		return Route{}
	}
	return envRoute(u)
}

func envRoute(u *url.URL) Route {
	p, from, err := envProxy(u)
	return Route{proxy: p, from: from, err: err}
}

// routeOf is the route of one request to rawURL, chosen once: the
// caller's Route, else its Proxy's choice, else the environment's.
func routeOf(opt options, rawURL string) Route {
	if opt.route != nil {
		return *opt.route
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return Route{}
	}
	if opt.proxy != nil {
		p, err := opt.proxy(u)
		return Route{proxy: p, err: err}
	}
	return envRoute(u)
}

// choose is the route as a transport's Proxy: the same answer for every
// URL of the request.
func (r Route) choose(*url.URL) (*url.URL, error) { return r.proxy, r.err }

// taken is opt with its proxy fixed to the route chosen for the request.
func (r Route) taken(opt options) options {
	opt.proxy, opt.route = r.choose, &r
	return opt
}

// envProxy is the proxy the environment names for u, by net/http's rules
// (http.ProxyFromEnvironment: HTTPS_PROXY for https://, HTTP_PROXY for
// http://, upper or lower case, NO_PROXY, never for loopback), and the
// variable that named it. A value that does not parse as a URL is a
// *ProxyError: net/http would parse it again with "http://" in front, so
// that the scheme of http://user:pass@host:badport becomes a host name
// to look up.
func envProxy(u *url.URL) (proxy *url.URL, from string, err error) {
	from, value := proxyVariable(u.Scheme)
	if value == "" {
		return nil, "", nil
	}
	if err := checkProxyURL(value); err != nil {
		if shown := hidePassword(value); shown != value {
			// url.Parse's reason may quote the password, or a piece of it
			// ("invalid port \":pa\"" of user:pa/ss@host).
			err = errors.New("it does not parse")
			value = shown
		}
		return nil, from, &ProxyError{From: from, Value: value, Err: err}
	}
	proxy, err = http.ProxyFromEnvironment(&http.Request{URL: u})
	if proxy == nil || err != nil {
		return nil, "", err
	}
	return proxy, from, nil
}

// proxyVariable is the variable net/http reads for a URL of scheme, and
// its value ("" when none is set).
func proxyVariable(scheme string) (name, value string) {
	names := []string{"HTTP_PROXY", "http_proxy"}
	switch {
	case scheme == "https":
		names = []string{"HTTPS_PROXY", "https_proxy"}
	case os.Getenv("REQUEST_METHOD") != "":
		// As net/http: under CGI, HTTP_PROXY may be the client's header.
		return "", ""
	}
	for _, n := range names {
		if v := os.Getenv(n); v != "" {
			return n, v
		}
	}
	return "", ""
}

// checkProxyURL refuses a proxy URL that does not parse, or that names a
// scheme and no host. One without a scheme ("proxy:3128") is a host, as
// net/http takes it.
func checkProxyURL(value string) error {
	if !strings.Contains(value, "://") {
		u, err := url.Parse("http://" + value)
		if err != nil {
			return err
		}
		if u.Host == "" {
			return errors.New("no host")
		}
		return nil
	}
	u, err := url.Parse(value)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			return ue.Err
		}
		return err
	}
	if u.Host == "" {
		return errors.New("no host")
	}
	return nil
}

// hidePassword shows a proxy URL with its password as xxxxx: all from
// the user's colon to the last "@", with or without a scheme, so that a
// password holding "/" or "@" is hidden whole (a proxy URL has no path
// that could hold an "@" of its own).
func hidePassword(v string) string {
	start := 0
	if i := strings.Index(v, "://"); i >= 0 {
		start = i + 3
	}
	at := strings.LastIndex(v[start:], "@")
	if at < 0 {
		return v
	}
	colon := strings.Index(v[start:start+at], ":")
	if colon < 0 {
		return v
	}
	return v[:start+colon+1] + "xxxxx" + v[start+at:]
}

// ProxyError is a failure of the proxy a request went through: a URL in
// the environment that does not parse, a proxy that cannot be reached,
// or its own answer (a refused tunnel, 407 Proxy Authentication
// Required).
type ProxyError struct {
	// Proxy is the proxy's host:port ("" when its URL did not parse).
	Proxy string
	// From is the variable that named it (HTTPS_PROXY, http_proxy, ...);
	// "" when Request.Proxy chose it.
	From string
	// Value is the variable's value, password hidden, when it does not
	// parse.
	Value string
	// Status is the proxy's answer ("407 Proxy Authentication
	// Required"), "" when none came.
	Status string
	// Target is the host:port of a tunnel (CONNECT) the proxy refused.
	Target string
	// User is a proxy URL holding a user (and password), which the
	// request sent: a 407 is then a refusal of them.
	User bool
	// Err is the cause when no answer came.
	Err error
}

func (e *ProxyError) Error() string {
	name := "the proxy " + e.Proxy
	if e.From != "" {
		name += " (from " + e.From + ")"
	}
	switch {
	case e.Value != "":
		return fmt.Sprintf("%s=%s is not a proxy URL (%v); nothing was sent", e.From, e.Value, e.Err)
	case e.Status != "" && e.Target != "":
		return fmt.Sprintf("%s refused a tunnel to %s: %s", name, e.Target, e.Status)
	case e.Status != "":
		return fmt.Sprintf("%s answered %s", name, e.Status)
	}
	return fmt.Sprintf("cannot reach %s (%v)", name, e.Err)
}

func (e *ProxyError) Unwrap() error { return e.Err }

// fix is what to do, for a request to host.
func (e *ProxyError) fix(host string) string {
	where := "the proxy's URL"
	if e.From != "" {
		where = e.From
	}
	bypass := "or bypass the proxy for this server with NO_PROXY=" + host
	switch {
	case e.Value != "":
		return "fix " + e.From + " (http://[USER:PASSWORD@]HOST:PORT) or unset it"
	case strings.HasPrefix(e.Status, "407") && e.User:
		return "the proxy refused the user and password in " + where + ": check them, " + bypass
	case strings.HasPrefix(e.Status, "407"):
		return "the proxy wants a user and password: put them in " + where + " (http://USER:PASSWORD@HOST:PORT), " + bypass
	case e.Status != "":
		return "check the proxy's rules and the user and password in " + where + ", " + bypass
	}
	return "start the proxy or fix " + where + ", " + bypass
}

// Note is what to add to a refusal (401, 403) of a request to rawURL
// that went through the route's proxy: the proxy may be what refused it.
// "" when the route has no proxy.
func (r Route) Note(rawURL string, status int) string {
	u, err := url.Parse(rawURL)
	if err != nil || r.proxy == nil || r.err != nil {
		return ""
	}
	return proxyNote(&ProxyError{Proxy: r.proxy.Host, From: r.from, Status: fmt.Sprint(status)}, u.Hostname())
}

// Stall is the failure of a GET of rawURL that went through the route's
// proxy and had no whole answer within d: the proxy took it, so nothing
// is known of the server behind it. nil when the route has no proxy.
func (r Route) Stall(rawURL string, d time.Duration) error {
	u, err := url.Parse(rawURL)
	if err != nil || r.proxy == nil || r.err != nil {
		return nil
	}
	pe := &ProxyError{Proxy: r.proxy.Host, From: r.from, Err: fmt.Errorf("no whole answer within %v", d)}
	name := "the proxy " + pe.Proxy
	if r.from != "" {
		name += " (from " + r.from + ")"
	}
	return &Error{Kind: KindTimeout, URL: rawURL, Err: pe, text: fmt.Sprintf("GET %s: %s took the request but no whole answer came within %v: the proxy, or the server behind it, holds it; check the proxy, %s",
		rawURL, name, d, "or bypass the proxy for this server with NO_PROXY="+u.Hostname())}
}

func proxyNote(e *ProxyError, host string) string {
	name := "the proxy " + e.Proxy
	if e.From != "" {
		name += " (from " + e.From + ")"
	}
	return "the request went through " + name + ", which may be what refused it: " + e.fix(host)
}

// viaProxy tells a failed request to target (method) that went through
// a proxy as the proxy's failure: the proxy, the variable that named it,
// its answer and what to do. A 407 is always the proxy's; a 403 may be
// the proxy's or the server's, so it is said as both. Other errors pass
// unchanged. rt is the route the request took.
func viaProxy(err error, method, target string, rt Route) error {
	var e *Error
	if !errors.As(err, &e) {
		return err
	}
	u, perr := url.Parse(target)
	if perr != nil {
		return err
	}
	host := u.Hostname()
	var pe *ProxyError
	if errors.As(err, &pe) && pe.Value != "" {
		return &Error{Kind: KindRequest, URL: target, Err: pe, text: method + " " + target + ": " + pe.Error() + "; " + pe.fix(host)}
	}
	if rt.proxy == nil || rt.err != nil {
		return err
	}
	pe = &ProxyError{Proxy: rt.proxy.Host, From: rt.from, User: rt.proxy.User != nil}
	var refused *wire.ProxyError
	var op *net.OpError
	switch {
	case errors.As(err, &refused):
		pe.Status, pe.Target = refused.Status, refused.Target
	case errors.As(err, &op) && op.Op == "proxyconnect":
		pe.Err = op.Err
	case e.Kind == KindHTTP && e.Status == http.StatusProxyAuthRequired:
		pe.Status = statusLine(e.Status)
	case e.Kind == KindHTTP && e.Status == http.StatusForbidden:
		pe.Status = statusLine(e.Status)
		e.text += "; " + proxyNote(pe, host)
		return e
	default:
		return err
	}
	return &Error{Kind: e.Kind, URL: target, Status: e.Status, Err: pe, text: method + " " + target + ": " + pe.Error() + "; " + pe.fix(host)}
}

// statusLine is "407 Proxy Authentication Required".
func statusLine(code int) string { return fmt.Sprintf("%d %s", code, http.StatusText(code)) }
