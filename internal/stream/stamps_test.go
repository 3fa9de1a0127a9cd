package stream

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"testing"
	"time"

	"ttftlab/internal/wire"
)

// pacedServer sends n content events, the i-th at start+i*gap, on a raw
// socket (HTTP/1.1, body delimited by the close), and records when each
// write began on this process's clock.
type pacedServer struct {
	n     int
	gap   time.Duration
	burst int // events per write (1: one each)

	mu    sync.Mutex
	sends []time.Time // by event index from 0, for the last request
	done  time.Time   // when the last content write returned
}

func (p *pacedServer) serve(t *testing.T) string {
	return rawServer(t, func(c net.Conn) {
		c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n" + roleEvent()))
		sends := make([]time.Time, p.n)
		start := time.Now()
		burst := max(p.burst, 1)
		for i := 0; i < p.n; i += burst {
			time.Sleep(time.Until(start.Add(time.Duration(i/burst+1) * p.gap)))
			var b []byte
			for k := i; k < min(i+burst, p.n); k++ {
				b = append(b, contentEvent(fmt.Sprintf(" t%d", k))...)
			}
			at := time.Now()
			if _, err := c.Write(b); err != nil {
				return
			}
			for k := i; k < min(i+burst, p.n); k++ {
				sends[k] = at
			}
		}
		p.mu.Lock()
		p.sends, p.done = sends, time.Now()
		p.mu.Unlock()
		c.Write([]byte(finalEvent("stop") + doneEvent))
	})
}

func (p *pacedServer) record() ([]time.Time, time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.sends, p.done
}

// A callback far slower than the server must not shift any stamp: the
// callbacks fall further and further behind the server, while no chunk's
// arrival stamp is late by even half of what the callbacks fell behind in
// the same run (a stamp taken in the callback's wake would be late by all
// of it).
func TestStampsFollowTheServerDespiteASlowCallback(t *testing.T) {
	eachWire(t, func(t *testing.T, w Wire) {
		p := &pacedServer{n: 100, gap: 4 * time.Millisecond}
		url := p.serve(t)
		var lastCallback time.Time
		res, err := Do(context.Background(), Request{URL: url, Body: chatBody(), Wire: w,
			OnChunk: func(Chunk) (bool, error) {
				time.Sleep(2 * p.gap)
				lastCallback = time.Now()
				return true, nil
			}})
		if err != nil || len(res.Chunks) != p.n {
			t.Fatalf("err %v, %d chunks", err, len(res.Chunks))
		}
		sends, done := p.record()
		behind := lastCallback.Sub(done)
		if behind < time.Duration(p.n/2)*p.gap {
			t.Fatalf("the callbacks ended only %v after the server: not slow enough to test anything", behind)
		}
		for i, c := range res.Chunks {
			arrival := res.Info.T0.Add(time.Duration(c.TMs * float64(time.Millisecond)))
			if e := arrival.Sub(sends[i]); e < -wire.MaxClockSkew || e >= behind/2 {
				t.Fatalf("chunk %d (%s) stamped %v after it was sent, while the callbacks ended %v behind the server",
					i+1, res.Info.StampSource, e, behind)
			}
		}
	})
}

// Arrival stamps never go backwards within a stream, a kernel stamp is
// never later than the read that returned it, every chunk carries the
// stamp of a read, and on Linux the raw-socket wires get kernel stamps.
func TestStampsOrderedAndKernelBeforeRead(t *testing.T) {
	eachWire(t, func(t *testing.T, w Wire) {
		p := &pacedServer{n: 600, gap: 200 * time.Microsecond, burst: 3}
		res, err := Do(context.Background(), Request{URL: p.serve(t), Body: chatBody(), Wire: w, KeepReads: true})
		if err != nil || len(res.Chunks) != p.n {
			t.Fatalf("err %v, %d chunks", err, len(res.Chunks))
		}
		info := res.Info
		stamps := map[float64]bool{}
		kernel := 0
		for i, rd := range res.Reads {
			stamps[rd.TMs] = true
			if rd.TMs > rd.ReadMs {
				t.Fatalf("read %d: arrival %.6f ms after the read returned (%.6f ms)", i, rd.TMs, rd.ReadMs)
			}
			if i > 0 && (rd.TMs < res.Reads[i-1].TMs || rd.ReadMs < res.Reads[i-1].ReadMs) {
				t.Fatalf("read %d at %.6f ms (returned %.6f) before read %d at %.6f ms (returned %.6f)",
					i, rd.TMs, rd.ReadMs, i-1, res.Reads[i-1].TMs, res.Reads[i-1].ReadMs)
			}
			if rd.Source == SourceKernel {
				kernel++
			}
		}
		for i, c := range res.Chunks {
			if !stamps[c.TMs] || (i > 0 && c.TMs < res.Chunks[i-1].TMs) {
				t.Fatalf("chunk %d at %.6f ms: not a read's stamp, or before chunk %d", i+1, c.TMs, i)
			}
		}
		if len(res.Reads) != info.Reads || kernel != info.KernelStamps {
			t.Errorf("%d reads kept, %d kernel-stamped; info says %d and %d", len(res.Reads), kernel, info.Reads, info.KernelStamps)
		}
		if w.choose(mustURL(t, "http://x"), options{}) != WireNetHTTP {
			if kernel != len(res.Reads) || info.StampSource != SourceKernel {
				t.Errorf("%d of %d reads kernel-stamped, source %s: the kernel stamps every read on loopback", kernel, len(res.Reads), info.StampSource)
			}
		} else if kernel != 0 || info.StampSource != SourceNetpoll {
			t.Errorf("net/http: %d kernel stamps, source %s", kernel, info.StampSource)
		}
	})
}

// Many streams at once share the poller: each gets its own chunks, in
// order, with its own stamps.
func TestConcurrentStreamsShareThePoller(t *testing.T) {
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f := sseHeaders(w)
		id := r.Header.Get("X-Stream")
		for i := 0; i < 20; i++ {
			w.Write([]byte(contentEvent(id + "/" + strconv.Itoa(i))))
			f.Flush()
			time.Sleep(time.Millisecond)
		}
		w.Write([]byte(doneEvent))
	}))
	const n = 64
	errs := make(chan error, n)
	for k := 0; k < n; k++ {
		go func() {
			id := strconv.Itoa(k)
			res, err := Do(context.Background(), Request{URL: srv.URL, Body: chatBody(), Header: map[string]string{"X-Stream": id}})
			if err == nil && len(res.Chunks) != 20 {
				err = fmt.Errorf("stream %s: %d chunks", id, len(res.Chunks))
			}
			for i, c := range res.Chunks {
				if err == nil && (c.Text != id+"/"+strconv.Itoa(i) || (i > 0 && c.TMs < res.Chunks[i-1].TMs)) {
					err = fmt.Errorf("stream %s: chunk %d is %q at %.3f ms", id, i, c.Text, c.TMs)
				}
			}
			errs <- err
		}()
	}
	for k := 0; k < n; k++ {
		if err := <-errs; err != nil {
			t.Error(err)
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
