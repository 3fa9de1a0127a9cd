package stream

import (
	"net/http"
	"net/url"
)

// proxyFor is the proxy for u: choose's answer, or without one the
// environment's by net/http's rules.
func proxyFor(choose func(*url.URL) (*url.URL, error), u *url.URL) (*url.URL, error) {
	if choose == nil {
		return http.ProxyFromEnvironment(&http.Request{URL: u})
	}
	return choose(u)
}
