// Package stttest serves fakes of the speech-to-text upload protocols
// for tests: OpenAI's POST /v1/audio/transcriptions (a JSON answer, or
// with stream=true transcript.text.delta / .done events) and
// whisper.cpp's POST /inference. Each answers a known delay after the
// last byte of the request's body arrived, records when it received and
// answered, and can refuse (401, 413, 429), answer before the body came,
// answer a body that is no transcript, or never answer. Realtime and
// VLLMRealtime serve the WebSocket protocols (OpenAI's Realtime
// transcription session, vLLM's /v1/realtime): they record each audio
// frame's arrival, answer a known delay after the speech end, and can
// drop the socket, never answer, refuse the upgrade, or send a message
// that is no event. Each can echo the request's secret headers in its
// transcript (split across deltas too) and its errors, as a careless
// server does.
package stttest

import (
	"encoding/json"
	"fmt"
	"io"
	"log"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Kind is the protocol a fake speaks.
type Kind int

const (
	// OpenAI answers POST .../audio/transcriptions: {"text": ...}, or
	// with the field stream=true the events transcript.text.delta (one a
	// word) and transcript.text.done.
	OpenAI Kind = iota
	// Whisper answers POST /inference as whisper-server does:
	// {"text": ...}.
	Whisper
)

// Received is one request as the fake saw it, with its stamps (Go's
// monotonic clock, comparable with the client's in the same process).
type Received struct {
	Path          string
	Header        http.Header
	ContentLength int64
	// Fields are the multipart fields besides the file; File is the file
	// part's bytes and FileType its Content-Type.
	Fields   map[string]string
	File     []byte
	FileType string
	// HeadAt is when the request's head had arrived (the handler ran);
	// LastByteAt when its body's last byte had been read; FirstSentAt
	// when the first delta was about to be written to the socket
	// (stream=true); SentAt when the final transcript (the JSON answer,
	// or transcript.text.done) was (read right before the flush: the
	// client may read the bytes before the write returns here).
	HeadAt, LastByteAt, FirstSentAt, SentAt time.Time
}

// Server is a fake speech-to-text server on a loopback port.
type Server struct {
	*httptest.Server
	Kind Kind
	// Text is the transcript answered.
	Text string
	// Delay is how long after the body's last byte the final transcript
	// is sent; the first delta of a stream goes at half of it.
	Delay time.Duration
	// Status, when set, is answered instead of a transcript (401, 429,
	// ...), with an OpenAI error body that quotes the request's
	// Authorization header, as a careless server might.
	Status int
	// Never holds every request open without an answer until the client
	// goes away.
	Never bool
	// QueueMs, when set, is sent as the X-Queue-Time header.
	QueueMs string
	// Echo names request headers whose values the fake quotes, as a
	// careless server or gateway does: after the transcript (" heard
	// VALUE ..."), and in a refusal's message (Status).
	Echo []string
	// Raw, when set, is answered with status 200 and Content-Type
	// RawType as it is, instead of a transcript: a body that is not
	// JSON, an event stream without its end, a huge answer.
	Raw, RawType string
	// Early answers (Status, else the transcript as JSON) as soon as the
	// request's head has come, before reading its body, as a server that
	// judges an upload by its headers does; the rest of the body is then
	// read and dropped by net/http.
	Early bool
	// DeltaBytes, when set, cuts a stream's transcript into deltas of
	// that many bytes (a word a delta otherwise), so an echoed key is
	// split across events.
	DeltaBytes int

	mu   sync.Mutex
	reqs []Received
}

// New starts a fake of kind answering text after delay.
func New(kind Kind, text string, delay time.Duration) *Server {
	return Start(&Server{Kind: kind, Text: text, Delay: delay})
}

// Start serves s, its settings filled in (they are not to change once
// it serves).
func Start(s *Server) *Server {
	s.Server = httptest.NewServer(s)
	return s
}

// StartTLS is Start on https://, with httptest's certificate (Client()'s
// TLS configuration trusts it); a refused handshake is not logged.
func StartTLS(s *Server) *Server {
	s.Server = httptest.NewUnstartedServer(s)
	s.Server.Config.ErrorLog = log.New(io.Discard, "", 0)
	s.Server.StartTLS()
	return s
}

// Received lists the requests so far.
func (s *Server) Received() []Received {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Received(nil), s.reqs...)
}

