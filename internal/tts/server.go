package tts

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"ttftlab/internal/audio"
	"ttftlab/internal/engineserve"
	"ttftlab/internal/espeak"
)

// Model is the model name the server answers to (and lists).
const Model = "espeak-ng"

// baseWPM is espeak-ng's default speaking rate, speed 1.0.
const baseWPM = 175

// Server answers OpenAI's POST /v1/audio/speech by running espeak-ng, one
// process a request, its audio streamed as espeak-ng writes it: response
// format "wav" as espeak-ng writes it (22.05 kHz, 16-bit mono, placeholder
// sizes), "pcm" as OpenAI defines it (24 kHz, 16-bit mono, no header).
// GET /health and GET /v1/models answer too. A client that goes away stops
// its espeak-ng.
type Server struct {
	// Bin is the espeak-ng to run.
	Bin string
	// Log, when set, gets a line per request.
	Log io.Writer
	// CPU counts the user and system time of the espeak-ng processes run.
	CPU atomic.Int64

	voicesOnce sync.Once
	voices     espeak.Voices
	voicesErr  error
}

// knows says whether espeak-ng has voice v (espeak.Voices.Has).
// espeak-ng itself falls back to English for a voice it lacks, which
// would measure the wrong voice.
func (s *Server) knows(v string) (bool, error) {
	s.voicesOnce.Do(func() { s.voices, s.voicesErr = espeak.ListVoices(s.Bin) })
	if s.voicesErr != nil {
		return false, s.voicesErr
	}
	return s.voices.Has(v), nil
}

// request is what the server reads of a speech request.
type request struct {
	Model          string   `json:"model"`
	Input          string   `json:"input"`
	Voice          string   `json:"voice"`
	ResponseFormat string   `json:"response_format"`
	Speed          *float64 `json:"speed"`
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	mux := engineserve.Mux{Model: Model, Routes: []engineserve.Route{
		{Method: http.MethodPost, Path: "/v1/audio/speech", Serve: s.speech},
	}}
	mux.ServeHTTP(w, r)
}

// maxBody is the largest speech request body read: 1 MiB.
const maxBody = 1 << 20

func (s *Server) speech(w http.ResponseWriter, r *http.Request) {
	var req request
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBody))
	if err := dec.Decode(&req); err != nil {
		engineserve.FailBody(w, err, maxBody, "a JSON speech request", `send {"input": TEXT}: a sentence or a few`)
		return
	}
	if strings.TrimSpace(req.Input) == "" {
		engineserve.Fail(w, http.StatusBadRequest, "input is empty: nothing to say")
		return
	}
	format := req.ResponseFormat
	if format == "" {
		format = "wav"
	}
	if format != "wav" && format != "pcm" {
		engineserve.Fail(w, http.StatusBadRequest, "response_format %q is not served: ask for wav or pcm", format)
		return
	}
	speed := 1.0
	if req.Speed != nil {
		speed = *req.Speed
	}
	if speed < 0.25 || speed > 4 {
		engineserve.Fail(w, http.StatusBadRequest, "speed %g is outside 0.25 to 4", speed)
		return
	}
	v := voice(req.Voice, req.Input)
	if ok, err := s.knows(v); err != nil {
		engineserve.Fail(w, http.StatusInternalServerError, "%v", err)
		return
	} else if !ok {
		engineserve.Fail(w, http.StatusBadRequest, "espeak-ng has no voice %q (see `espeak-ng --voices`; an OpenAI voice name such as alloy speaks the text's language)", v)
		return
	}
	start := time.Now()
	fl, _ := w.(http.Flusher)
	started := false
	n, werr, err := s.say(r.Context(), req.Input, v, speed, format == "pcm", func(b []byte) error {
		if !started {
			ct := "audio/wav"
			if format == "pcm" {
				ct = "audio/pcm"
			}
			w.Header().Set("Content-Type", ct)
			w.WriteHeader(http.StatusOK)
			started = true
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
		if fl != nil {
			fl.Flush()
		}
		return nil
	})
	var startErr *startError
	switch {
	case errors.As(err, &startErr):
		engineserve.Fail(w, http.StatusInternalServerError, "%v", err)
		return
	case n == 0 && werr != nil && r.Context().Err() == nil:
		engineserve.Fail(w, http.StatusInternalServerError, "%v", werr)
		return
	case n == 0 && werr == nil:
		// Nothing was sent yet: the error can still be the answer.
		engineserve.Fail(w, http.StatusBadRequest, "%v", err)
		return
	}
	if s.Log != nil {
		fmt.Fprintf(s.Log, "tts: %d chars, voice %s, %s, %d bytes in %s\n", len(req.Input), v, format, n, time.Since(start).Round(time.Millisecond))
	}
}

