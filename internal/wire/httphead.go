package wire

import (
	"bufio"
	"bytes"
	"fmt"
	"net/http"
	"net/textproto"
	"net/url"
	"sort"
	"strconv"
	"strings"
)

// maxHeadBytes bounds the response head, as net/http's default does.
const maxHeadBytes = 1 << 20

// requestHead is the request line and headers of the POST, as net/http
// sends them for this client: no keep-alive, no compression, the body's
// length up front.
func RequestHead(u *url.URL, header map[string]string, bodyLen int) ([]byte, error) {
	return requestHead(u, nil, header, bodyLen)
}

// ProxiedRequestHead is RequestHead for a plain-http request sent to the
// HTTP proxy proxy: the request line names the whole URL (absolute form),
// and the proxy's user, when its URL has one, goes in Proxy-Authorization.
func ProxiedRequestHead(u, proxy *url.URL, header map[string]string, bodyLen int) ([]byte, error) {
	return requestHead(u, proxy, header, bodyLen)
}

func requestHead(u, proxy *url.URL, header map[string]string, bodyLen int) ([]byte, error) {
	var b bytes.Buffer
	target := u.RequestURI()
	if proxy != nil {
		abs := *u
		abs.User, abs.Fragment = nil, ""
		target = abs.String()
	}
	fmt.Fprintf(&b, "POST %s HTTP/1.1\r\nHost: %s\r\n", target, u.Host)
	if auth := ProxyAuthorization(proxy); auth != "" {
		fmt.Fprintf(&b, "Proxy-Authorization: %s\r\n", auth)
	}
	fixed := map[string]string{
		"User-Agent":     "ttftlab",
		"Content-Type":   "application/json",
		"Accept":         "text/event-stream",
		"Content-Length": strconv.Itoa(bodyLen),
		"Connection":     "close",
	}
	keys := make([]string, 0, len(header))
	for k, v := range header {
		ck := textproto.CanonicalMIMEHeaderKey(k)
		if !validHeaderName(k) || strings.ContainsAny(v, "\r\n\x00") {
			return nil, fmt.Errorf("invalid header %q: %q", k, v)
		}
		switch ck {
		case "Host", "Content-Length", "Connection", "Transfer-Encoding", "Proxy-Authorization":
			continue // the client's own, as with net/http
		}
		if _, ok := fixed[ck]; ok {
			fixed[ck] = v
			continue
		}
		keys = append(keys, k)
	}
	for _, k := range []string{"User-Agent", "Content-Type", "Accept", "Content-Length", "Connection"} {
		fmt.Fprintf(&b, "%s: %s\r\n", k, fixed[k])
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "%s: %s\r\n", textproto.CanonicalMIMEHeaderKey(k), header[k])
	}
	b.WriteString("\r\n")
	return b.Bytes(), nil
}

// validHeaderName reports whether k is an HTTP token.
func validHeaderName(k string) bool {
	if k == "" {
		return false
	}
	for _, c := range []byte(k) {
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}

// ErrHeadTooLong is returned for a response head past maxHeadBytes.
var ErrHeadTooLong = fmt.Errorf("the response headers are longer than %d bytes", maxHeadBytes)

// HeadReader collects the response head across reads.
type HeadReader struct{ buf []byte }

// feed adds one read's bytes. When the head is complete it returns it and
// the bytes after it (the body's start); the head is a slice of data when
// it came in one read.
func (h *HeadReader) Feed(data []byte) (head, rest []byte, done bool, err error) {
	if len(h.buf) == 0 {
		if end := headEnd(data, 0); end > 0 {
			return data[:end], data[end:], true, nil
		}
	}
	from := max(len(h.buf)-3, 0)
	h.buf = append(h.buf, data...)
	if end := headEnd(h.buf, from); end > 0 {
		n := end - (len(h.buf) - len(data)) // bytes of data that are head
		head := h.buf[:end]
		h.buf = nil
		return head, data[n:], true, nil
	}
	if len(h.buf) > maxHeadBytes {
		return nil, nil, false, ErrHeadTooLong
	}
	return nil, nil, false, nil
}

// partial reports whether some of a head has arrived.
func (h *HeadReader) Partial() bool { return len(h.buf) > 0 }

// headEnd returns the index just past the blank line that ends a head in
// b (CRLF or bare LF line ends, as net/http accepts), searching from from;
// -1 when there is none yet.
func headEnd(b []byte, from int) int {
	for i := from; i < len(b); i++ {
		j := bytes.IndexByte(b[i:], '\n')
		if j < 0 {
			return -1
		}
		i += j
		switch {
		case i+1 < len(b) && b[i+1] == '\n':
			return i + 2
		case i+2 < len(b) && b[i+1] == '\r' && b[i+2] == '\n':
			return i + 3
		}
	}
	return -1
}

// parseHead reads a complete head with net/http's own parser, so status,
// headers and framing are understood exactly as on the net/http path. The
// Body it sets up is not used: framing (below) reads the body.
func ParseHead(head []byte) (*http.Response, error) {
	resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(head)), &http.Request{Method: http.MethodPost})
	if err != nil {
		return nil, fmt.Errorf("malformed HTTP response: %w", err)
	}
	resp.Body.Close()
	return resp, nil
}

// readConnectHead parses a proxy's answer to CONNECT.
func readConnectHead(head []byte) (*http.Response, error) {
	resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(head)), &http.Request{Method: http.MethodConnect})
	if err != nil {
		return nil, fmt.Errorf("malformed answer to CONNECT from the proxy: %w", err)
	}
	return resp, nil
}

// Interim reports a 1xx answer other than 101: net/http skips those and
// waits for the final response.
func Interim(resp *http.Response) bool {
	return resp.StatusCode >= 100 && resp.StatusCode < 200 && resp.StatusCode != http.StatusSwitchingProtocols
}
