package pocketsphinx

import (
	"bytes"
	"context"
	"errors"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"ttftlab/internal/callaudio"
)

// decoders are the PIDs of the server's processes: the warm one (0 when
// none) and those a request or a session holds.
func (s *Server) decoders() (spare int, busy []int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for d := range s.running {
		if d == s.spare {
			spare = d.cmd.Process.Pid
		} else {
			busy = append(busy, d.cmd.Process.Pid)
		}
	}
	return spare, busy
}

// busyDecoder waits until a request or a session holds a decoder and
// returns its PID.
func busyDecoder(t *testing.T, s *Server) int {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if _, busy := s.decoders(); len(busy) == 1 {
			return busy[0]
		}
	}
	t.Fatal("no request's decoder ran within 10 s")
	return 0
}

// gone waits until no process has pid (killed and reaped), failing the
// test after a while.
func gone(t *testing.T, pid int, what string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: process %d still there 10 s later", what, pid)
		}
	}
}

// kill ends pid as a crash would.
func kill(t *testing.T, pid int) {
	t.Helper()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatalf("kill %d: %v", pid, err)
	}
}

// A warm decoder that died while it waited (killed by its PID) is not
// given to the next request: it gets a live one and its transcript.
func TestDeadSpareIsReplaced(t *testing.T) {
	srv := &Server{Bin: engine(t)}
	defer srv.Close()
	wav := spoken(t, question).WAV()
	if err := srv.Warm(); err != nil {
		t.Fatal(err)
	}
	spare, _ := srv.decoders()
	if spare == 0 {
		t.Fatal("no warm decoder")
	}
	kill(t, spare)
	hs := httptest.NewServer(srv)
	defer hs.Close()
	if code, body := upload(t, hs.URL, wav); code != 200 || !strings.Contains(body, `"text"`) {
		t.Fatalf("after the warm decoder died: %d %s", code, body)
	}
	gone(t, spare, "the killed warm decoder")
}

// A decoder killed by its PID in the middle of an upload answers 500
// (or, once a stream began, an error event) naming pocketsphinx; the
// next upload gets a new decoder and its transcript.
func TestDecoderKilledMidUpload(t *testing.T) {
	srv := &Server{Bin: engine(t)}
	defer srv.Close()
	// A long question, so the decoding outlasts the kill.
	wav := spoken(t, strings.Repeat(question+" ", 4)).WAV()
	hs := httptest.NewServer(srv)
	defer hs.Close()
	for _, stream := range []bool{false, true} {
		var fields []string
		if stream {
			fields = []string{"stream", "true"}
		}
		type answer struct {
			code int
			body string
		}
		got := make(chan answer, 1)
		go func() {
			code, body := upload(t, hs.URL, wav, fields...)
			got <- answer{code, body}
		}()
		pid := busyDecoder(t, srv)
		kill(t, pid)
		a := <-got
		// Before any event: a 500; after one, an error event.
		switch {
		case !strings.Contains(a.body, "pocketsphinx") || !strings.Contains(a.body, "killed") || strings.Contains(a.body, "transcript.text.done"):
			t.Fatalf("stream %v: %d %s", stream, a.code, a.body)
		case a.code == 500 && strings.Contains(a.body, `"type":"server_error"`):
		case stream && a.code == 200 && strings.Contains(a.body, `"type":"error"`):
		default:
			t.Fatalf("stream %v: %d %s", stream, a.code, a.body)
		}
		gone(t, pid, "the killed decoder")
		if code, body := upload(t, hs.URL, wav, fields...); code != 200 || !strings.Contains(body, "text") || strings.Contains(body, "error") {
			t.Fatalf("the next upload (stream %v): %d %s", stream, code, body)
		}
	}
}

// A decoder killed by its PID mid-session: the session gets an error
// event; its next audio goes to a new decoder, whose transcript comes;
// a new session works too.
func TestDecoderKilledMidSession(t *testing.T) {
	srv := &Server{Bin: engine(t)}
	defer srv.Close()
	clip := spoken(t, question).Resample(RealtimeRate)
	hs := httptest.NewServer(srv)
	defer hs.Close()
	rc := dialRealtime(t, hs.URL)
	if ev := rc.next(); ev.Type != "session.created" {
		t.Fatalf("first event %+v", ev)
	}
	rc.appendPCM(callaudio.Silence(RealtimeRate, 200))
	pid := busyDecoder(t, srv)
	kill(t, pid)
	ev := rc.next()
	if ev.Type != "error" || ev.Error == nil || ev.Error.Code != "server_error" || !strings.Contains(ev.Error.Message, "pocketsphinx") {
		t.Fatalf("after the decoder was killed: %+v %+v", ev, ev.Error)
	}
	gone(t, pid, "the killed decoder")
	rc.appendPCM(clip.PCM())
	rc.appendPCM(callaudio.Silence(RealtimeRate, 1000))
	rc.send(map[string]string{"type": "input_audio_buffer.commit"})
	for {
		ev := rc.next()
		if ev.Type == "error" {
			t.Fatalf("error after the new audio: %+v", ev.Error)
		}
		if ev.Type == "conversation.item.input_audio_transcription.completed" {
			if ev.Transcript == "" {
				t.Fatal("an empty transcript from the new decoder")
			}
			break
		}
	}
	rc.c.CloseNow()

	rc = dialRealtime(t, hs.URL)
	rc.next()
	rc.appendPCM(clip.PCM())
	rc.send(map[string]string{"type": "input_audio_buffer.commit"})
	for {
		ev := rc.next()
		if ev.Type == "error" {
			t.Fatalf("a new session: %+v", ev.Error)
		}
		if ev.Type == "conversation.item.input_audio_transcription.completed" && ev.Transcript != "" {
			break
		}
	}
	rc.c.CloseNow()
}