// Speak says text as the speech endpoint's pcm answer says it: espeak-ng
// in voice (an espeak-ng voice, or an OpenAI voice name or "": the
// text's language's), at speed 1, its audio handed to put as 24 kHz
// PCM16 mono as espeak-ng writes it. The end of ctx kills espeak-ng (by
// its PID); put's error stops it too and is returned.
func (s *Server) Speak(ctx context.Context, text, voiceName string, put func(pcm []byte) error) error {
	if strings.TrimSpace(text) == "" {
		return nil
	}
	v := voice(voiceName, text)
	if ok, err := s.knows(v); err != nil {
		return err
	} else if !ok {
		return fmt.Errorf("espeak-ng has no voice %q (see `espeak-ng --voices`)", v)
	}
	n, werr, err := s.say(ctx, text, v, 1, true, put)
	switch {
	case werr != nil:
		return werr
	case ctx.Err() != nil:
		return ctx.Err()
	case n == 0:
		return err
	}
	return nil
}

// startError is espeak-ng that could not be started.
type startError struct{ err error }

func (e *startError) Error() string { return e.err.Error() }

// say runs espeak-ng (voice v, speed) on text and hands put its audio as
// it comes: as espeak-ng writes it (WAV, 22.05 kHz), or, pcm, as 24 kHz
// PCM16 without a header. It returns the bytes handed over, why handing
// stopped early (put's error, or output that is not espeak-ng's WAV), and
// when no audio came, why (what espeak-ng said; a *startError when it
// could not start). The end of ctx kills espeak-ng.
func (s *Server) say(ctx context.Context, text, v string, speed float64, pcm bool, put func([]byte) error) (n int64, werr, err error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(ctx, s.Bin, "--stdout", "-v", v, "-s", fmt.Sprint(int(baseWPM*speed+0.5)))
	cmd.Stdin = strings.NewReader(text)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return 0, nil, &startError{fmt.Errorf("espeak-ng: %v", err)}
	}
	if err := cmd.Start(); err != nil {
		return 0, nil, &startError{fmt.Errorf("cannot start espeak-ng (%s): %v", s.Bin, err)}
	}
	n, werr = relay(out, pcm, put)
	if werr != nil {
		cancel()
	}
	err = cmd.Wait()
	s.CPU.Add(int64(engineserve.CPU(cmd.ProcessState)))
	if n > 0 {
		return n, werr, nil
	}
	msg := strings.TrimSpace(stderr.String())
	if msg == "" && err != nil {
		msg = err.Error()
	}
	if msg == "" {
		msg = "espeak-ng wrote no audio"
	}
	return n, werr, fmt.Errorf("espeak-ng (voice %s): %s", v, msg)
}

// wavHeader is the length of the header espeak-ng writes.
const wavHeader = 44

// relay hands espeak-ng's output to put as it comes, a read at a time;
// pcm drops the WAV header and resamples to 24 kHz. It returns the bytes
// handed over and why handing stopped early (put's error).
func relay(out io.Reader, pcm bool, put func([]byte) error) (int64, error) {
	buf := make([]byte, 8192)
	var head []byte
	var rs *audio.Resampler
	var conv []byte
	var n int64
	for {
		k, err := out.Read(buf)
		b := buf[:k]
		if pcm && k > 0 {
			if rs == nil {
				head = append(head, b...)
				if len(head) < wavHeader {
					b = nil
				} else {
					if string(head[:4]) != "RIFF" || string(head[36:40]) != "data" {
						return n, errors.New("espeak-ng's output does not start with a 44-byte WAV header")
					}
					rs = audio.NewResampler(espeak.Rate, audio.OpenAIPCM.SampleRate)
					b = head[wavHeader:]
				}
			}
			if rs != nil {
				conv = rs.Push(conv[:0], b)
				b = conv
			}
		}
		if len(b) > 0 {
			if werr := put(b); werr != nil {
				return n, werr
			}
			n += int64(len(b))
		}
		if err != nil {
			return n, nil
		}
	}
}
