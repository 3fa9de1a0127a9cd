package stt

import (
	"bufio"
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"ttftlab/internal/stt/stttest"
)

// closedPort is a loopback address nothing listens at.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// silent is a loopback server that accepts connections and never
// answers, reading nothing (its connections closed when the test ends).
func silent(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return l.Addr().String()
}

// failed is err as an *Error of kind whose message holds every one of
// want and no secret; its Partial is kept.
func failed(t *testing.T, what string, err error, kind string, want ...string) *Error {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("%s: error %v, want an *Error of kind %s", what, err, kind)
	}
	if e.Kind != kind {
		t.Fatalf("%s: kind %s, want %s: %s", what, e.Kind, kind, e.Msg)
	}
	for _, w := range want {
		if !strings.Contains(e.Msg, w) {
			t.Fatalf("%s: %q does not say %q", what, e.Msg, w)
		}
	}
	noSecret(t, what, e.Msg, false)
	return e
}

var uploadAPIs = []API{APIOpenAI, APIOpenAIStream, APIWhisper}

func fakeKind(api API) stttest.Kind {
	if api == APIWhisper {
		return stttest.Whisper
	}
	return stttest.OpenAI
}

// A closed local port is stt_connect, said as such, for every protocol;
// a URL with a password is refused before anything is sent (as an
// upload's base is), and never shows it.
func TestFaultClosedPort(t *testing.T) {
	addr := closedPort(t)
	clip := clipOf(60)
	for _, api := range APIs {
		_, err := Transcribe(context.Background(), secretConfig("http://"+addr, api), clip)
		failed(t, string(api), err, KindConnect, addr, "refused")
		_, err = Transcribe(context.Background(), secretConfig("http://user:pa55word@"+addr, api), clip)
		e := failed(t, string(api)+" with a password", err, KindConnect, "user:xxxxx@"+addr, "without", "password")
		if strings.Contains(e.Msg, "pa55word") {
			t.Fatalf("%s: the password shows in %q", api, e.Msg)
		}
	}
}

