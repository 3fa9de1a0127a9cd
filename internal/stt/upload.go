package stt

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"strconv"
	"strings"
	"time"

	"ttftlab/internal/callaudio"
	"ttftlab/internal/stream"
)

// UploadRate is the sample rate an upload's WAV is sent at.
const UploadRate = 16000

// form is an upload's multipart fields besides the file, in order.
type form [][2]string

// upload is the way of every upload protocol: Start is now; nothing is
// sent while the caller speaks, so it waits until Start + the clip's
// length on the wall clock; then the clip goes whole, a 16 kHz WAV in a
// multipart body with its Content-Length, to path (joined to the base as
// internal/endpoint joins, or the base itself when it names it already).
// The answer is read by internal/stream, every read stamped off the
// socket: SentMs is the return of the write that finished the body,
// FinalMs the read that completed the JSON answer or the
// transcript.text.done event, FirstPartialMs the first delta's.
func upload(ctx context.Context, cfg Config, clip *callaudio.Clip, api API, path func(base string) string, fields form) (*Result, error) {
	if cfg.Endpoint == nil {
		return nil, &Error{Kind: KindConnect, Msg: "speech-to-text: no server given"}
	}
	frameMs := cfg.FrameMs
	if frameMs <= 0 {
		frameMs = callaudio.DefaultFrameMs
	}
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	wav := clip.Resample(UploadRate).WAV()
	body, ctype, err := multipartBody(wav, fields)
	if err != nil {
		return nil, &Error{Kind: KindConnect, Msg: fmt.Sprintf("speech-to-text: cannot build the upload: %v", err), Err: err}
	}
	header := cfg.Endpoint.Headers()
	if header == nil {
		header = map[string]string{}
	}
	header["Content-Type"] = ctype
	res := &Result{API: api, Rate: UploadRate, AudioMs: clip.DurationMs(), SpeechEndMs: clip.SpeechEndMs(frameMs)}

	res.Start = time.Now()
	// The caller speaks: the upload waits for the clip's end.
	end := time.NewTimer(time.Until(res.Start.Add(time.Duration(res.AudioMs * float64(time.Millisecond)))))
	select {
	case <-end.C:
	case <-ctx.Done():
		end.Stop()
		return nil, &Error{Kind: KindDropped, Msg: fmt.Sprintf("speech-to-text: canceled while the caller spoke: %v", ctx.Err()), Partial: res, Err: ctx.Err()}
	}
	// The deltas are counted as they come: a stream past MaxTranscript is
	// cut there.
	streamed, tooLong := 0, false
	sr, err := stream.Do(ctx, stream.Request{
		URL: cfg.Endpoint.Base, Path: path(cfg.Endpoint.Base), API: stream.APITranscription, Body: body, Header: header,
		TLS: cfg.Endpoint.TLS, Timeout: timeout, IdleTimeout: -1, DiscardChunks: true,
		OnChunk: func(c stream.Chunk) (bool, error) {
			streamed += len(c.Text)
			tooLong = streamed > MaxTranscript
			return !tooLong, nil
		},
	})
	if sr != nil && !sr.Info.T0.IsZero() {
		off := msSince(res.Start, sr.Info.T0)
		if sr.Info.SentMs > 0 {
			res.SentMs = off + sr.Info.SentMs
		}
		if sr.Info.HasTTFT {
			v := off + sr.Info.TTFTMs
			res.FirstPartialMs = &v
		}
		if sr.Info.Done {
			res.FinalMs = off + sr.TotalMs
		}
	}
	if sr != nil && sr.Transcript != nil {
		res.Text = sr.Transcript.Text
		res.QueueMs = queueMs(sr.Transcript.Header)
	}
	if err != nil {
		return nil, uploadError(err, res, timeout, len(body))
	}
	if tooLong || len(res.Text) > MaxTranscript {
		res.Text = ""
		return nil, &Error{Kind: KindBadData, Partial: res, Msg: fmt.Sprintf("speech-to-text: POST %s: the transcript passed %d bytes, more than any utterance holds: "+
			"the server is not transcribing the caller's audio", cfg.Endpoint.URL(path(cfg.Endpoint.Base)), MaxTranscript)}
	}
	if !sr.Info.Done {
		return nil, &Error{Kind: KindBadData, Msg: fmt.Sprintf("speech-to-text: POST %s: the answer ended without a transcript", cfg.Endpoint.URL(path(cfg.Endpoint.Base))), Partial: res}
	}
	return res, nil
}

