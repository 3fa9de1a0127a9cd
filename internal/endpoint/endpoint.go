// Package endpoint is the one value that says how to reach an LLM server:
// its base URL, the API key and where it came from, extra headers, TLS
// settings and the model name. It is parsed once, at the edge, and every
// request (streams, small API calls, health probes, the server watcher)
// takes its URL, headers and TLS from it. It joins base and path in one
// place (Join) and never shows the key: String, Describe and Shown print
// it as where it was set, never its value.
package endpoint

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
)

// Endpoint is a server and how to talk to it. The zero value of every
// field but Base means "none": no key, no extra headers, the system's
// certificate pool.
type Endpoint struct {
	// Base is the server's base URL without a trailing slash, e.g.
	// http://127.0.0.1:8080 or https://api.example.com/v1.
	Base string
	// Key is the API key, sent as Authorization: Bearer KEY; KeySource
	// says where it came from ("--api-key", "OPENAI_API_KEY", ...).
	Key, KeySource string
	// Header holds extra request headers (--header), by canonical name.
	Header map[string]string
	// TLS is the client's TLS configuration for https (nil: Go's defaults,
	// which honour SSL_CERT_FILE and SSL_CERT_DIR).
	TLS *tls.Config
	// CACert and Insecure are how TLS was made, for Describe.
	CACert   string
	Insecure bool
	// Model is sent as the request body's "model" unless the script sets
	// one; ModelSource says where it came from ("--model-name",
	// "GET /v1/models").
	Model, ModelSource string
}

// Parse checks that raw can be a server's base URL: http or https, a
// host, no query or fragment. A path is kept (a hosted API's base ends in
// /v1); a trailing slash is dropped.
func Parse(raw string) (*Endpoint, error) {
	base, err := ParseBase(raw)
	if err != nil {
		return nil, err
	}
	return &Endpoint{Base: base}, nil
}

// ParseBase is Parse's check alone: the cleaned base URL.
func ParseBase(raw string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	switch {
	case err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https"):
		return "", &URLError{URL: ShownURL(raw), Why: "want http://HOST:PORT, e.g. http://127.0.0.1:8080"}
	case u.RawQuery != "" || u.Fragment != "" || u.User != nil:
		return "", &URLError{URL: ShownURL(raw), Why: fmt.Sprintf("want the server's base URL without a query, a fragment or a password, e.g. %s://%s", u.Scheme, u.Host)}
	}
	return strings.TrimRight(u.String(), "/"), nil
}

// URLError is a base URL that cannot be a server's. URL is as ShownURL
// shows it: never with its password.
type URLError struct{ URL, Why string }

// ShownURL is a URL as it may be shown: a password in it is replaced by
// xxxxx (http://user:xxxxx@host), also in a URL that does not parse.
func ShownURL(raw string) string {
	_, rest, ok := strings.Cut(raw, "://")
	if !ok {
		rest = raw
	}
	start := len(raw) - len(rest)
	authority := rest
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		authority = rest[:i]
	}
	at := strings.LastIndex(authority, "@")
	if at < 0 {
		return raw
	}
	colon := strings.Index(authority[:at], ":")
	if colon < 0 {
		return raw
	}
	return raw[:start+colon+1] + "xxxxx" + raw[start+at:]
}

func (e *URLError) Error() string { return fmt.Sprintf("bad server URL %q: %s", e.URL, e.Why) }

// Join is the one join of a base URL and a path in ttftlab. A path that is
// already a full http(s) URL is returned as is. When the base ends in /v1
// (as hosted APIs give it), a path under /v1 does not double it
// (https://h/v1 + /v1/models = https://h/v1/models) and a path outside it
// (/health, /metrics) is taken from the server's root
// (https://h/v1 + /health = https://h/health).
func Join(base, path string) string {
	if strings.HasPrefix(path, "http://") || strings.HasPrefix(path, "https://") {
		return path
	}
	base = strings.TrimRight(base, "/")
	if path == "" {
		return base
	}
	if !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	if root, ok := strings.CutSuffix(base, "/v1"); ok && hasScheme(root) {
		// Under /v1 the path names it already; outside it, it is the root's.
		return root + path
	}
	return base + path
}

