package streamtest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
)

// FakeSpeech answers POST /v1/audio/speech as OpenAI's speech API streams
// pcm: Pieces pieces of 25 ms of 24 kHz 16-bit mono audio each (0: 4),
// each after Delay. It counts the requests it is sent, from 1, and can
// start failing partway through a run.
type FakeSpeech struct {
	Pieces int
	Delay  time.Duration
	// FailFrom, when above 0, answers the FailFrom-th request and every
	// later one with FailStatus (0: 500) and an error object.
	FailFrom   int64
	FailStatus int
	// CloseAfter, when above 0, closes the listener once the CloseAfter-th
	// request's audio is sent, before its answer ends: from then on
	// nothing listens on the port, and every later request is refused.
	CloseAfter int64

	n   atomic.Int64
	srv *httptest.Server
}

// Start serves f until the test ends and returns its base URL.
func (f *FakeSpeech) Start(t testing.TB) string {
	t.Helper()
	f.srv = httptest.NewServer(f)
	t.Cleanup(f.srv.Close)
	return f.srv.URL
}

// Requests is how many requests came so far.
func (f *FakeSpeech) Requests() int64 { return f.n.Load() }

func (f *FakeSpeech) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	n := f.n.Add(1)
	if f.FailFrom > 0 && n >= f.FailFrom {
		status := f.FailStatus
		if status == 0 {
			status = http.StatusInternalServerError
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, `{"error":{"message":"voice model crashed on request `+strconv.FormatInt(n, 10)+`","type":"server_error"}}`)
		return
	}
	pieces := f.Pieces
	if pieces == 0 {
		pieces = 4
	}
	piece := make([]byte, 2*24000/40) // 25 ms
	for i := range piece {
		piece[i] = byte(i*7) | 1
	}
	w.Header().Set("Content-Type", "audio/pcm")
	for i := 0; i < pieces; i++ {
		select {
		case <-r.Context().Done():
			return
		case <-time.After(f.Delay):
		}
		w.Write(piece)
		w.(http.Flusher).Flush()
	}
	if f.CloseAfter > 0 && n == f.CloseAfter && f.srv != nil {
		f.srv.Listener.Close()
	}
}
