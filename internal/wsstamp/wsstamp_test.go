package wsstamp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"ttftlab/internal/endpoint"
)

func TestURL(t *testing.T) {
	for _, tc := range []struct{ base, path, query, want string }{
		{"http://127.0.0.1:8080", "/v1/realtime", "intent=transcription", "ws://127.0.0.1:8080/v1/realtime?intent=transcription"},
		{"https://api.example.com/v1", "/v1/realtime", "intent=transcription", "wss://api.example.com/v1/realtime?intent=transcription"},
		{"ws://h:1/v1/realtime", "/v1/realtime", "", "ws://h:1/v1/realtime"},
		{"wss://h/custom/asr", "/v1/realtime", "intent=transcription", "wss://h/custom/asr?intent=transcription"},
		{"ws://h:1/x?intent=other", "/v1/realtime", "intent=transcription", "ws://h:1/x?intent=other"},
	} {
		got, err := URL(tc.base, tc.path, tc.query)
		if err != nil || got != tc.want {
			t.Errorf("URL(%q) = %q, %v; want %q", tc.base, got, err, tc.want)
		}
	}
	for base, want := range map[string]error{
		"ftp://h":               ErrScheme,
		"ws://u:hunter2@h:1/v1": ErrPassword,
		"/v1/realtime":          ErrURL,
		"http://[::1:bad/v1":    ErrURL,
	} {
		_, err := URL(base, "/v1/realtime", "")
		if !errors.Is(err, want) {
			t.Errorf("URL(%q): %v, want %v", base, err, want)
		}
		if err != nil && strings.Contains(err.Error(), "hunter2") {
			t.Errorf("URL(%q) shows the password: %v", base, err)
		}
	}
}

// The frame scanner finds the read that completes each data message of a
// server's stream, whatever the reads' sizes: after the response head,
// a short text message, a ping (no message), a message of a 16-bit
// length in two fragments, one of a 64-bit length.
func TestFrameScanStampsCompletingRead(t *testing.T) {
	head := "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n"
	frame := func(fin bool, op byte, n int) []byte {
		b0 := op
		if fin {
			b0 |= 0x80
		}
		var h []byte
		switch {
		case n < 126:
			h = []byte{b0, byte(n)}
		case n < 1<<16:
			h = []byte{b0, 126, byte(n >> 8), byte(n)}
		default:
			h = []byte{b0, 127, 0, 0, 0, 0, byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}
		}
		return append(h, make([]byte, n)...)
	}
	stream := []byte(head)
	var ends []int // offset of each message's last byte
	add := func(b []byte, ends_ bool) {
		stream = append(stream, b...)
		if ends_ {
			ends = append(ends, len(stream)-1)
		}
	}
	add(frame(true, 1, 20), true)
	add(frame(true, 9, 4), false)
	add(frame(false, 1, 200), false)
	add(frame(true, 0, 300), true)
	add(frame(true, 2, 70000), true)
	add(frame(true, 1, 0), true)
	for _, size := range []int{1, 2, 3, 7, 64, 1000, len(stream)} {
		var s frameScan
		var got []int
		for off := 0; off < len(stream); off += size {
			end := min(off+size, len(stream))
			s.feed(stream[off:end], func() { got = append(got, off) })
		}
		if len(got) != len(ends) {
			t.Fatalf("reads of %d: %d messages, want %d", size, len(got), len(ends))
		}
		for i, e := range ends {
			if want := e / size * size; got[i] != want {
				t.Fatalf("reads of %d: message %d completed by the read at %d, want %d", size, i, got[i], want)
			}
		}
	}
}