// ServeHTTP answers one upload.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec := Received{Path: r.URL.Path, Header: r.Header.Clone(), ContentLength: r.ContentLength, HeadAt: time.Now(), Fields: map[string]string{}}
	if s.Early {
		idx := s.record(rec)
		code, b := http.StatusOK, []byte(nil)
		if s.Status != 0 {
			code = s.Status
			b, _ = json.Marshal(map[string]any{"error": map[string]any{"message": fmt.Sprintf("refused (%d) before the body came", code), "type": "invalid_request_error"}})
		} else {
			b, _ = json.Marshal(map[string]string{"text": s.Text})
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Connection", "close")
		w.WriteHeader(code)
		w.Write(b)
		s.stamp(idx, func(r *Received) { r.SentAt = time.Now() })
		return
	}
	body, err := io.ReadAll(r.Body)
	rec.LastByteAt = time.Now()
	idx := s.record(rec)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if err := s.readForm(idx, r.Header.Get("Content-Type"), body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	want := "/audio/transcriptions"
	if s.Kind == Whisper {
		want = "/inference"
	}
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, want) {
		http.Error(w, fmt.Sprintf("%s %s: this fake answers POST ...%s", r.Method, r.URL.Path, want), http.StatusNotFound)
		return
	}
	if s.Never {
		<-r.Context().Done()
		return
	}
	text := s.Text + echoed(s.Echo, r.Header)
	if s.Status != 0 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(s.Status)
		msg := fmt.Sprintf("refused (%d); the key provided: %s%s", s.Status, r.Header.Get("Authorization"), echoed(s.Echo, r.Header))
		json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error"}})
		return
	}
	if s.Raw != "" {
		w.Header().Set("Content-Type", s.RawType)
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, s.Raw)
		return
	}
	if s.QueueMs != "" {
		w.Header().Set("X-Queue-Time", s.QueueMs)
	}
	fl := w.(http.Flusher)
	final := rec.LastByteAt.Add(s.Delay)
	if s.Kind == OpenAI && s.field(idx, "stream") == "true" {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		time.Sleep(time.Until(rec.LastByteAt.Add(s.Delay / 2)))
		for i, word := range s.deltas(text) {
			b, _ := json.Marshal(map[string]string{"type": "transcript.text.delta", "delta": word})
			fmt.Fprintf(w, "data: %s\n\n", b)
			if i == 0 {
				s.stamp(idx, func(r *Received) { r.FirstSentAt = time.Now() })
			}
			fl.Flush()
		}
		time.Sleep(time.Until(final))
		b, _ := json.Marshal(map[string]string{"type": "transcript.text.done", "text": text})
		fmt.Fprintf(w, "data: %s\n\n", b)
		s.stamp(idx, func(r *Received) { r.SentAt = time.Now() })
		fl.Flush()
		return
	}
	b, _ := json.Marshal(map[string]string{"text": text})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	time.Sleep(time.Until(final))
	w.WriteHeader(http.StatusOK)
	w.Write(b)
	s.stamp(idx, func(r *Received) { r.SentAt = time.Now() })
	fl.Flush()
}

// deltas cuts text into a stream's deltas: a word each (with the space
// before it), or DeltaBytes bytes each.
func (s *Server) deltas(text string) []string {
	if s.DeltaBytes > 0 {
		return cut(text, s.DeltaBytes)
	}
	var out []string
	for i, word := range strings.Fields(text) {
		if i > 0 {
			word = " " + word
		}
		out = append(out, word)
	}
	return out
}

func (s *Server) record(r Received) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = append(s.reqs, r)
	return len(s.reqs) - 1
}

func (s *Server) stamp(i int, f func(*Received)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(&s.reqs[i])
}

func (s *Server) field(i int, name string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reqs[i].Fields[name]
}

// readForm reads the multipart body into request i's fields and file.
func (s *Server) readForm(i int, ctype string, body []byte) error {
	mt, params, err := mime.ParseMediaType(ctype)
	if err != nil || mt != "multipart/form-data" {
		return fmt.Errorf("the body is %q, not multipart/form-data", ctype)
	}
	mr := multipart.NewReader(strings.NewReader(string(body)), params["boundary"])
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("the multipart body: %v", err)
		}
		b, err := io.ReadAll(p)
		if err != nil {
			return fmt.Errorf("the multipart body: %v", err)
		}
		s.stamp(i, func(r *Received) {
			if p.FormName() == "file" {
				r.File, r.FileType = b, p.Header.Get("Content-Type")
			} else {
				r.Fields[p.FormName()] = string(b)
			}
		})
	}
}
