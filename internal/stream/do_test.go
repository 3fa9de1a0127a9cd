package stream

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestDoLlamaShapedStream(t *testing.T) { eachWire(t, testLlamaShapedStream) }

func testLlamaShapedStream(t *testing.T, w Wire) {
	script := &scripted{pause: 5 * time.Millisecond, parts: []string{
		roleEvent(),
		": ping\n",
		contentEvent("Once"),
		contentEvent(" upon"),
		contentEvent(" a time"),
		finalEvent("stop"),
		doneEvent,
	}}
	srv := newServer(t, script)
	var raw bytes.Buffer
	var seen []Chunk
	res, err := Do(context.Background(), Request{
		URL: srv.URL, Body: chatBody(), RawOut: &raw,
		OnChunk: func(c Chunk) (bool, error) { seen = append(seen, c); return true, nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for i, c := range res.Chunks {
		texts = append(texts, c.Text)
		if c.Index != i+1 {
			t.Errorf("chunk %d has Index %d", i, c.Index)
		}
		if i > 0 && c.TMs < res.Chunks[i-1].TMs {
			t.Errorf("chunk %d at %.3f ms comes before chunk %d at %.3f ms", i, c.TMs, i-1, res.Chunks[i-1].TMs)
		}
	}
	if got := strings.Join(texts, "|"); got != "Once| upon| a time" {
		t.Fatalf("chunks = %q: the role chunk must not count", got)
	}
	if len(seen) != 3 || seen[2] != res.Chunks[2] {
		t.Fatalf("OnChunk saw %v, want the 3 chunks", seen)
	}
	info := res.Info
	if !info.HasTTFT || info.TTFTMs != res.Chunks[0].TMs {
		t.Fatalf("TTFT %.3f (has %v) is not the first content chunk's %.3f", info.TTFTMs, info.HasTTFT, res.Chunks[0].TMs)
	}
	if !(info.HeadersMs <= info.TTFTMs && info.TTFTMs <= res.TotalMs) {
		t.Fatalf("want headers %.3f <= ttft %.3f <= total %.3f", info.HeadersMs, info.TTFTMs, res.TotalMs)
	}
	if !info.Done || info.Cut || info.FinishReason != "stop" || info.Status != 200 {
		t.Fatalf("info = %+v, want done, not cut, finish stop, status 200", info)
	}
	if res.Timings["prompt_n"] != 12.0 {
		t.Fatalf("timings = %v, want prompt_n 12 from the final chunk", res.Timings)
	}
	// role, ping, 3 contents, final, done
	if info.Lines != 7 {
		t.Fatalf("Lines = %d, want 7 non-blank lines", info.Lines)
	}
	if raw.String() != script.sentBytes() {
		t.Fatalf("raw output differs from what the server sent:\n got %q\nwant %q", raw.String(), script.sentBytes())
	}
}

// Every wire sends the same request: method, path, headers, body.
func TestDoSendsTheRequest(t *testing.T) {
	for _, w := range wires {
		t.Run(w.String(), func(t *testing.T) { testSendsTheRequest(t, w) })
	}
}

func testSendsTheRequest(t *testing.T, w Wire) {
	type request struct {
		method, path, ctype, accept, auth, conn, agent, host string
		length                                               int64
		body                                                 []byte
	}
	got := make(chan request, 1)
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g := request{method: r.Method, path: r.URL.Path, ctype: r.Header.Get("Content-Type"), accept: r.Header.Get("Accept"),
			auth: r.Header.Get("Authorization"), conn: r.Header.Get("Connection"), agent: r.UserAgent(), host: r.Host, length: r.ContentLength}
		g.body, _ = io.ReadAll(r.Body)
		got <- g
		sseHeaders(w)
		w.Write([]byte(doneEvent))
	}))
	_, err := Do(context.Background(), Request{URL: srv.URL + "/", Body: chatBody(), Wire: w,
		Header: map[string]string{"authorization": "Bearer k"}})
	if err != nil {
		t.Fatal(err)
	}
	g := <-got
	if g.method != "POST" || g.path != DefaultPath || g.ctype != "application/json" || g.accept != "text/event-stream" ||
		g.auth != "Bearer k" || g.conn != "close" || g.agent != "ttftlab" || g.host != srv.Listener.Addr().String() ||
		g.length != int64(len(chatBody())) {
		t.Fatalf("request = %+v", g)
	}
	if !bytes.Contains(g.body, []byte(`"Tell a story <3 & more"`)) {
		t.Fatalf("body %s: prompt text must go out unescaped", g.body)
	}
	var back map[string]any
	if err := json.Unmarshal(g.body, &back); err != nil || back["stream"] != true {
		t.Fatalf("body %s does not decode back (%v)", g.body, err)
	}
}

