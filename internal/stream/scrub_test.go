package stream

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"
)

// echoKey is a server that echoes the Authorization header it received:
// in a 500 body on /fail, in a GET's body on /props, and in a stream
// (in a comment cut in two writes mid-key, in a content chunk, and in
// the error event that ends it).
func echoKey(t *testing.T) string {
	return newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		switch r.URL.Path {
		case "/fail":
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusInternalServerError)
			w.Write([]byte(`{"error":{"message":"bad request with header Authorization: ` + auth + `","type":"server_error"}}`))
			return
		case "/props":
			w.Write([]byte(`{"seen":"` + auth + `"}`))
			return
		}
		f := sseHeaders(w)
		half := len(auth) - 4
		for _, p := range []string{roleEvent(), ": debug " + auth[:half], auth[half:] + "\n\n", contentEvent("echo " + auth),
			`data: {"error":{"code":500,"message":"slot failed; Authorization: ` + auth + `","type":"server_error"}}` + "\n\n"} {
			w.Write([]byte(p))
			f.Flush()
			time.Sleep(5 * time.Millisecond)
		}
	})).URL
}

// TestServerTextScrubbed: the key a request sent, echoed back by the
// server, is in none of what Do, Get and Post return: not the error of a
// 500 or of an error event, not a chunk's text, not the raw copy (the
// key cut across two reads included), not a GET's or POST's body or
// error; [redacted] stands in its place.
// Fails before this change: the key was in all of them.
func TestServerTextScrubbed(t *testing.T) {
	const key = "sk-echo-5c9e1f0a"
	hdr := map[string]string{"Authorization": "Bearer " + key}
	url := echoKey(t)
	eachWire(t, func(t *testing.T, w Wire) {
		var raw strings.Builder
		res, err := Do(context.Background(), Request{URL: url, Body: chatBody(), Header: hdr, RawOut: &raw, Wire: w})
		e, ok := err.(*Error)
		if !ok || e.Kind != KindServer || !strings.Contains(e.Error(), "Authorization: Bearer [redacted]") {
			t.Fatalf("stream: %v, want the server's error event with the key redacted", err)
		}
		if strings.Contains(e.Error()+e.Message+raw.String(), key) {
			t.Errorf("the key is in the error or the raw copy:\n%v\n%s", e, raw.String())
		}
		if !strings.Contains(raw.String(), ": debug Bearer [redacted]\n\n") {
			t.Errorf("raw copy %q lacks the comment, key redacted", raw.String())
		}
		if len(res.Chunks) != 1 || res.Chunks[0].Text != "echo Bearer [redacted]" {
			t.Errorf("chunks %+v, want one with the key redacted", res.Chunks)
		}
		raw.Reset()
		_, err = Do(context.Background(), Request{URL: url, Path: "/fail", Body: chatBody(), Header: hdr, RawOut: &raw, Wire: w})
		if err == nil || strings.Contains(err.Error()+err.(*Error).Message+raw.String(), key) ||
			!strings.Contains(err.Error(), "HTTP 500") || !strings.Contains(raw.String(), "[redacted]") {
			t.Errorf("500: %v, raw %q: want the key redacted", err, raw.String())
		}
	})
	_, body, err := Get(context.Background(), url+"/props", GetOptions{Header: hdr})
	if err != nil || string(body) != `{"seen":"Bearer [redacted]"}` {
		t.Errorf("GET: %q %v, want the key redacted", body, err)
	}
	status, body, _ := Post(context.Background(), url+"/fail", []byte("{}"), GetOptions{Header: hdr})
	if status != 500 || strings.Contains(string(body), key) {
		t.Errorf("POST: %d %q, want the key redacted", status, body)
	}
}

// TestKeyAcrossChunksScrubbed: a server that echoes the key a few
// characters per content chunk leaves none of it in the chunks' texts
// once the stream has ended: [redacted] stands where it started, its
// other parts are gone, and every chunk keeps its place and stamp.
// Fails before this change: each chunk was scrubbed alone, and the
// joined answer held the key.
func TestKeyAcrossChunksScrubbed(t *testing.T) {
	const key = "sk-split-7d2a91c4"
	hdr := map[string]string{"Authorization": "Bearer " + key}
	url := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f := sseHeaders(w)
		for _, p := range []string{roleEvent(), contentEvent("your key is sk-sp"), contentEvent("lit-7d2"),
			contentEvent("a91c4, keep it"), contentEvent(" safe."), "data: [DONE]\n\n"} {
			w.Write([]byte(p))
			f.Flush()
		}
	})).URL
	eachWire(t, func(t *testing.T, w Wire) {
		res, err := Do(context.Background(), Request{URL: url, Body: chatBody(), Header: hdr, Wire: w})
		if err != nil {
			t.Fatal(err)
		}
		var texts []string
		for _, c := range res.Chunks {
			texts = append(texts, c.Text)
		}
		want := []string{"your key is [redacted]", "", ", keep it", " safe."}
		if strings.Join(texts, "|") != strings.Join(want, "|") {
			t.Errorf("chunks %q, want %q", texts, want)
		}
		for i, c := range res.Chunks {
			if c.Index != i+1 || (i > 0 && c.TMs < res.Chunks[i-1].TMs) {
				t.Errorf("chunk %d: index %d at %v ms: a chunk lost its place or stamp", i+1, c.Index, c.TMs)
			}
		}
	})
}

// TestQuotedBodyScrubbedBeforeCut: a body quoted shortened in a message
// is redacted before it is cut, so no start of a key the cut fell in
// shows: not even the few bytes too short to be known as a key's start
// once cut off ("sk-").
func TestQuotedBodyScrubbedBeforeCut(t *testing.T) {
	const key = "sk-echo-5c9e1f0a"
	url := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusBadGateway)
		// The quote keeps 200 bytes: the key starts at byte 197.
		w.Write([]byte(strings.Repeat("x", 190) + r.Header.Get("Authorization") + " and the rest of the page"))
	})).URL
	_, err := Do(context.Background(), Request{URL: url, Body: chatBody(), Header: map[string]string{"Authorization": "Bearer " + key}})
	if err == nil || !strings.Contains(err.Error(), `xxxBearer [re"... (`) || strings.Contains(err.Error(), "sk-") {
		t.Fatalf("error %v, want the body quoted with the key redacted before the cut", err)
	}
}
