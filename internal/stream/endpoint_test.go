package stream

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestRequestTLSAndHeaders: Request.TLS reaches the https path and
// Request.Header goes with the stream; GetOptions carry both for Get and
// Post.
// Fails before this change: Request had no TLS field and Get/Post sent no
// headers.
func TestRequestTLSAndHeaders(t *testing.T) {
	var auth []string
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth = append(auth, r.Method+" "+r.URL.Path+" "+r.Header.Get("Authorization"))
		if r.URL.Path == "/v1/chat/completions" {
			(&scripted{parts: []string{roleEvent(), contentEvent("s"), doneEvent}}).ServeHTTP(w, r)
			return
		}
		w.Write([]byte("{}"))
	}))
	defer srv.Close()
	conf := srv.Client().Transport.(*http.Transport).TLSClientConfig
	h := map[string]string{"Authorization": "Bearer k1"}
	res, err := Do(context.Background(), Request{URL: srv.URL + "/v1", Body: chatBody(), TLS: conf, Header: h})
	if err != nil || len(res.Chunks) != 1 {
		t.Fatalf("Do with Request.TLS: %v", err)
	}
	o := GetOptions{Header: h, TLS: conf}
	if status, _, err := Get(context.Background(), srv.URL+"/props", o); err != nil || status != 200 {
		t.Fatalf("Get with GetOptions: %d %v", status, err)
	}
	if status, _, err := Post(context.Background(), srv.URL+"/tokenize", []byte(`{}`), o); err != nil || status != 200 {
		t.Fatalf("Post with GetOptions: %d %v", status, err)
	}
	want := "POST /v1/chat/completions Bearer k1|GET /props Bearer k1|POST /tokenize Bearer k1"
	if got := strings.Join(auth, "|"); got != want {
		t.Errorf("the server saw %q, want %q (a /v1 base not doubled, the header on every request)", got, want)
	}
}
