package stream

import (
	"bytes"
	"time"

	"ttftlab/internal/sse"
)

// responseEvent handles one event of a Responses API stream: the text
// deltas are the content, the reasoning and function-call deltas the other
// firsts, and response.completed, response.incomplete or response.failed
// end it (there is no [DONE]).
func (r *run) responseEvent(ev sse.EventOf[stamp], at time.Duration) (stop bool, err error) {
	f, err := decodeResponseEvent(ev.Data, ev.Type)
	if err != nil {
		r.res.TotalMs = ms(at)
		return true, r.badData(ev.Data, at, err)
	}
	typ := f.typ
	if se, ok := parseServerError(f.errRaw); ok {
		r.res.TotalMs = ms(at)
		e := r.fail(KindServer, nil, "the server reported an error mid-stream after %s (%s): %s",
			r.progress(), orUnknown(se.Type), se.Message)
		e.Type, e.Message = se.Type, se.Message
		return true, e
	}
	switch typ {
	case "":
		r.res.TotalMs = ms(at)
		return true, r.fail(KindBadData, nil,
			"the event at %.1f ms has no type (neither an \"event:\" field nor a \"type\" member), so it is not a Responses API event: %s",
			ms(at), quote(r.scrub, ev.Data, 200))
	case respError:
		r.res.TotalMs = ms(at)
		e := r.fail(KindServer, nil, "the server sent an error event mid-stream after %s (%s): %s",
			r.progress(), orUnknown(codeString(f.code)), f.message)
		e.Type, e.Message = codeString(f.code), f.message
		return true, e
	case respFailed:
		r.res.TotalMs = ms(at)
		se, _ := parseServerError(f.respErr)
		r.res.Info.Usage = orKeep(f.usage, r.res.Info.Usage)
		e := r.fail(KindServer, nil, "the server ended the response as failed after %s (%s): %s",
			r.progress(), orUnknown(codeString(se.Code)), orNone(se.Message))
		e.Type, e.Message = codeString(se.Code), se.Message
		r.res.Info.FinishReason = "failed"
		return true, e
	}
	if f.timings != nil {
		r.res.Timings = f.timings
	}
	r.res.Info.Usage = orKeep(f.usage, r.res.Info.Usage)
	c := chunkFields{progress: f.progress}
	switch typ {
	case respReasoningDelta, respSummaryDelta:
		c.reasoning = f.delta
	case respArgumentsDelta:
		c.toolCalls = true
	case respItemAdded:
		c.toolCalls = f.itemType == "function_call"
	case respCompleted, respIncomplete:
		r.res.Info.Done = true
		r.res.Info.FinishReason = finishOf(typ, f)
		r.res.TotalMs = ms(at)
		return true, nil
	}
	r.firsts(&c, ms(at))
	if typ != respTextDelta || f.delta == "" {
		return false, nil
	}
	first(&r.res.Info.FirstOutputMs, ms(at))
	return r.chunk(f.delta, ev.Stamp)
}

// finishOf is Info.FinishReason at a Responses stream's end: the
// response's status ("completed"), or for response.incomplete the reason
// the server gave (e.g. "max_output_tokens"), else "incomplete".
func finishOf(typ string, f responseFields) string {
	switch {
	case typ == respIncomplete && f.incomplete != "":
		return f.incomplete
	case typ == respIncomplete:
		return "incomplete"
	case f.status != "":
		return f.status
	}
	return "completed"
}

// codeString shows an error code of any JSON type.
func codeString(code any) string {
	switch c := code.(type) {
	case nil:
		return ""
	case string:
		return c
	}
	b, _ := jsonMarshal(code)
	return string(bytes.Trim(b, `"`))
}

func orKeep(m, old map[string]any) map[string]any {
	if m != nil {
		return m
	}
	return old
}

func orNone(s string) string {
	if s == "" {
		return "no message"
	}
	return s
}
