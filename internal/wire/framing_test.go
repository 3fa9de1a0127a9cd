package wire

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"math/rand"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"
)

// frameAll runs a body through framing in reads of the given sizes (cycled)
// and returns the body bytes and the outcome, as the raw-socket client does.
func frameAll(f *Framing, wire []byte, sizes []int) ([]byte, error) {
	var body []byte
	for i := 0; len(wire) > 0; i++ {
		n := min(sizes[i%len(sizes)], len(wire))
		pieces, err := f.Body(wire[:n], nil)
		for _, p := range pieces {
			body = append(body, p...)
		}
		wire = wire[n:]
		if err != nil {
			return body, err
		}
	}
	return body, f.End()
}

// chunkedWire is body in chunked coding as net/http's own writer sends it.
func chunkedWire(t *testing.T, parts ...string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := httputil.NewChunkedWriter(&b)
	for _, p := range parts {
		if _, err := io.WriteString(w, p); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	b.WriteString("\r\n")
	return b.Bytes()
}

func TestFramingChunkedAnyReadSizes(t *testing.T) {
	parts := []string{"data: a\n\n", strings.Repeat("x", 5000), "", "data: [DONE]\n\n"}
	wire := append(chunkedWire(t, parts...), "ignored after the body"...)
	want := strings.Join(parts, "")
	rng := rand.New(rand.NewSource(3))
	for k := 0; k < 200; k++ {
		sizes := []int{1 + rng.Intn(9), 1 + rng.Intn(300), 1 + rng.Intn(4)}
		body, err := frameAll(&Framing{mode: frameChunked}, wire, sizes)
		if string(body) != want || err != io.EOF {
			t.Fatalf("sizes %v: body %d bytes (want %d), err %v (want io.EOF)", sizes, len(body), len(want), err)
		}
	}
}

func TestFramingChunkedExtensionsAndTrailers(t *testing.T) {
	wire := "5;name=value\r\nhello\r\n1 ; x\r\n!\r\n0\r\nX-Trailer: 1\r\n\r\n"
	body, err := frameAll(&Framing{mode: frameChunked}, []byte(wire), []int{3})
	if string(body) != "hello!" || err != io.EOF {
		t.Fatalf("body %q err %v", body, err)
	}
}

// Broken chunked coding fails as net/http's reader fails on the same bytes.
func TestFramingChunkedErrorsMatchNetHTTP(t *testing.T) {
	for _, wire := range []string{
		"zz\r\nhello\r\n0\r\n\r\n",         // not hex
		"5\r\nhelloXY0\r\n\r\n",            // no CRLF after the data
		"5\r\nhel",                         // cut inside a chunk
		"5\r\nhello\r\n",                   // cut before the last chunk
		";x\r\nhello\r\n",                  // no size
		"ffffffffffffffffff\r\nx\r\n",      // too large
		"5\rXhello\r\n0\r\n\r\n",           // CR without LF
		strings.Repeat("1", 5000) + "\r\n", // a line past the limit
	} {
		_, err := frameAll(&Framing{mode: frameChunked}, []byte(wire), []int{2})
		if err == nil || err == io.EOF {
			t.Errorf("%q: err %v, want a framing error", wire, err)
			continue
		}
		ref, refErr := httputilReadChunked(wire)
		if refErr == nil || refErr == io.EOF {
			t.Errorf("%q: net/http reads it (%q), but framing says %v", wire, ref, err)
		}
		if errors.Is(refErr, io.ErrUnexpectedEOF) != errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("%q: framing %v, net/http %v: one says truncated, the other not", wire, err, refErr)
		}
	}
}

// httputilReadChunked reads wire with net/http's chunked reader.
func httputilReadChunked(wire string) ([]byte, error) {
	return io.ReadAll(httputil.NewChunkedReader(bufio.NewReader(strings.NewReader(wire))))
}

func TestFramingLengthAndClose(t *testing.T) {
	body, err := frameAll(&Framing{mode: frameLength, left: 5}, []byte("hello, and more"), []int{2})
	if string(body) != "hello" || err != io.EOF {
		t.Errorf("length: body %q err %v", body, err)
	}
	body, err = frameAll(&Framing{mode: frameLength, left: 9}, []byte("hello"), []int{2})
	if string(body) != "hello" || err != io.ErrUnexpectedEOF {
		t.Errorf("short length: body %q err %v", body, err)
	}
	body, err = frameAll(&Framing{mode: frameClose}, []byte("all of it"), []int{4})
	if string(body) != "all of it" || err != io.EOF {
		t.Errorf("close-delimited: body %q err %v", body, err)
	}
}

func TestHeadReaderAcrossReads(t *testing.T) {
	wire := "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello"
	for cut := 1; cut < len(wire); cut++ {
		var h HeadReader
		head, rest, done, err := h.Feed([]byte(wire[:cut]))
		if err != nil {
			t.Fatal(err)
		}
		fed := wire[:cut]
		if !done {
			head, rest, done, err = h.Feed([]byte(wire[cut:]))
			fed = wire
		}
		if err != nil || !done || string(head)+string(rest) != fed || !strings.HasSuffix(string(head), "\r\n\r\n") {
			t.Fatalf("cut %d: head %q rest %q done %v err %v", cut, head, rest, done, err)
		}
		resp, err := ParseHead(head)
		if err != nil || resp.StatusCode != 200 || NewFraming(resp).mode != frameChunked {
			t.Fatalf("cut %d: %+v %v", cut, resp, err)
		}
	}
	var h HeadReader
	for len(h.buf) <= maxHeadBytes {
		if _, _, _, err := h.Feed([]byte("X-Long: " + strings.Repeat("y", 4000) + "\r\n")); err != nil {
			if err != ErrHeadTooLong {
				t.Fatal(err)
			}
			return
		}
	}
	t.Fatal("a head past the limit was accepted")
}

func TestRequestHeadRejectsInjection(t *testing.T) {
	u := mustURL(t, "http://127.0.0.1:8080/v1/chat/completions?x=1")
	head, err := RequestHead(u, map[string]string{"x-key": "v"}, 12)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(append(head, "{\"a\":1234}\r\n"...))))
	if err != nil || req.RequestURI != "/v1/chat/completions?x=1" || req.Host != "127.0.0.1:8080" || req.Header.Get("X-Key") != "v" || req.ContentLength != 12 {
		t.Fatalf("request %+v, err %v", req, err)
	}
	for _, h := range []map[string]string{{"X-Evil": "a\r\nInjected: 1"}, {"Bad Name": "v"}, {"": "v"}} {
		if _, err := RequestHead(u, h, 1); err == nil {
			t.Errorf("header %q accepted", h)
		}
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