// hasScheme reports whether s is more than "http:/" left over from a
// base of just "/v1".
func hasScheme(s string) bool {
	i := strings.Index(s, "://")
	return i > 0 && len(s) > i+3
}

// URL joins the endpoint's base and path (see Join).
func (e *Endpoint) URL(path string) string { return Join(e.Base, path) }

// Headers are the headers every request to the endpoint carries: the
// extra headers, and Authorization: Bearer KEY when there is a key (an
// Authorization given with --header wins). nil when there are none.
func (e *Endpoint) Headers() map[string]string {
	if e == nil || (e.Key == "" && len(e.Header) == 0) {
		return nil
	}
	h := make(map[string]string, len(e.Header)+1)
	if e.Key != "" {
		h["Authorization"] = "Bearer " + e.Key
	}
	for k, v := range e.Header {
		h[k] = v
	}
	return h
}

// WithoutKey is a copy that sends no API key: for a server ttftlab
// started itself, which has none.
func (e *Endpoint) WithoutKey() *Endpoint {
	c := *e
	c.Key, c.KeySource = "", ""
	return &c
}

// WithBase is a copy for another base URL, keeping key, headers and TLS.
func (e *Endpoint) WithBase(base string) *Endpoint {
	c := *e
	c.Base = base
	return &c
}

// KeyShown is what is printed or written in place of the key: "set from
// SOURCE", or "" when there is none.
func (e *Endpoint) KeyShown() string {
	if e == nil || e.Key == "" {
		return ""
	}
	return "set from " + e.KeySource
}

// Shown is the headers as they may be shown: the value of Authorization
// and of any header whose name holds key, token, secret, auth, cookie or
// password is "[redacted]". The key's own Authorization header is listed
// as redacted too.
func (e *Endpoint) Shown() map[string]string {
	h := e.Headers()
	if h == nil {
		return nil
	}
	out := make(map[string]string, len(h))
	for k, v := range h {
		if Secret(k) {
			v = Redacted
		}
		out[k] = v
	}
	return out
}

// Redacted replaces a secret header's value wherever headers are shown.
const Redacted = "[redacted]"

