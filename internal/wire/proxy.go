package wire

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
)

// ProxyAuthorization is the Proxy-Authorization value for a proxy URL
// with a user (Basic, as net/http sends it); "" without one.
func ProxyAuthorization(proxy *url.URL) string {
	if proxy == nil || proxy.User == nil {
		return ""
	}
	pass, _ := proxy.User.Password()
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(proxy.User.Username()+":"+pass))
}

// connectHead is the CONNECT request that opens a tunnel to target
// (host:port) through proxy.
func connectHead(target string, proxy *url.URL) []byte {
	head := fmt.Sprintf("CONNECT %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: ttftlab\r\n", target, target)
	if auth := ProxyAuthorization(proxy); auth != "" {
		head += "Proxy-Authorization: " + auth + "\r\n"
	}
	return []byte(head + "\r\n")
}

// ProxyError is a proxy's refusal of a CONNECT.
type ProxyError struct {
	Proxy  string // the proxy's host:port
	Target string
	Status string // e.g. "407 Proxy Authentication Required"
}

func (e *ProxyError) Error() string {
	return fmt.Sprintf("the proxy %s refused a tunnel to %s: %s", e.Proxy, e.Target, e.Status)
}

// ConnectAnswer checks a proxy's answer to CONNECT.
func ConnectAnswer(resp *http.Response, proxy *url.URL, target string) error {
	if resp.StatusCode/100 != 2 {
		return &ProxyError{Proxy: proxy.Host, Target: target, Status: resp.Status}
	}
	return nil
}
