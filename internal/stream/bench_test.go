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

func benchDo(b *testing.B, flushEvery int, discard bool, w Wire) {
	srv := newServerB(b, benchStream(1000, flushEvery))
	b.ReportAllocs()
	for b.Loop() {
		res, err := Do(context.Background(), Request{URL: srv, Body: chatBody(), DiscardChunks: discard, Wire: w,
			OnChunk: func(Chunk) (bool, error) { return true, nil }})
		if err != nil || !res.Info.Done {
			b.Fatalf("err %v, info %+v", err, res.Info)
		}
	}
}

// The in-process server shares the CPU with the client, so these measure
// the whole exchange's time on this machine, wire against wire; ttftlab
// calibrate measures the client alone.
func BenchmarkDo1000ChunksFlush4K(b *testing.B) { benchDo(b, 4096, false, WireAuto) }
func BenchmarkDo1000ChunksFlushPerEvent(b *testing.B) {
	benchDo(b, len(contentEvent(" token")), false, WireAuto)
}
func BenchmarkDo1000ChunksDiscardChunks(b *testing.B) { benchDo(b, 4096, true, WireAuto) }
func BenchmarkDo1000ChunksFlush4KNetHTTP(b *testing.B) {
	benchDo(b, 4096, false, WireNetHTTP)
}
func BenchmarkDo1000ChunksFlushPerEventNetHTTP(b *testing.B) {
	benchDo(b, len(contentEvent(" token")), false, WireNetHTTP)
}

func newServerB(b *testing.B, h http.Handler) string {
	srv := httptest.NewServer(h)
	b.Cleanup(srv.Close)
	return srv.URL
}
