package stream

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"time"

	"ttftlab/internal/sse"
)

// wholeLimit bounds a transcription answer read whole: a transcript of
// minutes of speech is kilobytes.
const wholeLimit = 4 << 20

// transcription sets a run up to read a transcription answer: an Accept
// header that takes JSON or an event stream (a header the caller set
// wins).
func (r *run) transcription() {
	h := make(map[string]string, len(r.req.Header)+1)
	h["Accept"] = "application/json, text/event-stream"
	for k, v := range r.req.Header {
		h[k] = v
	}
	r.req.Header = h
}

// checkTranscription takes a 2xx transcription answer as an event stream
// (text/event-stream) or as one JSON object read whole (anything else:
// the decoding at its end says whether it is one).
func (r *run) checkTranscription(resp *http.Response, ct string) {
	mt, _, _ := mime.ParseMediaType(ct)
	r.res.Transcript = &Transcript{Header: resp.Header, Streamed: mt == "text/event-stream"}
	r.inWhole = !r.res.Transcript.Streamed
}

// wholeRead gathers one read of a JSON answer; its stamp is kept, so the
// answer's end is the read that brought its last bytes.
func (r *run) wholeRead(p []byte, st stamp) (stop bool, err error) {
	r.wholeAt = st.at - r.t0
	r.sources |= 1 << st.src
	if len(r.whole)+len(p) > wholeLimit {
		r.res.TotalMs = ms(r.wholeAt)
		return true, r.fail(KindBadData, nil, "the transcription answer is over %d bytes: no transcript is that long; it starts %s", wholeLimit, quote(r.scrub, r.whole, 200))
	}
	r.whole = append(r.whole, p...)
	return false, nil
}

// transcriptFields are the members of a transcription answer or event
// that are read: OpenAI's {"text"} and its events' type, delta and text;
// a chat-completion-shaped chunk's choices[0].delta.content (vLLM streams
// transcriptions so, ended by [DONE]); an error.
type transcriptFields struct {
	Type    string          `json:"type"`
	Text    *string         `json:"text"`
	Delta   string          `json:"delta"`
	Error   json.RawMessage `json:"error"`
	Usage   map[string]any  `json:"usage"`
	Choices []struct {
		Delta struct {
			Content string `json:"content"`
		} `json:"delta"`
	} `json:"choices"`
}

// wholeEnd reads the JSON answer once its body has ended.
func (r *run) wholeEnd(readErr error, at time.Duration) error {
	if len(r.whole) > 0 {
		at = r.wholeAt
	}
	r.res.TotalMs = ms(at)
	if !errors.Is(readErr, io.EOF) {
		return r.fail(KindDropped, readErr, "the connection broke in the middle of the transcription answer after %d bytes in %.1f ms: %v", r.bytes, ms(at), unwrapURLError(readErr))
	}
	var f transcriptFields
	if err := json.Unmarshal(r.whole, &f); err != nil {
		return r.fail(KindBadData, err, "the transcription answer is not JSON (%v): %s", err, quote(r.scrub, r.whole, 200))
	}
	if se, ok := parseServerError(f.Error); ok {
		e := r.fail(KindServer, nil, "the server answered an error (%s): %s", orUnknown(se.Type), se.Message)
		e.Type, e.Message = se.Type, se.Message
		return e
	}
	if f.Text == nil {
		return r.fail(KindBadData, nil, "the transcription answer has no \"text\": %s", quote(r.scrub, r.whole, 200))
	}
	r.res.Transcript.Text = r.scrub.String(*f.Text)
	r.res.Info.Usage = f.Usage
	r.res.Info.Done = true
	return nil
}

// Transcription events of OpenAI's stream=true.
const (
	transcriptDelta = "transcript.text.delta"
	transcriptDone  = "transcript.text.done"
)

// transcriptEvent handles one event of a streamed transcription: a delta
// is a content chunk, transcript.text.done (or [DONE] after
// chat-completion-shaped chunks) the final transcript.
func (r *run) transcriptEvent(ev sse.EventOf[stamp], at time.Duration) (stop bool, err error) {
	first(&r.res.Info.FirstEventMs, ms(at))
	if bytes.Equal(bytes.TrimSpace(ev.Data), doneData) {
		r.res.Transcript.Text = r.scrub.String(r.deltas.String())
		r.res.Info.Done = true
		r.res.TotalMs = ms(at)
		return true, nil
	}
	var f transcriptFields
	if err := json.Unmarshal(ev.Data, &f); err != nil {
		r.res.TotalMs = ms(at)
		return true, r.badData(ev.Data, at, err)
	}
	typ := f.Type
	if typ == "" {
		typ = ev.Type
	}
	if se, ok := parseServerError(f.Error); ok || typ == "error" {
		r.res.TotalMs = ms(at)
		if !ok {
			se.Message = string(ev.Data)
		}
		e := r.fail(KindServer, nil, "the server reported an error mid-stream after %s (%s): %s", r.progress(), orUnknown(se.Type), se.Message)
		e.Type, e.Message = se.Type, se.Message
		return true, e
	}
	r.res.Info.Usage = orKeep(f.Usage, r.res.Info.Usage)
	delta := f.Delta
	switch {
	case typ == transcriptDone:
		text := r.deltas.String()
		if f.Text != nil {
			text = *f.Text
		}
		r.res.Transcript.Text = r.scrub.String(text)
		r.res.Info.Done = true
		r.res.TotalMs = ms(at)
		return true, nil
	case typ == transcriptDelta:
	case typ == "" && len(f.Choices) > 0:
		delta = f.Choices[0].Delta.Content
	default:
		r.res.Info.IgnoredEvents++
		if r.res.Info.FirstIgnored == "" {
			r.res.Info.FirstIgnored = orUnknown(typ)
		}
		return false, nil
	}
	if delta == "" {
		return false, nil
	}
	r.deltas.WriteString(delta)
	first(&r.res.Info.FirstOutputMs, ms(at))
	return r.chunk(delta, ev.Stamp)
}
