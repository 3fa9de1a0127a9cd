package stream

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestGetReturnsEveryStatus(t *testing.T) {
	var opened atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/health" {
			w.WriteHeader(http.StatusServiceUnavailable)
			w.Write([]byte(`{"error":{"message":"Loading model","type":"unavailable_error","code":503}}`))
			return
		}
		w.Write([]byte(`{"total_slots":1}`))
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			opened.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()

	status, body, err := Get(context.Background(), srv.URL+"/props")
	if err != nil || status != 200 || string(body) != `{"total_slots":1}` {
		t.Fatalf("props: %d %q %v", status, body, err)
	}
	status, body, err = Get(context.Background(), srv.URL+"/health")
	if err != nil || status != 503 || !strings.Contains(string(body), "Loading model") {
		t.Fatalf("health: %d %q %v: a 503 is an answer, not an error", status, body, err)
	}
	if opened.Load() != 2 {
		t.Fatalf("%d connections for 2 requests, want one each", opened.Load())
	}
}

func TestGetNothingListening(t *testing.T) {
	url := closedPort(t) + "/health"
	_, _, err := Get(context.Background(), url)
	var se *Error
	if !errors.As(err, &se) || se.Kind != KindConnect {
		t.Fatalf("err = %v, want a connect error", err)
	}
	for _, want := range []string{"GET " + url, "nothing is listening"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %s", want, err)
		}
	}
}

func TestGetTimeout(t *testing.T) {
	url := rawServer(t, func(c net.Conn) { time.Sleep(time.Second) }) + "/slots"
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, _, err := Get(ctx, url)
	var se *Error
	if !errors.As(err, &se) || se.Kind != KindTimeout || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want a timeout", err)
	}
	if !strings.Contains(err.Error(), url) || !strings.Contains(err.Error(), "no complete answer") {
		t.Fatalf("err = %q", err)
	}
}

func TestGetTLS(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("ok"))
	}))
	defer srv.Close()
	conf := srv.Client().Transport.(*http.Transport).TLSClientConfig
	status, body, _, err := get(context.Background(), srv.URL, options{tls: conf})
	if err != nil || status != 200 || string(body) != "ok" {
		t.Fatalf("%d %q %v", status, body, err)
	}
}

func TestGetBadURL(t *testing.T) {
	_, _, err := Get(context.Background(), "127.0.0.1:8080/health")
	var se *Error
	if !errors.As(err, &se) || se.Kind != KindRequest {
		t.Fatalf("err = %v", err)
	}
}
