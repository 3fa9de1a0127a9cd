package stream

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// benchStream answers with n content chunks, flushing every flushEvery.
func benchStream(n, flushEvery int) http.HandlerFunc {
	whole := roleEvent() + strings.Repeat(contentEvent(" token"), n) + finalEvent("stop") + doneEvent
	return func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		f := sseHeaders(w)
		for body := whole; len(body) > 0; {
			k := min(flushEvery, len(body))
			w.Write([]byte(body[:k]))
			f.Flush()
			body = body[k:]
		}
	}
}

func benchDo(b *testing.B, flushEvery int, discard bool) {
	srv := newServerB(b, benchStream(1000, flushEvery))
	b.ReportAllocs()
	for b.Loop() {
		res, err := Do(context.Background(), Request{URL: srv, Body: chatBody(), DiscardChunks: discard,
			OnChunk: func(Chunk) (bool, error) { return true, nil }})
		if err != nil || !res.Info.Done {
			b.Fatalf("err %v, info %+v", err, res.Info)
		}
	}
}

func BenchmarkDo1000ChunksFlush4K(b *testing.B)       { benchDo(b, 4096, false) }
func BenchmarkDo1000ChunksFlushPerEvent(b *testing.B) { benchDo(b, len(contentEvent(" token")), false) }
func BenchmarkDo1000ChunksDiscardChunks(b *testing.B) { benchDo(b, 4096, true) }

func newServerB(b *testing.B, h http.Handler) string {
	srv := httptest.NewServer(h)
	b.Cleanup(srv.Close)
	return srv.URL
}