func TestDoEventsSplitAcrossWrites(t *testing.T) { eachWire(t, testEventsSplitAcrossWrites) }

func testEventsSplitAcrossWrites(t *testing.T, w Wire) {
	whole := roleEvent() + contentEvent("h\u00e9llo \u20ac") + contentEvent("\U0001F600!") + doneEvent
	// Cut every 7 bytes: through JSON, through the multi-byte characters
	// and between the two LFs of each event.
	var parts []string
	for s := whole; len(s) > 0; {
		n := min(7, len(s))
		parts, s = append(parts, s[:n]), s[n:]
	}
	srv := newServer(t, &scripted{parts: parts, pause: time.Millisecond})
	var raw bytes.Buffer
	res, err := Do(context.Background(), Request{URL: srv.URL, Body: chatBody(), Wire: w, RawOut: &raw})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Chunks) != 2 || res.Chunks[0].Text != "h\u00e9llo \u20ac" || res.Chunks[1].Text != "\U0001F600!" {
		t.Fatalf("chunks = %+v", res.Chunks)
	}
	if raw.String() != whole {
		t.Fatal("raw output differs from what the server sent")
	}
}

func TestDoCRLFAndComments(t *testing.T) { eachWire(t, testCRLFAndComments) }

func testCRLFAndComments(t *testing.T, w Wire) {
	crlf := func(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }
	srv := newServer(t, &scripted{parts: []string{
		": keep-alive\r\n",
		crlf(roleEvent()),
		crlf(contentEvent("a")),
		":\r\n: another comment\r\n",
		strings.ReplaceAll(contentEvent("b"), "\n", "\r"),
		crlf(doneEvent),
	}})
	res, err := Do(context.Background(), Request{URL: srv.URL, Body: chatBody(), Wire: w})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Chunks) != 2 || res.Chunks[0].Text != "a" || res.Chunks[1].Text != "b" || !res.Info.Done {
		t.Fatalf("result = %+v", res)
	}
	if res.Info.Lines != 7 {
		t.Fatalf("Lines = %d, want 7 (3 comments, 4 data lines)", res.Info.Lines)
	}
}

func TestDoUsageAndLastTimings(t *testing.T) { eachWire(t, testUsageAndLastTimings) }

