package stream

import (
	"bytes"
	"encoding/json"
	"errors"
	"time"

	"ttftlab/internal/sse"
)

var doneData = []byte("[DONE]")

// event handles one data event; stop is true when the stream is over.
// Chat and completions chunks share one shape (the content is
// choices[0].delta.content or choices[0].text); Responses events have
// their own (responseEvent).
func (r *run) event(ev sse.EventOf[stamp]) (stop bool, err error) {
	at := ev.Stamp.at - r.t0
	if r.req.API == APITranscription {
		return r.transcriptEvent(ev, at)
	}
	first(&r.res.Info.FirstEventMs, ms(at))
	if bytes.Equal(bytes.TrimSpace(ev.Data), doneData) {
		r.res.Info.Done = true
		r.res.TotalMs = ms(at)
		return true, nil
	}
	var c chunkFields
	switch r.req.API {
	case APIResponses:
		return r.responseEvent(ev, at)
	case APICompletions:
		c, err = decodeCompletion(ev.Data)
	default:
		c, err = decodeChunk(ev.Data)
	}
	if err != nil && r.ignoredEvent(ev) {
		return false, nil
	}
	if err != nil {
		r.res.TotalMs = ms(at)
		return true, r.badData(ev.Data, at, err)
	}
	if se, ok := parseServerError(c.errRaw); ok {
		r.res.TotalMs = ms(at)
		e := r.fail(KindServer, nil, "the server reported an error mid-stream after %s (%s): %s",
			r.progress(), orUnknown(se.Type), se.Message)
		e.Type, e.Message = se.Type, se.Message
		return true, e
	}
	if !c.hasChoices && c.usage == nil && r.ignoredEvent(ev) {
		return false, nil
	}
	if !c.hasChoices && c.usage == nil {
		r.res.TotalMs = ms(at)
		return true, r.fail(KindBadData, nil,
			"the data event at %.1f ms has no \"choices\" and is neither an error nor a usage chunk: %s", ms(at), quote(r.scrub, ev.Data, 200))
	}
	r.apply(&c)
	r.firsts(&c, ms(at))
	if !c.hasContent || c.content == "" {
		return false, nil // the role-only first chunk, the final chunk, ...
	}
	first(&r.res.Info.FirstOutputMs, ms(at))
	return r.chunk(c.content, ev.Stamp)
}

// firsts records the first progress, reasoning and tool-call events, and
// keeps the reasoning text apart from the content.
func (r *run) firsts(c *chunkFields, atMs float64) {
	info := &r.res.Info
	if c.progress {
		first(&info.FirstProgressMs, atMs)
	}
	if c.reasoning != "" {
		first(&info.FirstReasoningMs, atMs)
		first(&info.FirstOutputMs, atMs)
		info.Reasoning = append(info.Reasoning, Chunk{TMs: atMs, Text: r.scrub.String(c.reasoning), Index: len(info.Reasoning) + 1})
	}
	if c.toolCalls {
		first(&info.FirstToolCallMs, atMs)
		first(&info.FirstOutputMs, atMs)
	}
}

// first sets *p to t unless it is set already.
func first(p **float64, t float64) {
	if *p == nil {
		v := t // only the first time: &t would move t to the heap at every call
		*p = &v
	}
}

// apply records the members that are not content.
func (r *run) apply(c *chunkFields) {
	if c.usage != nil {
		r.res.Info.Usage = c.usage
	}
	if c.timings != nil {
		r.res.Timings = c.timings
	}
	if c.hasFinish {
		r.res.Info.FinishReason = c.finish
	}
}

// badData explains a data payload that does not decode as a chunk.
func (r *run) badData(data []byte, at time.Duration, err error) error {
	var typeErr *json.UnmarshalTypeError
	what := "is not valid JSON"
	if errors.As(err, &typeErr) {
		what = "is not " + r.req.API.eventNoun()
	}
	return r.fail(KindBadData, err, "the data event at %.1f ms %s (%v): %s",
		ms(at), what, err, quote(r.scrub, data, 200))
}

// chunk records one content chunk and runs the callback.
func (r *run) chunk(text string, st stamp) (stop bool, err error) {
	r.chunks++
	c := Chunk{TMs: ms(st.at - r.t0), Text: r.scrub.String(text), Index: r.chunks}
	info := &r.res.Info
	if !info.HasTTFT {
		info.TTFTMs, info.HasTTFT = c.TMs, true
	}
	r.sources |= 1 << st.src
	if !r.req.DiscardChunks {
		r.res.Chunks = append(r.res.Chunks, c)
	}
	if r.req.OnChunk == nil {
		return false, nil
	}
	keep, err := r.req.OnChunk(c)
	switch {
	case err != nil:
		r.cl.close(closedEnd)
		_, closedAt := r.cl.state()
		r.res.TotalMs = ms(closedAt - r.t0)
		return true, callbackError(r.url, err)
	case !keep:
		r.cl.close(closedByChunk)
		return true, r.closedOutcome()
	}
	return false, nil
}

func orUnknown(s string) string {
	if s == "" {
		return "no type"
	}
	return s
}