// Each message read carries a stamp taken between the server's write of
// it and the return of Read, in the order sent, over plain TCP and TLS;
// the endpoint's headers reach the upgrade.
func TestDialReadStamps(t *testing.T) {
	for _, useTLS := range []bool{false, true} {
		sent := make(chan time.Time, 8)
		var auth string
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			auth = r.Header.Get("Authorization")
			ws, err := websocket.Accept(w, r, nil)
			if err != nil {
				return
			}
			defer ws.CloseNow()
			for i := range 4 {
				time.Sleep(15 * time.Millisecond)
				sent <- time.Now()
				ws.Write(r.Context(), websocket.MessageText, make([]byte, 10+i*40000))
			}
			ws.Read(r.Context())
		})
		var srv *httptest.Server
		ep := &endpoint.Endpoint{Key: "sk-test"}
		if useTLS {
			srv = httptest.NewTLSServer(h)
			ep.TLS = srv.Client().Transport.(*http.Transport).TLSClientConfig
		} else {
			srv = httptest.NewServer(h)
		}
		ep.Base = srv.URL
		u, err := URL(srv.URL, "/v1/realtime", "")
		if err != nil {
			t.Fatal(err)
		}
		c, err := Dial(context.Background(), ep, u, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		c.SetReadLimit(1 << 20)
		for i := range 4 {
			_, data, at, err := c.Read(context.Background())
			back := time.Now()
			if err != nil {
				t.Fatal(err)
			}
			s := <-sent
			if len(data) != 10+i*40000 || at.Before(s) || at.After(back) {
				t.Fatalf("tls %v: message %d of %d bytes stamped %v; sent %v, Read returned %v", useTLS, i, len(data), at, s, back)
			}
		}
		if auth != "Bearer sk-test" {
			t.Fatalf("Authorization %q", auth)
		}
		c.CloseNow()
		srv.Close()
	}
}

// A refused upgrade is a *RefusedError with its status.
func TestDialRefused(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no", http.StatusUnauthorized)
	}))
	defer srv.Close()
	u, _ := URL(srv.URL, "/v1/realtime", "")
	_, err := Dial(context.Background(), &endpoint.Endpoint{Base: srv.URL}, u, 5*time.Second)
	var re *RefusedError
	if !errors.As(err, &re) || re.Status != http.StatusUnauthorized {
		t.Fatalf("err %v", err)
	}
}

// AppendAudio is the append event with the frame in base64.
func TestAppendAudio(t *testing.T) {
	pcm := []byte{1, 0, 255, 127, 0, 128}
	var ev struct{ Type, Audio string }
	if err := json.Unmarshal(AppendAudio(pcm), &ev); err != nil {
		t.Fatal(err)
	}
	got, err := base64.StdEncoding.DecodeString(ev.Audio)
	if err != nil || ev.Type != "input_audio_buffer.append" || string(got) != string(pcm) {
		t.Fatalf("%+v: %v %v", ev, got, err)
	}
}

// TestErrorEvent: an error event's message and code in OpenAI's shape
// (the code named after the message), a bare string (vLLM's), and a
// member neither reads, kept as it came.
func TestErrorEvent(t *testing.T) {
	for _, c := range []struct{ raw, msg, code string }{
		{`{"message":"bad audio","code":"invalid_value","type":"invalid_request_error"}`, "bad audio (invalid_value)", "invalid_value"},
		{`{"message":"busy"}`, "busy", ""},
		{`"model not loaded"`, "model not loaded", ""},
		{`42`, "42", ""},
	} {
		if msg, code := ErrorEvent(json.RawMessage(c.raw)); msg != c.msg || code != c.code {
			t.Errorf("%s: %q, %q; want %q, %q", c.raw, msg, code, c.msg, c.code)
		}
	}
}

// TestHowClosed: a close frame with its reason, one without, a socket
// closed without one, and another error, each said as it was.
func TestHowClosed(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{websocket.CloseError{Code: websocket.StatusInternalError, Reason: "overloaded"}, " (close 1011: overloaded)"},
		{fmt.Errorf("read: %w", websocket.CloseError{Code: websocket.StatusNormalClosure}), " (close 1000)"},
		{fmt.Errorf("read: %w", io.EOF), " (EOF)"},
		{errors.New("connection reset by peer"), ": connection reset by peer"},
	} {
		if got := HowClosed(c.err); got != c.want {
			t.Errorf("%v: %q, want %q", c.err, got, c.want)
		}
	}
}