// A client that goes away mid-session, or mid-upload, leaves no decoder
// behind: its process is killed and reaped.
func TestClientGoneLeavesNoProcess(t *testing.T) {
	srv := &Server{Bin: engine(t)}
	defer srv.Close()
	hs := httptest.NewServer(srv)
	defer hs.Close()
	rc := dialRealtime(t, hs.URL)
	rc.next()
	rc.appendPCM(callaudio.Silence(RealtimeRate, 200))
	pid := busyDecoder(t, srv)
	rc.c.CloseNow()
	gone(t, pid, "a session's decoder after its client went")

	wav := spoken(t, strings.Repeat(question+" ", 4)).WAV()
	for _, stream := range []string{"false", "true"} {
		var body bytes.Buffer
		mw := multipart.NewWriter(&body)
		fw, _ := mw.CreateFormFile("file", "question.wav")
		fw.Write(wav)
		mw.WriteField("stream", stream)
		mw.Close()
		ctx, hangUp := context.WithCancel(context.Background())
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, hs.URL+"/v1/audio/transcriptions", &body)
		req.Header.Set("Content-Type", mw.FormDataContentType())
		done := make(chan struct{})
		go func() {
			defer close(done)
			if resp, err := http.DefaultClient.Do(req); err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}()
		pid := busyDecoder(t, srv)
		hangUp()
		<-done
		gone(t, pid, "an upload's decoder after its client went (stream "+stream+")")
	}
}

// A burst of simultaneous uploads is served whole: every one answered
// with its transcript and the time it waited for a decoder; never more
// decoders at once than MaxDecoders (the rest queued); a decoder each
// and one warm one started after them (not one each); none left but the
// warm one.
func TestBurstOfUploads(t *testing.T) {
	srv := &Server{Bin: engine(t), MaxDecoders: 2}
	defer srv.Close()
	wav := spoken(t, question).WAV()
	hs := httptest.NewServer(srv)
	defer hs.Close()
	const n = 6
	var wg sync.WaitGroup
	codes := make([]int, n)
	bodies := make([]string, n)
	queue := make([]string, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var body bytes.Buffer
			mw := multipart.NewWriter(&body)
			fw, _ := mw.CreateFormFile("file", "question.wav")
			fw.Write(wav)
			mw.Close()
			resp, err := http.Post(hs.URL+"/v1/audio/transcriptions", mw.FormDataContentType(), &body)
			if err != nil {
				t.Error(err)
				return
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			codes[i], bodies[i], queue[i] = resp.StatusCode, string(b), resp.Header.Get("X-Queue-Ms")
		}()
	}
	stop := make(chan struct{})
	most := make(chan int)
	go func() {
		m := 0
		for {
			select {
			case <-stop:
				most <- m
				return
			case <-time.After(time.Millisecond):
			}
			_, busy := srv.decoders()
			m = max(m, len(busy))
		}
	}()
	wg.Wait()
	close(stop)
	if m := <-most; m > srv.MaxDecoders {
		t.Errorf("%d decoders held at once, MaxDecoders %d", m, srv.MaxDecoders)
	}
	for i := range n {
		if codes[i] != 200 || !strings.Contains(bodies[i], `"text"`) || strings.Contains(bodies[i], `"text":""`) {
			t.Errorf("upload %d of %d: %d %s", i+1, n, codes[i], bodies[i])
		}
		if _, err := strconv.ParseFloat(queue[i], 64); err != nil {
			t.Errorf("upload %d of %d: X-Queue-Ms %q", i+1, n, queue[i])
		}
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		_, busy := srv.decoders()
		if len(busy) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("decoders %v still running after the burst", busy)
		}
	}
	srv.mu.Lock()
	spawned := srv.spawned
	srv.mu.Unlock()
	if spawned > n+1 {
		t.Fatalf("%d decoders started for %d uploads: want one each and one warm one", spawned, n)
	}
}

// A request waiting for a decoder (all MaxDecoders held) is answered
// 503 when the server closes, not left waiting.
func TestQueuedRequestGivesUp(t *testing.T) {
	srv := &Server{Bin: engine(t), MaxDecoders: 1}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	rc := dialRealtime(t, hs.URL)
	rc.next()
	rc.appendPCM(callaudio.Silence(RealtimeRate, 200))
	busyDecoder(t, srv) // the session holds the one decoder
	wav := (&callaudio.Clip{Samples: make([]int16, 1600), Rate: 16000}).WAV()
	done := make(chan [2]any, 1)
	go func() {
		code, b := upload(t, hs.URL, wav)
		done <- [2]any{code, b}
	}()
	time.Sleep(100 * time.Millisecond)
	srv.Close()
	a := <-done
	if a[0].(int) != 503 || !strings.Contains(a[1].(string), "closed") {
		t.Fatalf("a request waiting when the server closed: %v %v", a[0], a[1])
	}
	rc.c.CloseNow()
}