// Secret reports whether a header's value must never be shown:
// Authorization, cookies, and names like *key*, *token*, *secret*,
// *password*, *auth*.
func Secret(name string) bool {
	n := strings.ToLower(name)
	for _, w := range []string{"authorization", "auth", "key", "token", "secret", "password", "cookie"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// Describe is the endpoint as artifacts record it: url, api_key ("set
// from SOURCE" or absent), headers (redacted), tls and model. It never
// holds the key.
func (e *Endpoint) Describe() map[string]any {
	d := map[string]any{"url": e.Base}
	if s := e.KeyShown(); s != "" {
		d["api_key"] = s
	}
	if h := e.Shown(); h != nil {
		// Only the extra headers: the key has its own field.
		extra := map[string]any{}
		for k, v := range h {
			if _, ok := e.Header[k]; ok {
				extra[k] = v
			}
		}
		if len(extra) > 0 {
			d["headers"] = extra
		}
	}
	if e.CACert != "" {
		d["ca_cert"] = e.CACert
	}
	if e.Insecure {
		d["insecure"] = true
	}
	if e.Model != "" {
		d["model"] = e.Model
		d["model_from"] = e.ModelSource
	}
	return d
}

// String is the base URL and what else is set, without secrets, e.g.
// "https://h/v1 (API key set from OPENAI_API_KEY, 1 header)".
func (e *Endpoint) String() string {
	var more []string
	if s := e.KeyShown(); s != "" {
		more = append(more, "API key "+s)
	}
	if n := len(e.Header); n > 0 {
		names := make([]string, 0, n)
		for k := range e.Header {
			names = append(names, k)
		}
		sort.Strings(names)
		more = append(more, "headers "+strings.Join(names, ", "))
	}
	if len(more) == 0 {
		return e.Base
	}
	return e.Base + " (" + strings.Join(more, "; ") + ")"
}

// ParseHeader splits "Name: value" as --header takes it.
func ParseHeader(s string) (name, value string, err error) {
	name, value, ok := strings.Cut(s, ":")
	name = strings.TrimSpace(name)
	if !ok || name == "" || strings.ContainsAny(name, " \t\r\n") {
		return "", "", fmt.Errorf("header %q: want 'Name: value'", redactLine(s))
	}
	if strings.ContainsAny(value, "\r\n") {
		return "", "", fmt.Errorf("header %s: the value holds a line break", name)
	}
	return name, strings.TrimSpace(value), nil
}

// redactLine shows a malformed header without a value that may be secret.
func redactLine(s string) string {
	if name, _, ok := strings.Cut(s, ":"); ok {
		return name + ": " + Redacted
	}
	if len(s) > 8 {
		return s[:4] + "..."
	}
	return s
}

// KeyFlags are where an API key may come from, highest first.
type KeyFlags struct {
	// File is --api-key-file; Flag is --api-key.
	File, Flag string
	// Getenv reads the environment (os.Getenv when nil).
	Getenv func(string) string
}

// KeyEnv are the environment variables read for a key, in order.
var KeyEnv = []string{"TTFTLAB_API_KEY", "OPENAI_API_KEY"}

// ResolveKey returns the key and its source: --api-key-file, --api-key,
// then TTFTLAB_API_KEY, then OPENAI_API_KEY; "" when none is set.
func ResolveKey(f KeyFlags) (key, source string, err error) {
	getenv := f.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	switch {
	case f.File != "" && f.Flag != "":
		return "", "", errors.New("--api-key and --api-key-file both set: give one")
	case f.File != "":
		b, err := os.ReadFile(f.File)
		if err != nil {
			return "", "", fmt.Errorf("--api-key-file: %w", err)
		}
		key = strings.TrimSpace(string(b))
		if key == "" {
			return "", "", fmt.Errorf("--api-key-file %s is empty", f.File)
		}
		return key, "--api-key-file " + f.File, nil
	case f.Flag != "":
		return strings.TrimSpace(f.Flag), "--api-key", nil
	}
	for _, name := range KeyEnv {
		if v := strings.TrimSpace(getenv(name)); v != "" {
			return v, name, nil
		}
	}
	return "", "", nil
}

// TLSConfig builds the client's TLS configuration: caCert adds a PEM file
// of certificates to the system pool; insecure skips verification. nil
// when neither is set (Go's defaults, SSL_CERT_FILE included).
func TLSConfig(caCert string, insecure bool) (*tls.Config, error) {
	if caCert == "" && !insecure {
		return nil, nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if caCert != "" {
		pem, err := os.ReadFile(caCert)
		if err != nil {
			return nil, fmt.Errorf("--ca-cert: %w", err)
		}
		pool, err := x509.SystemCertPool()
		if err != nil || pool == nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--ca-cert %s: no PEM certificate in it", caCert)
		}
		cfg.RootCAs = pool
	}
	cfg.InsecureSkipVerify = insecure
	return cfg, nil
}

// SameOrigin reports whether two URLs share scheme, host and port: only
// there do an endpoint's key and headers go.
func SameOrigin(a, b string) bool {
	ua, err1 := url.Parse(a)
	ub, err2 := url.Parse(b)
	return err1 == nil && err2 == nil && ua.Scheme == ub.Scheme && strings.EqualFold(hostPort(ua), hostPort(ub))
}

// hostPort is u's host with its port, the scheme's default filled in.
func hostPort(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	if u.Scheme == "https" {
		return u.Host + ":443"
	}
	return u.Host + ":80"
}

// HostPort splits a base URL into its host name and port (the scheme's
// default when it names none).
func HostPort(base string) (host string, port int, err error) {
	u, err := url.Parse(base)
	if err != nil || u.Host == "" {
		return "", 0, &URLError{URL: base, Why: "want http://HOST:PORT, e.g. http://127.0.0.1:8080"}
	}
	_, portText, err := net.SplitHostPort(hostPort(u))
	if err == nil {
		port, err = strconv.Atoi(portText)
	}
	if err != nil || port <= 0 || port > 65535 {
		return "", 0, &URLError{URL: base, Why: "bad port " + strconv.Quote(portText)}
	}
	return u.Hostname(), port, nil
}
