// Package pocketsphinx is the default speech-to-text engine: Debian's
// pocketsphinx 5 with its en-us model, installed on first use into a
// private folder, and served behind OpenAI's transcription endpoint and a
// Realtime transcription WebSocket.
package pocketsphinx

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"ttftlab/internal/callaudio"
	"ttftlab/internal/engineserve"
)

// Model is the model name the server answers to (and lists).
const Model = "pocketsphinx-en-us"

// Server answers OpenAI's POST /v1/audio/transcriptions (a WAV file of any
// rate; json, text, or with stream=true server-sent events) and, on GET
// /v1/realtime, OpenAI's Realtime transcription session over a WebSocket,
// by running `pocketsphinx live -`: one process a request or a
// connection, a warm one kept ready so that none pays the model's load.
// GET /health and GET /v1/models answer too. The zero value with Bin set
// is ready; Close stops its processes.
type Server struct {
	// Bin is the pocketsphinx to run.
	Bin string
	// Log, when set, gets a line per request.
	Log io.Writer
	// CPU is the CPU time (ns) its decoder processes used so far, counted
	// when each exits.
	CPU atomic.Int64
	// MaxDecoders bounds the decoder processes that requests and sessions
	// hold at once (0: two a core); beyond it a request waits for one to
	// end, and an upload's answer says how long (X-Queue-Ms). Each
	// process holds some 100 MB: a burst of uploads is queued, not
	// answered with a machine out of memory.
	MaxDecoders int

	mu      sync.Mutex
	slots   chan struct{} // a token for each decoder held, up to MaxDecoders
	closing chan struct{} // closed by Close: waiting requests give up
	spare   *decoder
	warming bool // a Warm is starting the spare
	running map[*decoder]bool
	spawned int // decoders started so far
	closed  bool
}

// Warm starts a decoder to be ready for the next request, when none is
// and none is being started; each request starts the next one when it
// ends, so after a burst of requests one is started, not one each (a
// model's load each would take the cores from the decodings still
// running).
func (s *Server) Warm() error {
	s.mu.Lock()
	if s.spare != nil || s.warming || s.closed {
		s.mu.Unlock()
		return nil
	}
	s.warming = true
	s.mu.Unlock()
	d, err := s.spawn()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.warming = false
	if err != nil {
		return err
	}
	if s.spare != nil || s.closed {
		go d.stop()
		return nil
	}
	s.spare = d
	return nil
}

// limits makes the decoders' tokens and the closing signal, once.
func (s *Server) limits() (chan struct{}, chan struct{}) {
	if s.slots == nil {
		n := s.MaxDecoders
		if n <= 0 {
			n = 2 * runtime.NumCPU()
		}
		s.slots, s.closing = make(chan struct{}, n), make(chan struct{})
	}
	return s.slots, s.closing
}

// take is a decoder for one request, once fewer than MaxDecoders are
// held (waited the time it waited for that): the warm one, else a new
// one. A warm one that died while it waited (killed, out of memory) is
// reaped and replaced, so the request does not fail for it. Every
// decoder taken is given back with done.
func (s *Server) take(ctx context.Context) (d *decoder, waited time.Duration, err error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, 0, errClosed
	}
	slots, closing := s.limits()
	s.mu.Unlock()
	start := time.Now()
	select {
	case slots <- struct{}{}:
	case <-ctx.Done():
		return nil, 0, ctx.Err()
	case <-closing:
		return nil, 0, errClosed
	}
	waited = time.Since(start)
	s.mu.Lock()
	d, s.spare = s.spare, nil
	s.mu.Unlock()
	if d != nil && d.exited() {
		d.stop()
		d = nil
	}
	if d == nil {
		if d, err = s.spawn(); err != nil {
			<-slots
			return nil, waited, err
		}
	}
	return d, waited, nil
}

// done ends a request's decoder, gives its place to a request that
// waits, and starts the next warm one, after the request rather than
// beside it: the model's load would take a core from the decoding being
// timed.
func (s *Server) done(d *decoder) {
	d.stop()
	<-s.slots
	s.Warm()
}

// track keeps the running processes, for Close.
func (s *Server) track(d *decoder, running bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.running == nil {
		s.running = map[*decoder]bool{}
	}
	if running {
		s.running[d] = true
		s.spawned++
	} else {
		delete(s.running, d)
	}
}

// Close stops every decoder process the server started (each by its
// PID), the warm one too; requests after it fail.
func (s *Server) Close() error {
	s.mu.Lock()
	if !s.closed {
		_, closing := s.limits()
		close(closing)
	}
	s.closed = true
	spare := s.spare
	s.spare = nil
	var all []*decoder
	for d := range s.running {
		all = append(all, d)
	}
	s.mu.Unlock()
	for _, d := range all {
		d.kill()
	}
	// A request's decoder is waited for by its request; the warm one
	// has none.
	if spare != nil {
		spare.wait()
	}
	return nil
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	mux := engineserve.Mux{Model: Model, Routes: []engineserve.Route{
		{Method: http.MethodPost, Path: "/v1/audio/transcriptions", Serve: s.transcription},
		{Method: http.MethodGet, Path: "/v1/realtime", Note: " (WebSocket)", Serve: s.realtime},
	}}
	mux.ServeHTTP(w, r)
}

