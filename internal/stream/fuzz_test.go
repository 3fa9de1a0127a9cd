package stream

import (
	"bytes"
	"context"
	"errors"
	"math/rand"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
)

// pieceServer answers each request with the body registered under its
// X-Fuzz-ID header, written in pieces of random sizes with a flush after
// each, so the client sees many different read boundaries.
type pieceServer struct {
	bodies sync.Map // id -> fuzzBody
	next   atomic.Int64
}

type fuzzBody struct {
	data []byte
	seed int64 // 0: one write
}

func (s *pieceServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	v, _ := s.bodies.Load(r.Header.Get("X-Fuzz-ID"))
	b := v.(fuzzBody)
	f := sseHeaders(w)
	data := b.data
	rng := rand.New(rand.NewSource(b.seed))
	for len(data) > 0 {
		n := len(data)
		if b.seed != 0 {
			n = min(n, 1+rng.Intn(200))
		}
		if _, err := w.Write(data[:n]); err != nil {
			return
		}
		f.Flush()
		data = data[n:]
	}
}

// outcome is what must not depend on read boundaries.
type outcome struct {
	texts        string
	chunks       int
	done         bool
	finishReason string
	kind         Kind
}

func (s *pieceServer) do(t *testing.T, url string, body []byte, seed int64, w Wire) (outcome, []byte) {
	id := strconv.FormatInt(s.next.Add(1), 10)
	s.bodies.Store(id, fuzzBody{data: body, seed: seed})
	defer s.bodies.Delete(id)
	var raw bytes.Buffer
	res, err := Do(context.Background(), Request{URL: url, Body: chatBody(), RawOut: &raw, Wire: w,
		Header: map[string]string{"X-Fuzz-ID": id}})
	var o outcome
	for _, c := range res.Chunks {
		o.texts += c.Text + "\x00"
	}
	o.chunks, o.done, o.finishReason = len(res.Chunks), res.Info.Done, res.Info.FinishReason
	var se *Error
	if errors.As(err, &se) {
		o.kind = se.Kind
	} else if err != nil {
		t.Fatalf("error of type %T: %v", err, err)
	}
	return o, raw.Bytes()
}

// FuzzStream checks that Do never panics, that raw_out holds exactly the
// bytes the server sent (all of them when the stream ran to its end, a
// prefix when Do stopped early), and that chunks and outcome depend neither
// on how the bytes were cut into reads nor on the wire (the raw-socket
// client's own HTTP framing against net/http's).
func FuzzStream(f *testing.F) {
	capture, err := os.ReadFile("testdata/llama_capture.sse")
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{
		string(capture),
		roleEvent() + contentEvent("h\u00e9llo \U0001F600") + finalEvent("stop") + doneEvent,
		"data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\r\n\r\ndata: [DONE]\r\n\r\n",
		"data: {\"error\":{\"code\":500,\"message\":\"boom\"}}\n\n",
		"data: not json\n\n",
		"data: {\"no\":\"choices\"}\n\n",
		roleEvent() + contentEvent("cut"),
		": ping\n\n" + contentEvent("x") + "data: [DONE]\n\ntrailing bytes",
	} {
		f.Add([]byte(seed), int64(7))
	}
	s := &pieceServer{}
	srv := newServer(f, s)
	f.Fuzz(func(t *testing.T, body []byte, seed int64) {
		if seed == 0 {
			seed = 1
		}
		whole, rawWhole := s.do(t, srv.URL, body, 0, WireAuto)
		pieces, rawPieces := s.do(t, srv.URL, body, seed, WireAuto)
		if whole != pieces {
			t.Fatalf("outcome depends on read sizes:\n one write: %+v\n    pieces: %+v", whole, pieces)
		}
		netHTTP, rawNetHTTP := s.do(t, srv.URL, body, seed, WireNetHTTP)
		if netHTTP != pieces {
			t.Fatalf("outcome depends on the wire:\n    auto: %+v\nnet/http: %+v", pieces, netHTTP)
		}
		for _, raw := range [][]byte{rawWhole, rawPieces, rawNetHTTP} {
			if !bytes.HasPrefix(body, raw) {
				t.Fatalf("raw_out is not what the server sent:\n got %q\nsent %q", raw, body)
			}
			if whole.kind == KindTruncated && !bytes.Equal(raw, body) {
				t.Fatalf("the stream ran to its end but raw_out lost bytes: %d of %d", len(raw), len(body))
			}
		}
	})
}
