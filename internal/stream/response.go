package stream

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptrace"
	"strings"
	"time"
)

// newHTTPRequest builds the POST. GotConn (after dialing and any TLS
// handshake, before the request is written) arms the connection to take t0
// at its next write.
func (r *run) newHTTPRequest(ctx context.Context, body []byte) (*http.Request, error) {
	trace := &httptrace.ClientTrace{
		GotConn: func(httptrace.GotConnInfo) { r.cl.armT0() },
	}
	ctx = httptrace.WithClientTrace(ctx, trace)
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, r.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "text/event-stream")
	hreq.Header.Set("User-Agent", "ttftlab")
	for k, v := range r.req.Header {
		hreq.Header.Set(k, v)
	}
	return hreq, nil
}

// checkResponse rejects answers that are not an event stream, reading the
// start of their body for the message.
func (r *run) checkResponse(resp *http.Response) error {
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return httpError("POST", r.url, resp, r.readStart(resp.Body, errorBodyLimit), r.scrub)
	}
	if ce := resp.Header.Get("Content-Encoding"); ce != "" && !strings.EqualFold(ce, "identity") {
		body := r.readStart(resp.Body, peekLimit)
		return r.fail(KindEncoded, nil,
			"the server sent the stream compressed (Content-Encoding: %s) although the request accepts no encoding; only uncompressed event streams can be read (a proxy in between may be compressing); the body starts %s",
			ce, quote(r.scrub, body, 40))
	}
	ct := resp.Header.Get("Content-Type")
	if r.meter != nil {
		return r.checkAudio(resp, ct)
	}
	if r.req.API == APITranscription {
		r.checkTranscription(resp, ct)
		return nil
	}
	if mt, _, _ := mime.ParseMediaType(ct); mt != "text/event-stream" {
		body := r.readStart(resp.Body, peekLimit)
		return r.fail(KindNotStream, nil,
			"the server did not stream: Content-Type is %q, not text/event-stream (did it ignore \"stream\": true, or did a proxy answer?); the body starts %s",
			ct, quote(r.scrub, body, 200))
	}
	return nil
}

// readStart reads at most limit bytes of a body that is not a stream,
// passing them on to RawOut too.
func (r *run) readStart(body io.Reader, limit int64) []byte {
	b, _ := io.ReadAll(io.LimitReader(body, limit))
	r.bytes += int64(len(b))
	r.res.TotalMs = ms(r.clk.now() - r.t0)
	if r.req.RawOut != nil {
		r.req.RawOut.Write(b) // the HTTP error matters more than a failed copy
	}
	return b
}

// failedBeforeHeaders explains an error from the round trip: one of our own
// closes, or a connection problem.
func (r *run) failedBeforeHeaders(err error) error {
	if reason, _ := r.cl.state(); reason != notClosed && reason != closedEnd {
		r.setT0()
		return r.closedOutcome()
	}
	return connectError("POST", r.url, err)
}

// closedOutcome turns a close by a timer, the context or the callback into
// the Result's end and Do's error (nil for a cut).
func (r *run) closedOutcome() error {
	reason, at := r.cl.state()
	r.res.TotalMs = ms(at - r.t0)
	switch reason {
	case closedCut, closedByChunk:
		r.res.Info.Cut, r.res.Info.ClosedAtMs = true, ms(at-r.t0)
		return nil
	case closedCanceled:
		r.res.Info.Cut, r.res.Info.ClosedAtMs = true, ms(at-r.t0)
		return r.canceledErr()
	case closedIdle:
		if !r.headDone.Load() {
			return r.fail(KindIdle, nil,
				"the response headers were not complete %v after the request was sent (idle timeout, which bounds the whole header block); got %s",
				r.idleD, r.progress())
		}
		return r.fail(KindIdle, nil,
			"nothing arrived for %v (idle timeout); got %s", r.idleD, r.progress())
	case closedTimeout:
		return r.fail(KindTimeout, nil,
			"the request took longer than its %v timeout (counted from the call, connecting included; the time below from its first byte sent); got %s",
			r.req.Timeout, r.progress())
	}
	return nil
}

// canceledErr wraps the context's error, naming its cause when it has one.
func (r *run) canceledErr() error {
	err := r.ctx.Err()
	msg := err.Error()
	if cause := context.Cause(r.ctx); cause != nil && cause != err {
		msg = fmt.Sprintf("%v (%v)", err, cause)
	}
	if r.cl == nil {
		return r.fail(KindCanceled, err, "canceled before the request was sent: %s", msg)
	}
	return r.fail(KindCanceled, err, "canceled after %s: %s", r.progress(), msg)
}

// fail builds an error of this request, with the status when there is one.
func (r *run) fail(kind Kind, cause error, format string, args ...any) *Error {
	e := newError(kind, "POST", r.url, cause, format, args...)
	e.Status = r.res.Info.Status
	return e
}

// progress says how far the stream got, for error messages: its chunks and
// bytes, and the time to its end as Result.TotalMs holds it (every caller
// sets TotalMs first), so the message and total_ms agree; a request closed
// before the answer began says so.
func (r *run) progress() string {
	s := fmt.Sprintf("%d content chunks, %d bytes in %.1f ms", r.chunks, r.bytes, r.res.TotalMs)
	if r.meter != nil {
		s = fmt.Sprintf("%.1f ms of audio, %d bytes in %.1f ms", r.meter.Result().AudioMs, r.bytes, r.res.TotalMs)
	}
	if r.res.Info.Status == 0 {
		s += " (no response yet)"
	}
	return s
}

// ms converts a duration to milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
