package stream

import (
	"mime"
	"net/http"
	"strings"

	"ttftlab/internal/audio"
)

// speech sets a run up to read audio: the meter, and an Accept header
// that asks for audio (a header the caller set wins).
func (r *run) speech() error {
	sp := r.req.Speech
	if sp == nil {
		sp = &Speech{}
	}
	th := sp.Threshold
	if th == 0 {
		th = audio.DefaultThreshold
	}
	if sp.PCM == nil {
		r.meter = audio.NewWAV(th)
	} else {
		m, err := audio.NewPCM(*sp.PCM, th)
		if err != nil {
			return newError(KindRequest, "POST", r.url, err, "%v", err)
		}
		r.meter = m
	}
	h := make(map[string]string, len(r.req.Header)+1)
	h["Accept"] = "audio/*, application/octet-stream"
	for k, v := range r.req.Header {
		h[k] = v
	}
	r.req.Header = h
	return nil
}

// checkAudio rejects a 2xx answer that is not audio: an event stream, JSON
// or a page.
func (r *run) checkAudio(resp *http.Response, ct string) error {
	mt, _, _ := mime.ParseMediaType(ct)
	if ct == "" || strings.HasPrefix(mt, "audio/") || mt == "application/octet-stream" {
		return nil
	}
	body := r.readStart(resp.Body, peekLimit)
	return r.fail(KindNotStream, nil,
		"the server did not answer audio: Content-Type is %q, not audio/*; the body starts %s", ct, quote(r.scrub, body, 200))
}

// audio feeds one piece of the body to the meter.
func (r *run) audio(p []byte, st stamp) (stop bool, err error) {
	at := ms(st.at - r.t0)
	r.sources |= 1 << st.src
	r.meter.Feed(at, p)
	if err := r.meter.Err(); err != nil {
		r.res.TotalMs = at
		return true, r.fail(KindBadData, err, "the answer is not readable audio after %d bytes: %v", r.bytes, err)
	}
	if f := r.req.Speech; f != nil && f.OnAudio != nil {
		if !f.OnAudio(at, r.meter.Result()) {
			r.cl.close(closedByChunk)
			return true, r.closedOutcome()
		}
	}
	return false, nil
}
