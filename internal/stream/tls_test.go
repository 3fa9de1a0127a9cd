package stream

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"
)

// https is read like http: on the raw-socket wires the poller (or the
// stream's thread) reads the socket and each decrypted record carries the
// kernel stamp of the read that completed it; stamps are ordered, never
// later than their read, and every chunk carries a read's stamp.
func TestHTTPSStampsThroughThePoller(t *testing.T) {
	const n = 40
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f := sseHeaders(w)
		w.Write([]byte(roleEvent()))
		f.Flush()
		for i := range n {
			time.Sleep(time.Millisecond)
			w.Write([]byte(contentEvent("t" + strconv.Itoa(i))))
			f.Flush()
		}
		w.Write([]byte(finalEvent("stop") + doneEvent))
	}))
	defer srv.Close()
	conf := srv.Client().Transport.(*http.Transport).TLSClientConfig
	eachWire(t, func(t *testing.T, w Wire) {
		res, err := Do(context.Background(), Request{URL: srv.URL, Body: chatBody(), Wire: w, TLS: conf, KeepReads: true})
		if err != nil || len(res.Chunks) != n || !res.Info.Done {
			t.Fatalf("err %v, %d chunks, done %v", err, len(res.Chunks), res.Info.Done)
		}
		stamps := map[float64]bool{}
		kernel := 0
		for i, rd := range res.Reads {
			stamps[rd.TMs] = true
			if rd.TMs > rd.ReadMs {
				t.Fatalf("read %d: arrival %.6f ms after the read returned (%.6f ms)", i, rd.TMs, rd.ReadMs)
			}
			if i > 0 && rd.TMs < res.Reads[i-1].TMs {
				t.Fatalf("read %d at %.6f ms before read %d at %.6f ms", i, rd.TMs, i-1, res.Reads[i-1].TMs)
			}
			if rd.Source == SourceKernel {
				kernel++
			}
		}
		for i, c := range res.Chunks {
			if !stamps[c.TMs] {
				t.Fatalf("chunk %d at %.6f ms: not a read's stamp", i+1, c.TMs)
			}
		}
		if w == WireNetHTTP {
			if res.Info.StampSource != SourceNetpoll {
				t.Errorf("net/http over https: source %s", res.Info.StampSource)
			}
			return
		}
		if kernel != len(res.Reads) || res.Info.StampSource != SourceKernel {
			t.Errorf("%d of %d records kernel-stamped, source %s: want every one, as on http", kernel, len(res.Reads), res.Info.StampSource)
		}
		if res.Info.HeadersMs > res.Info.TTFTMs || res.Info.TTFTMs > res.TotalMs {
			t.Errorf("headers %.3f, ttft %.3f, total %.3f: out of order", res.Info.HeadersMs, res.Info.TTFTMs, res.TotalMs)
		}
	})
}

// A cut closes an https stream on the poller as it closes an http one.
func TestHTTPSCutOnThePoller(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f := sseHeaders(w)
		for i := 0; r.Context().Err() == nil && i < 2000; i++ {
			w.Write([]byte(contentEvent("x")))
			f.Flush()
			time.Sleep(time.Millisecond)
		}
	}))
	defer srv.Close()
	conf := srv.Client().Transport.(*http.Transport).TLSClientConfig
	res, err := Do(context.Background(), Request{URL: srv.URL, Body: chatBody(), TLS: conf, CutAfter: 30 * time.Millisecond})
	if err != nil || !res.Info.Cut || len(res.Chunks) == 0 {
		t.Fatalf("err %v, cut %v, %d chunks", err, res.Info.Cut, len(res.Chunks))
	}
	if res.Info.ClosedAtMs < 30 || res.Info.StampSource != SourceKernel {
		t.Errorf("closed at %.3f ms (cut after 30), source %s", res.Info.ClosedAtMs, res.Info.StampSource)
	}
}