// checkLanguage accepts English ("" too: the model's own); the en-us
// model recognizes nothing else.
func checkLanguage(lang string) error {
	switch strings.ToLower(strings.ReplaceAll(lang, "_", "-")) {
	case "", "en", "en-us":
		return nil
	}
	return fmt.Errorf("language %q is not served: pocketsphinx's en-us model recognizes English only (en, en-US); "+
		"for another language run a speech-to-text server for it and name its URL", lang)
}

// maxUpload is the largest transcription request read: 64 MiB, a half
// hour of 16 kHz audio.
const maxUpload = 64 << 20

func (s *Server) transcription(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	r.Body = http.MaxBytesReader(w, r.Body, maxUpload)
	if err := r.ParseMultipartForm(8 << 20); err != nil {
		engineserve.FailBody(w, err, maxUpload, "a multipart form", "send the audio as the form's field \"file\"")
		return
	}
	if err := checkLanguage(r.FormValue("language")); err != nil {
		engineserve.Fail(w, http.StatusBadRequest, "%v", err)
		return
	}
	format := r.FormValue("response_format")
	if format == "" {
		format = "json"
	}
	if format != "json" && format != "text" {
		engineserve.Fail(w, http.StatusBadRequest, "response_format %q is not served: ask for json or text", format)
		return
	}
	stream := false
	if v := r.FormValue("stream"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			engineserve.Fail(w, http.StatusBadRequest, "stream %q is not true or false", v)
			return
		}
		stream = b
	}
	f, _, err := r.FormFile("file")
	if err != nil {
		engineserve.Fail(w, http.StatusBadRequest, "no audio: send it as the form's field \"file\" (%v)", err)
		return
	}
	data, err := io.ReadAll(f)
	f.Close()
	if err != nil {
		engineserve.Fail(w, http.StatusBadRequest, "reading the file: %v", err)
		return
	}
	clip, err := callaudio.DecodeWAV(data)
	if err != nil {
		engineserve.Fail(w, http.StatusBadRequest, "the file cannot be read: %v; send a WAV file (any rate, any channels, integer or float samples)", err)
		return
	}
	pcm := clip.Resample(Rate).PCM()

	d, waited, err := s.take(r.Context())
	if r.Context().Err() != nil {
		if d != nil {
			s.done(d)
		}
		return // the client went away while it waited
	}
	if err != nil {
		code := http.StatusInternalServerError
		if errors.Is(err, errClosed) {
			code = http.StatusServiceUnavailable
		}
		engineserve.Fail(w, code, "%v", err)
		return
	}
	// How long the request waited for a decoder (MaxDecoders), as the
	// client reads a server's queue time.
	w.Header().Set("X-Queue-Ms", strconv.FormatFloat(float64(waited)/float64(time.Millisecond), 'f', 1, 64))
	defer s.done(d)
	stopOnGone := context.AfterFunc(r.Context(), d.kill)
	defer stopOnGone()
	go func() {
		d.write(pcm) // a failure shows as the process's exit
		d.closeInput()
	}()

	var texts []string
	var fl http.Flusher
	if stream {
		fl, _ = w.(http.Flusher)
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-cache")
	}
	started := false
	for {
		u, err := d.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			if r.Context().Err() != nil {
				return
			}
			if !started {
				engineserve.Fail(w, http.StatusInternalServerError, "%v", err)
				return
			}
			event(w, fl, map[string]any{"type": "error", "error": map[string]string{"message": err.Error()}})
			return
		}
		text := strings.TrimSpace(u.Text)
		if text == "" {
			continue
		}
		delta := text
		if len(texts) > 0 {
			delta = " " + text
		}
		texts = append(texts, text)
		if stream {
			if !started {
				w.WriteHeader(http.StatusOK)
				started = true
			}
			event(w, fl, map[string]any{"type": "transcript.text.delta", "delta": delta})
		}
	}
	text := strings.Join(texts, " ")
	switch {
	case stream:
		event(w, fl, map[string]any{"type": "transcript.text.done", "text": text})
	case format == "text":
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(w, text+"\n")
	default:
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]string{"text": text})
	}
	if s.Log != nil {
		fmt.Fprintf(s.Log, "stt: %.2f s of audio at %d Hz -> %d words in %s\n", clip.DurationMs()/1000, clip.Rate, len(strings.Fields(text)), time.Since(start).Round(time.Millisecond))
	}
}

// event writes one server-sent event and flushes it.
func event(w io.Writer, fl http.Flusher, v any) {
	b, _ := json.Marshal(v)
	fmt.Fprintf(w, "data: %s\n\n", b)
	if fl != nil {
		fl.Flush()
	}
}
