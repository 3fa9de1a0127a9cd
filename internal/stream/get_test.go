package stream

import (
	"context"
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

// TestPostSendsJSON: the body and its type arrive, any status is an
// answer, and each call has a connection of its own.
func TestPostSendsJSON(t *testing.T) {
	var opened atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, _ := io.ReadAll(r.Body)
		if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" {
			http.Error(w, r.Method+" "+r.Header.Get("Content-Type"), http.StatusTeapot)
			return
		}
		if r.URL.Path == "/missing" {
			http.Error(w, `{"error":{"code":404}}`, http.StatusNotFound)
			return
		}
		w.Write(append([]byte("echo:"), got...))
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			opened.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()

	status, body, err := Post(context.Background(), srv.URL+"/tokenize", []byte(`{"content":"hi"}`))
	if err != nil || status != 200 || string(body) != `echo:{"content":"hi"}` {
		t.Fatalf("tokenize: %d %q %v", status, body, err)
	}
	status, body, err = Post(context.Background(), srv.URL+"/missing", []byte(`{}`))
	if err != nil || status != 404 || !strings.Contains(string(body), "404") {
		t.Fatalf("missing: %d %q %v: a 404 is an answer, not an error", status, body, err)
	}
	if opened.Load() != 2 {
		t.Fatalf("%d connections for 2 requests, want one each", opened.Load())
	}
}

func TestPostErrorsNameTheMethod(t *testing.T) {
	url := closedPort(t) + "/tokenize"
	_, _, err := Post(context.Background(), url, []byte(`{}`))
	var se *Error
	if !errors.As(err, &se) || se.Kind != KindConnect || !strings.Contains(err.Error(), "POST "+url) {
		t.Fatalf("err = %v, want a connect error naming POST %s", err, url)
	}
	url = rawServer(t, func(c net.Conn) { time.Sleep(time.Second) }) + "/tokenize"
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, _, err = Post(ctx, url, []byte(`{}`))
	if !errors.As(err, &se) || se.Kind != KindTimeout || !strings.Contains(err.Error(), "POST "+url) {
		t.Fatalf("err = %v, want a timeout naming POST %s", err, url)
	}
}