func testUsageAndLastTimings(t *testing.T, w Wire) {
	srv := newServer(t, &scripted{parts: []string{
		roleEvent(),
		`data: {"choices":[{"delta":{"content":"x"},"finish_reason":null}],"timings":{"prompt_n":1}}` + "\n\n",
		`data: {"choices":[{"delta":{},"finish_reason":"length"}],"timings":{"prompt_n":2}}` + "\n\n",
		`data: {"choices":[{"delta":{},"finish_reason":null}]}` + "\n\n",
		`data: {"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":1}}` + "\n\n",
		doneEvent,
	}})
	res, err := Do(context.Background(), Request{URL: srv.URL, Body: chatBody(), Wire: w, DiscardChunks: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Info.FinishReason != "length" || res.Timings["prompt_n"] != 2.0 || res.Info.Usage["prompt_tokens"] != 5.0 {
		t.Fatalf("info %+v timings %v: want finish length, prompt_n 2, usage", res.Info, res.Timings)
	}
	if len(res.Chunks) != 0 || !res.Info.HasTTFT {
		t.Fatalf("DiscardChunks: chunks %v, has ttft %v", res.Chunks, res.Info.HasTTFT)
	}
}

func TestDoNoContentNoTTFT(t *testing.T) { eachWire(t, testNoContentNoTTFT) }

func testNoContentNoTTFT(t *testing.T, w Wire) {
	srv := newServer(t, &scripted{parts: []string{roleEvent(), finalEvent("stop"), doneEvent}})
	res, err := Do(context.Background(), Request{URL: srv.URL, Body: chatBody(), Wire: w})
	if err != nil || res.Info.HasTTFT || len(res.Chunks) != 0 || !res.Info.Done {
		t.Fatalf("res %+v err %v: want done without TTFT", res, err)
	}
}

func TestDoCutAfter(t *testing.T) { eachWire(t, testCutAfter) }

func testCutAfter(t *testing.T, w Wire) {
	e := newEndless(10 * time.Millisecond)
	srv := newServer(t, e)
	cutAfter := 150 * time.Millisecond
	res, err := Do(context.Background(), Request{URL: srv.URL, Body: chatBody(), Wire: w, CutAfter: cutAfter})
	if err != nil {
		t.Fatalf("a cut is not an error, got %v", err)
	}
	info := res.Info
	if !info.Cut || info.Done {
		t.Fatalf("info = %+v, want cut and not done", info)
	}
	if info.ClosedAtMs < ms(cutAfter) {
		t.Fatalf("closed at %.3f ms, before CutAfter %v", info.ClosedAtMs, cutAfter)
	}
	if res.TotalMs != info.ClosedAtMs {
		t.Fatalf("TotalMs %.3f, want the close time %.3f", res.TotalMs, info.ClosedAtMs)
	}
	e.waitGone(t)
}

func TestDoOnChunkFalseCuts(t *testing.T) { eachWire(t, testOnChunkFalseCuts) }

func testOnChunkFalseCuts(t *testing.T, w Wire) {
	e := newEndless(2 * time.Millisecond)
	srv := newServer(t, e)
	res, err := Do(context.Background(), Request{URL: srv.URL, Body: chatBody(), Wire: w,
		OnChunk: func(c Chunk) (bool, error) { return c.Index < 3, nil }})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Chunks) != 3 || !res.Info.Cut || res.Info.Done {
		t.Fatalf("chunks %d, info %+v: want 3 chunks and a cut", len(res.Chunks), res.Info)
	}
	if res.Info.ClosedAtMs < res.Chunks[2].TMs {
		t.Fatalf("closed at %.3f ms, before the chunk that asked for it (%.3f)", res.Info.ClosedAtMs, res.Chunks[2].TMs)
	}
	e.waitGone(t)
}

func TestDoOnChunkError(t *testing.T) { eachWire(t, testOnChunkError) }

func testOnChunkError(t *testing.T, w Wire) {
	e := newEndless(2 * time.Millisecond)
	srv := newServer(t, e)
	boom := errors.New("lab.lua:12: boom")
	res, err := Do(context.Background(), Request{URL: srv.URL, Body: chatBody(), Wire: w,
		OnChunk: func(c Chunk) (bool, error) {
			if c.Index == 2 {
				return true, boom
			}
			return true, nil
		}})
	if !errors.Is(err, boom) || err.Error() != boom.Error() {
		t.Fatalf("err = %v, want the callback's error with its message unchanged", err)
	}
	var se *Error
	if !errors.As(err, &se) || se.Kind != KindCallback {
		t.Fatalf("err = %#v, want an *Error of KindCallback", err)
	}
	if len(res.Chunks) != 2 || res.Info.Cut {
		t.Fatalf("chunks %d, info %+v", len(res.Chunks), res.Info)
	}
	e.waitGone(t)
}

func TestDoContextCancel(t *testing.T) { eachWire(t, testContextCancel) }

func testContextCancel(t *testing.T, w Wire) {
	e := newEndless(5 * time.Millisecond)
	srv := newServer(t, e)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res, err := Do(ctx, Request{URL: srv.URL, Body: chatBody(), Wire: w,
		OnChunk: func(c Chunk) (bool, error) {
			if c.Index == 2 {
				cancel()
			}
			return true, nil
		}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled inside", err)
	}
	if !strings.Contains(err.Error(), srv.URL) || !strings.Contains(err.Error(), "canceled") {
		t.Fatalf("err = %q", err)
	}
	if !res.Info.Cut || res.Info.Done || len(res.Chunks) < 2 {
		t.Fatalf("info %+v with %d chunks", res.Info, len(res.Chunks))
	}
	e.waitGone(t)
}

func TestDoCanceledBeforeStart(t *testing.T) {
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(http.NotFoundHandler())
	srv.Config.ConnState = func(net.Conn, http.ConnState) { conns.Add(1) }
	srv.Start()
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Do(ctx, Request{URL: srv.URL, Body: chatBody()})
	if !errors.Is(err, context.Canceled) || conns.Load() != 0 {
		t.Fatalf("err %v, %d connection events: want canceled without connecting", err, conns.Load())
	}
}

func TestDoFreshConnectionPerRequest(t *testing.T) {
	var opened atomic.Int32
	srv := httptest.NewUnstartedServer(&scripted{parts: []string{contentEvent("a"), doneEvent}})
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			opened.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	for i := 0; i < 3; i++ {
		if _, err := Do(context.Background(), Request{URL: srv.URL, Body: chatBody()}); err != nil {
			t.Fatal(err)
		}
	}
	if opened.Load() != 3 {
		t.Fatalf("%d connections for 3 requests, want one each", opened.Load())
	}
}

func TestDoTLS(t *testing.T) {
	srv := httptest.NewTLSServer(&scripted{parts: []string{roleEvent(), contentEvent("s"), doneEvent}})
	defer srv.Close()
	conf := srv.Client().Transport.(*http.Transport).TLSClientConfig
	res, err := do(context.Background(), Request{URL: srv.URL, Body: chatBody()}, options{tls: conf})
	if err != nil || len(res.Chunks) != 1 || !res.Info.Done {
		t.Fatalf("res %+v err %v", res, err)
	}
	if res.Info.HeadersMs > res.Info.TTFTMs {
		t.Fatalf("headers %.3f after ttft %.3f", res.Info.HeadersMs, res.Info.TTFTMs)
	}
	// Without the test certificate the handshake must fail with advice.
	_, err = Do(context.Background(), Request{URL: srv.URL, Body: chatBody()})
	if err == nil || !strings.Contains(err.Error(), "TLS certificate not accepted") {
		t.Fatalf("err = %v, want a certificate error", err)
	}
}

// A slow callback must not shift later stamps: the reader goroutine keeps
// reading and stamping while the caller's goroutine is busy.
func TestDoStampsAreReadTimesNotCallbackTimes(t *testing.T) {
	eachWire(t, testStampsAreReadTimesNotCallbackTimes)
}

func testStampsAreReadTimesNotCallbackTimes(t *testing.T, w Wire) {
	srv := newServer(t, &scripted{pause: 10 * time.Millisecond, parts: []string{
		contentEvent("a"), contentEvent("b"), doneEvent,
	}})
	var slept time.Duration
	res, err := Do(context.Background(), Request{URL: srv.URL, Body: chatBody(), Wire: w,
		OnChunk: func(c Chunk) (bool, error) {
			if c.Index == 1 {
				start := time.Now()
				time.Sleep(100 * time.Millisecond)
				slept = time.Since(start)
			}
			return true, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	gap := time.Duration((res.Chunks[1].TMs - res.Chunks[0].TMs) * float64(time.Millisecond))
	if gap >= slept {
		t.Fatalf("chunk 2 stamped %v after chunk 1, not less than the %v the first callback took", gap, slept)
	}
}

func TestDoSentOnceBeforeTheFirstChunk(t *testing.T) { eachWire(t, testSentOnce) }

// Sent is called once, after the request went out and before any chunk
// is handed over; a request that never connects does not call it.
func testSentOnce(t *testing.T, w Wire) {
	srv := newServer(t, &scripted{pause: 2 * time.Millisecond, parts: []string{roleEvent(), contentEvent("Hi"), finalEvent("stop"), doneEvent}})
	var sent atomic.Int32
	var chunksBeforeSent atomic.Int32
	var chunks atomic.Int32
	_, err := Do(context.Background(), Request{URL: srv.URL, Body: chatBody(), Wire: w,
		Sent:    func() { sent.Add(1); chunksBeforeSent.Store(chunks.Load()) },
		OnChunk: func(Chunk) (bool, error) { chunks.Add(1); return true, nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	if sent.Load() != 1 || chunksBeforeSent.Load() != 0 || chunks.Load() != 1 {
		t.Fatalf("Sent called %d times, after %d of %d chunks: want once, before the first", sent.Load(), chunksBeforeSent.Load(), chunks.Load())
	}
	sent.Store(0)
	_, err = Do(context.Background(), Request{URL: "http://127.0.0.1:1", Body: chatBody(), Wire: w, Sent: func() { sent.Add(1) }})
	if err == nil || sent.Load() != 0 {
		t.Fatalf("a refused connection: err %v, Sent called %d times; want an error and no call", err, sent.Load())
	}
}