// A server that takes the connection and never answers (nor reads the
// upload) is stt_timeout within the turn's timeout, for every protocol:
// a streaming turn's upgrade is bounded too.
func TestFaultNeverAnswers(t *testing.T) {
	addr := silent(t)
	clip := clipOf(60)
	for _, api := range APIs {
		cfg := secretConfig("http://"+addr, api)
		cfg.Timeout = 400 * time.Millisecond
		done := make(chan error, 1)
		go func() {
			_, err := Transcribe(context.Background(), cfg, clip)
			done <- err
		}()
		select {
		case err := <-done:
			want := "no transcript within 400ms"
			if api.Streaming() {
				want = "did not answer the WebSocket upgrade within 400ms"
			}
			e := failed(t, string(api), err, KindTimeout, want)
			if !api.Streaming() && e.Partial == nil {
				t.Fatalf("%s: no partial result", api)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("%s: still waiting 20 s after a timeout of 400 ms", api)
		}
	}
}

// A 200 whose body is no transcript: not JSON, an event stream of no
// events, an event that is not JSON, a stream that ends without
// transcript.text.done (its first partial kept): stt_bad_data.
func TestFaultUploadBadAnswers(t *testing.T) {
	clip := clipOf(60)
	for _, tc := range []struct {
		name, body, ctype string
		api               API
		want              string
		partial           bool
	}{
		{"html", "<html><body>Bad Gateway</body></html>", "text/html", APIOpenAI, "not JSON", false},
		{"html whisper", "<html><body>Bad Gateway</body></html>", "text/html", APIWhisper, "not JSON", false},
		{"no text", `{"segments":[]}`, "application/json", APIOpenAI, `no "text"`, false},
		{"no events", "this is not an event stream\n\n", "text/event-stream", APIOpenAIStream, "without", false},
		{"event not JSON", "data: {not json\n\n", "text/event-stream", APIOpenAIStream, "not valid JSON", false},
		{"no done", "data: {\"type\":\"transcript.text.delta\",\"delta\":\"what\"}\n\n", "text/event-stream", APIOpenAIStream, "without", true},
	} {
		fake := stttest.Start(&stttest.Server{Kind: fakeKind(tc.api), Raw: tc.body, RawType: tc.ctype})
		_, err := Transcribe(context.Background(), secretConfig(fake.URL, tc.api), clip)
		fake.Close()
		e := failed(t, tc.name, err, KindBadData, tc.want, fake.URL)
		if e.Partial == nil || e.Partial.SentMs == 0 || (tc.partial != (e.Partial.FirstPartialMs != nil)) {
			t.Fatalf("%s: partial %+v", tc.name, e.Partial)
		}
	}
}

// A transcript past MaxTranscript fails as stt_bad_data, whether it
// comes whole (a JSON answer; a Realtime completed event; vLLM's done)
// or in deltas (cut as soon as they pass it); a WebSocket message past
// the read limit too.
func TestFaultHugeTranscript(t *testing.T) {
	huge := strings.Repeat("la ", MaxTranscript/3+1000)
	clip := clipOf(60)
	for _, api := range uploadAPIs {
		fake := stttest.Start(&stttest.Server{Kind: fakeKind(api), Text: huge, DeltaBytes: 64 << 10})
		_, err := Transcribe(context.Background(), secretConfig(fake.URL, api), clip)
		fake.Close()
		failed(t, string(api), err, KindBadData, "the transcript passed 1048576 bytes")
	}
	fake := stttest.Start(&stttest.Server{Kind: stttest.OpenAI, Raw: `{"text":"` + strings.Repeat("la ", 2<<20) + `"}`, RawType: "application/json"})
	_, err := Transcribe(context.Background(), secretConfig(fake.URL, APIOpenAI), clip)
	fake.Close()
	failed(t, "a JSON answer of 6 MiB", err, KindBadData, "over 4194304 bytes")

	rclip := toneClip(RealtimeRate, 0, 200, 0)
	rt := &stttest.Realtime{Text: huge}
	_, err = Transcribe(context.Background(), secretConfig(rt.Start(t), APIRealtime), rclip)
	failed(t, "realtime", err, KindBadData, "the transcript passed 1048576 bytes")
	rt = &stttest.Realtime{After: `{"type":"x","pad":"` + strings.Repeat("a", 5<<20) + `"}`}
	_, err = Transcribe(context.Background(), secretConfig(rt.Start(t), APIRealtime), rclip)
	failed(t, "realtime message of 5 MiB", err, KindBadData, "a message over 4194304 bytes")

	vclip := toneClip(VLLMRealtimeRate, 0, 200, 0)
	for _, v := range []*stttest.VLLMRealtime{{Text: huge}, {Text: huge, DeltaBytes: 64 << 10, NoDoneText: true}} {
		_, err = Transcribe(context.Background(), secretConfig(v.Start(t), APIVLLMRealtime), vclip)
		failed(t, "vllm-realtime", err, KindBadData, "the transcript passed 1048576 bytes")
	}
}

// A WAV refused with 413, after the body was read or as soon as its
// head came (a server that answers before the upload is done): stt_http
// with the status, the server's message and what to do.
func TestFaultUpload413(t *testing.T) {
	clip := clipOf(1000)
	for _, early := range []bool{false, true} {
		for _, api := range uploadAPIs {
			fake := stttest.Start(&stttest.Server{Kind: fakeKind(api), Status: 413, Early: early, Echo: echoed})
			_, err := Transcribe(context.Background(), secretConfig(fake.URL, api), clip)
			fake.Close()
			e := failed(t, string(api), err, KindHTTP, "413", "refused the upload as too large", "1.0 s of audio", fake.URL)
			if e.Status != 413 || e.Partial == nil {
				t.Fatalf("%s early %v: status %d partial %v", api, early, e.Status, e.Partial)
			}
		}
	}
}

// A server that answers the transcript before the upload is done: the
// transcript is taken, its stamp is the answer's.
func TestFaultUploadAnsweredEarly(t *testing.T) {
	clip := clipOf(1000)
	for _, api := range uploadAPIs {
		fake := stttest.Start(&stttest.Server{Kind: fakeKind(api), Text: "too soon", Early: true})
		res, err := Transcribe(context.Background(), secretConfig(fake.URL, api), clip)
		fake.Close()
		if err != nil || res.Text != "too soon" || res.FinalMs <= 0 {
			t.Fatalf("%s: %+v, %v", api, res, err)
		}
	}
}

// A server that answers 413 as soon as the head came and closes with
// the body unread (the kernel resets the connection).
func TestFaultUploadResetAfterAnswer(t *testing.T) {
	addr := rawHTTP(t, "HTTP/1.1 413 Payload Too Large\r\nContent-Type: application/json\r\nContent-Length: 36\r\nConnection: close\r\n\r\n{\"error\":{\"message\":\"too large\"}}")
	for _, api := range uploadAPIs {
		_, err := Transcribe(context.Background(), secretConfig("http://"+addr, api), clipOf(1000))
		if e := failed(t, string(api), err, KindHTTP, "413", "too large", "refused the upload as too large"); e.Status != 413 {
			t.Fatalf("%s: status %d", api, e.Status)
		}
	}
}

// rawHTTP is a loopback server that reads a request's head and answers
// it with resp, reading nothing of the body, then closes.
func rawHTTP(t *testing.T, resp string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				for {
					line, err := br.ReadString('\n')
					if err != nil || line == "\r\n" {
						break
					}
				}
				c.Write([]byte(resp))
			}()
		}
	}()
	return l.Addr().String()
}
