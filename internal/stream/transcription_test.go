package stream

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// transcriptionServer answers a transcription upload with ctype and
// body, after reading the whole request; it records the request's
// Content-Type, Content-Length and Accept.
func transcriptionServer(t *testing.T, ctype string, parts ...string) (*httptest.Server, *http.Header, *int64, *time.Time) {
	var got http.Header
	var n int64
	var last time.Time
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		got, n = r.Header.Clone(), r.ContentLength
		w.Header().Set("Content-Type", ctype)
		w.Header().Set("X-Queue-Time", "3")
		for _, p := range parts {
			last = time.Now()
			io.WriteString(w, p)
			w.(http.Flusher).Flush()
			time.Sleep(5 * time.Millisecond)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &got, &n, &last
}

func TestTranscription(t *testing.T) { eachWire(t, testTranscription) }

func testTranscription(t *testing.T, w Wire) {
	body := []byte("--b\r\nContent-Disposition: form-data; name=\"model\"\r\n\r\nwhisper-1\r\n--b--\r\n")
	hdr := map[string]string{"Content-Type": "multipart/form-data; boundary=b"}
	for _, c := range []struct {
		name, ctype  string
		parts        []string
		text         string
		streamed     bool
		chunks       int
		kind         Kind
		ignoredFirst string
	}{
		{"json", "application/json", []string{`{"text":"hello `, `there"}`}, "hello there", false, 0, "", ""},
		{"openai events", "text/event-stream", []string{
			"data: {\"type\":\"transcript.text.delta\",\"delta\":\"hello\"}\n\n",
			"data: {\"type\":\"transcript.text.delta\",\"delta\":\" there\"}\n\n",
			"data: {\"type\":\"transcript.text.other\"}\n\n",
			"data: {\"type\":\"transcript.text.done\",\"text\":\"Hello there.\"}\n\n"}, "Hello there.", true, 2, "", "transcript.text.other"},
		{"chunk-shaped events", "text/event-stream", []string{
			"data: {\"object\":\"transcription.chunk\",\"choices\":[{\"delta\":{\"content\":\"hello\"}}]}\n\n",
			"data: {\"object\":\"transcription.chunk\",\"choices\":[{\"delta\":{\"content\":\" there\"}}]}\n\n",
			"data: [DONE]\n\n"}, "hello there", true, 2, "", ""},
		{"no text", "application/json", []string{`{"result":"hello"}`}, "", false, 0, KindBadData, ""},
		{"not JSON", "text/plain", []string{`hello there`}, "", false, 0, KindBadData, ""},
		{"error event", "text/event-stream", []string{"data: {\"type\":\"error\",\"error\":{\"message\":\"no audio\",\"type\":\"bad\"}}\n\n"}, "", true, 0, KindServer, ""},
		{"no done", "text/event-stream", []string{"data: {\"type\":\"transcript.text.delta\",\"delta\":\"hello\"}\n\n"}, "", true, 1, KindTruncated, ""},
	} {
		srv, got, n, last := transcriptionServer(t, c.ctype, c.parts...)
		res, err := Do(context.Background(), Request{URL: srv.URL, API: APITranscription, Body: body, Header: hdr, Wire: w})
		if c.kind != "" {
			var e *Error
			if !asError(err, &e) || e.Kind != c.kind {
				t.Errorf("%s: error %v, want kind %s", c.name, err, c.kind)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got.Get("Content-Type") != hdr["Content-Type"] || *n != int64(len(body)) || !strings.Contains(got.Get("Accept"), "application/json") {
			t.Errorf("%s: the request went as %v, length %d", c.name, *got, *n)
		}
		tr := res.Transcript
		if tr == nil || tr.Text != c.text || tr.Streamed != c.streamed || tr.Header.Get("X-Queue-Time") != "3" || !res.Info.Done || len(res.Chunks) != c.chunks {
			t.Fatalf("%s: transcript %+v, done %v, chunks %v", c.name, tr, res.Info.Done, res.Chunks)
		}
		if res.Info.FirstIgnored != c.ignoredFirst {
			t.Errorf("%s: first ignored %q", c.name, res.Info.FirstIgnored)
		}
		// The request's last write returned (on loopback perhaps after the
		// answer's head came: the server answers once it has the body)
		// before the final transcript, whose stamp is the last read's, the
		// parts coming 5 ms apart.
		if !(res.Info.SentMs > 0) || !(res.Info.SentMs < res.TotalMs) || !(res.TotalMs > res.Info.HeadersMs) {
			t.Errorf("%s: sent %.3f, headers %.3f, total %.3f ms", c.name, res.Info.SentMs, res.Info.HeadersMs, res.TotalMs)
		}
		if final := res.Info.T0.Add(time.Duration(res.TotalMs * float64(time.Millisecond))); final.Before(*last) {
			t.Errorf("%s: the final transcript stamped %v before the server wrote its last part", c.name, last.Sub(final))
		}
		if c.chunks > 0 && !(res.Info.HasTTFT && res.Info.TTFTMs < res.TotalMs && res.Chunks[0].TMs == res.Info.TTFTMs) {
			t.Errorf("%s: first partial %.3f, final %.3f", c.name, res.Info.TTFTMs, res.TotalMs)
		}
	}
}
