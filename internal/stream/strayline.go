package stream

import (
	"bytes"

	"ttftlab/internal/sse"
)

// Lines and events outside the API's own shape. A server that fails after
// its 200 head sometimes writes its error as a bare JSON line
// ({"error":{...}}) or, in very old llama.cpp builds, as an "error:"
// field: the SSE rules ignore both, so the stream would end as a mere
// truncation without the server's words. A named event ("event: ping")
// whose data is no chunk of the API is not the answer either: it is
// counted (Info.IgnoredEvents) and the stream goes on.

// strayLine is the parser's hook for field lines it does not know. A line
// that is the server's error object ends the stream with its text.
func (r *run) strayLine(line []byte, st stamp) {
	if r.lineErr != nil {
		return
	}
	se, ok := bareError(line)
	if !ok {
		return
	}
	r.res.TotalMs = ms(st.at - r.t0)
	e := r.fail(KindServer, nil, "the server sent an error line mid-stream, outside any data event, after %s (%s): %s",
		r.progress(), orUnknown(se.Type), orNone(se.Message))
	e.Type, e.Message = se.Type, se.Message
	r.lineErr = e
}

// bareError reads a line that is an error object on its own
// ({"error":{"message":...}}) or an "error:" field holding one.
func bareError(line []byte) (serverError, bool) {
	line = bytes.TrimSpace(line)
	if v, ok := bytes.CutPrefix(line, []byte("error:")); ok {
		if se, ok := parseServerError(v); ok {
			return se, true
		}
		return parseErrorBody(v)
	}
	if len(line) == 0 || line[0] != '{' {
		return serverError{}, false
	}
	return parseErrorBody(line)
}

// ignoredEvent reports whether ev, whose data is no chunk of the API, is
// a named event to pass over (counted) rather than a broken stream. Data
// events without a name, or named "message" (the SSE default), must be
// chunks.
func (r *run) ignoredEvent(ev sse.EventOf[stamp]) bool {
	if ev.Type == "" || ev.Type == "message" {
		return false
	}
	r.res.Info.IgnoredEvents++
	if r.res.Info.FirstIgnored == "" {
		r.res.Info.FirstIgnored = ev.Type
	}
	return true
}