// msSince is t - start in ms, on Go's monotonic clock.
func msSince(start, t time.Time) float64 {
	return float64(t.Sub(start)) / float64(time.Millisecond)
}

// multipartBody is the upload's body: the fields, then the file part
// (audio.wav, audio/wav).
func multipartBody(wav []byte, fields form) ([]byte, string, error) {
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	for _, f := range fields {
		if err := w.WriteField(f[0], f[1]); err != nil {
			return nil, "", err
		}
	}
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="file"; filename="audio.wav"`)
	h.Set("Content-Type", "audio/wav")
	part, err := w.CreatePart(h)
	if err != nil {
		return nil, "", err
	}
	if _, err := part.Write(wav); err != nil {
		return nil, "", err
	}
	if err := w.Close(); err != nil {
		return nil, "", err
	}
	return b.Bytes(), w.FormDataContentType(), nil
}

// QueueHeaders are the answer headers read as the time the request
// waited before the server worked on it, in ms: X-Queue-Ms, and
// X-Queue-Time as text-generation-inference sends it (the default
// engine sends X-Queue-Ms). whisper-server and OpenAI send neither:
// Result.QueueMs stays null.
var QueueHeaders = []string{"X-Queue-Ms", "X-Queue-Time"}

// queueMs reads the first of QueueHeaders the answer has.
func queueMs(h http.Header) *float64 {
	for _, k := range QueueHeaders {
		if v := strings.TrimSpace(h.Get(k)); v != "" {
			if f, err := strconv.ParseFloat(strings.TrimSuffix(v, "ms"), 64); err == nil && f >= 0 {
				return &f
			}
		}
	}
	return nil
}

// uploadError is a failed upload by kind; the message is the stream's,
// which names the URL and never the key (internal/endpoint scrubs what
// the server echoes).
func uploadError(err error, partial *Result, timeout time.Duration, size int) *Error {
	e := &Error{Kind: KindServer, Msg: "speech-to-text: " + err.Error(), Partial: partial, Err: err}
	var se *stream.Error
	if !errors.As(err, &se) {
		return e
	}
	e.Status = se.Status
	switch se.Kind {
	case stream.KindHTTP:
		e.Kind = KindHTTP
		if se.Status == http.StatusUnauthorized || se.Status == http.StatusForbidden {
			// The stream's hint names the LLM's key flags: this is the
			// speech-to-text server's.
			e.Kind = KindAuth
			msg := se.Message
			if msg == "" {
				msg = http.StatusText(se.Status)
			}
			e.Msg = fmt.Sprintf("speech-to-text: POST %s: HTTP %d: %s; the speech-to-text server wants an API key, or refused the one sent: pass it with --stt-api-key KEY (or --stt-api-key-file FILE, TTFTLAB_STT_API_KEY)",
				se.URL, se.Status, msg)
		}
		if se.Status == http.StatusRequestEntityTooLarge {
			e.Msg += fmt.Sprintf("; the server refused the upload as too large (a body of %d bytes, %.1f s of audio as a 16 kHz WAV): raise the server's upload limit, or speak shorter turns", size, partial.AudioMs/1000)
		}
	case stream.KindRateLimited:
		e.Kind = KindRateLimited
	case stream.KindConnect, stream.KindRequest:
		e.Kind = KindConnect
	case stream.KindTimeout, stream.KindIdle:
		e.Kind = KindTimeout
		e.Msg = fmt.Sprintf("speech-to-text: no transcript within %v after the caller's audio ended: %v", timeout, err)
	case stream.KindBadData, stream.KindNotStream, stream.KindEncoded, stream.KindTruncated:
		e.Kind = KindBadData
	case stream.KindDropped, stream.KindCanceled:
		e.Kind = KindDropped
	}
	return e
}

// openAIPath is where an OpenAI upload goes: the base itself when its
// path ends in /audio/transcriptions already, else
// /v1/audio/transcriptions joined to it (internal/endpoint's join: a base
// ending in /v1 is not doubled).
func openAIPath(base string) string {
	if u, err := url.Parse(base); err == nil && strings.HasSuffix(strings.TrimRight(u.Path, "/"), "/audio/transcriptions") {
		return base
	}
	return "/v1/audio/transcriptions"
}

// whisperPath is where a whisper-server upload goes: the base's own path
// when it has one (.../inference), else /inference.
func whisperPath(base string) string {
	if u, err := url.Parse(base); err == nil && strings.Trim(u.Path, "/") != "" {
		return base
	}
	return "/inference"
}
