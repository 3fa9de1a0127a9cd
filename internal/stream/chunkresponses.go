package stream

import (
	"encoding/json"
	"fmt"
)

// Event types of the Responses API that the measurements use; every other
// type (response.created, response.in_progress, ...added, ...done) only
// counts as an event.
const (
	respTextDelta      = "response.output_text.delta"
	respReasoningDelta = "response.reasoning_text.delta"
	respSummaryDelta   = "response.reasoning_summary_text.delta"
	respArgumentsDelta = "response.function_call_arguments.delta"
	respItemAdded      = "response.output_item.added"
	respCompleted      = "response.completed"
	respIncomplete     = "response.incomplete"
	respFailed         = "response.failed"
	respError          = "error"
)

// responseFields is the part of a Responses API event the measurements
// need.
type responseFields struct {
	// typ is the data's "type", else the SSE event's type.
	typ string
	// delta is the text of a delta event (hasDelta: a string was there).
	delta    string
	hasDelta bool
	// itemType is item.type of response.output_item.added ("message",
	// "function_call", "reasoning").
	itemType string
	// status, incomplete, usage and respErr come from the "response"
	// object of the terminal events.
	status     string
	incomplete string
	usage      map[string]any
	respErr    json.RawMessage
	// timings is llama-server's timings object, at the top level of
	// response.completed (or inside "response" elsewhere).
	timings map[string]any
	// errRaw is a top-level "error" member (llama-server's mid-stream
	// error shape); message and code are those of an "error" event.
	errRaw   json.RawMessage
	message  string
	code     any
	progress bool
}

// wireResponseEvent is how encoding/json sees a Responses API event. The
// members whose shape depends on the event's type stay raw and are decoded
// only for the types that use them, so an unknown event of another shape
// is never an error.
type wireResponseEvent struct {
	Type           *string         `json:"type"`
	Delta          json.RawMessage `json:"delta"`
	Item           json.RawMessage `json:"item"`
	Response       json.RawMessage `json:"response"`
	Timings        json.RawMessage `json:"timings"`
	Error          json.RawMessage `json:"error"`
	Message        json.RawMessage `json:"message"`
	Code           any             `json:"code"`
	PromptProgress json.RawMessage `json:"prompt_progress"`
}

// wireResponse is the "response" object of a terminal event.
type wireResponse struct {
	Status            string          `json:"status"`
	Usage             map[string]any  `json:"usage"`
	Timings           map[string]any  `json:"timings"`
	Error             json.RawMessage `json:"error"`
	IncompleteDetails *struct {
		Reason string `json:"reason"`
	} `json:"incomplete_details"`
}

// isDeltaType reports whether events of type typ carry their text in a
// "delta" string.
func isDeltaType(typ string) bool {
	switch typ {
	case respTextDelta, respReasoningDelta, respSummaryDelta, respArgumentsDelta:
		return true
	}
	return false
}

// decodeResponseEvent decodes one data payload of a Responses stream;
// evType is the SSE event's "event" field, the type when the data has no
// "type" member. The text deltas, nearly every event of a stream, take a
// hand-written path; everything else goes through encoding/json.
func decodeResponseEvent(data []byte, evType string) (responseFields, error) {
	if f, ok := fastResponseDelta(data); ok {
		return f, nil
	}
	return slowResponseEvent(data, evType)
}

// slowResponseEvent decodes with encoding/json.
func slowResponseEvent(data []byte, evType string) (responseFields, error) {
	var w wireResponseEvent
	if err := json.Unmarshal(data, &w); err != nil {
		return responseFields{}, err
	}
	f := responseFields{errRaw: w.Error, code: w.Code,
		progress: isSet(w.PromptProgress)}
	if f.typ = evType; w.Type != nil {
		f.typ = *w.Type
	}
	if isSet(w.Message) {
		if err := json.Unmarshal(w.Message, &f.message); err != nil {
			f.message = string(w.Message)
		}
	}
	if isSet(w.Timings) {
		if err := json.Unmarshal(w.Timings, &f.timings); err != nil {
			return f, fmt.Errorf("timings: %w", err)
		}
	}
	switch {
	case isDeltaType(f.typ) && isSet(w.Delta):
		if err := json.Unmarshal(w.Delta, &f.delta); err != nil {
			return f, fmt.Errorf("the delta of %s: %w", f.typ, err)
		}
		f.hasDelta = true
	case f.typ == respItemAdded && isSet(w.Item):
		var item struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(w.Item, &item); err != nil {
			return f, fmt.Errorf("the item of %s: %w", f.typ, err)
		}
		f.itemType = item.Type
	case (f.typ == respCompleted || f.typ == respIncomplete || f.typ == respFailed) && isSet(w.Response):
		var resp wireResponse
		if err := json.Unmarshal(w.Response, &resp); err != nil {
			return f, fmt.Errorf("the response of %s: %w", f.typ, err)
		}
		f.status, f.usage, f.respErr = resp.Status, resp.Usage, resp.Error
		if f.timings == nil {
			f.timings = resp.Timings
		}
		if resp.IncompleteDetails != nil {
			f.incomplete = resp.IncompleteDetails.Reason
		}
	}
	return f, nil
}

// isSet reports whether a raw member is there and not null.
func isSet(raw json.RawMessage) bool {
	return len(raw) > 0 && string(raw) != "null"
}

// fastResponseDelta decodes a delta event in the shape llama-server and
// OpenAI stream:
//
//	{"type":"response.output_text.delta","item_id":"msg_...","delta":"..."}
//
// It reports false for anything else, and for everything fastChunk
// refuses (members spelled in another case, given twice, escapes it does
// not decode, ...); the caller then decodes with encoding/json.
func fastResponseDelta(data []byte) (f responseFields, ok bool) {
	s := scanner{b: data}
	if !s.open('{') {
		return f, false
	}
	sawType := false
	for first := true; ; first = false {
		key, done, ok := s.nextKey(first)
		switch {
		case !ok:
			return f, false
		case done:
			s.space()
			return f, s.i == len(s.b) && isDeltaType(f.typ) && f.hasDelta
		case string(key) == "type" && !sawType:
			sawType = true
			raw, escaped, ok := s.str()
			if !ok || escaped || !isDeltaType(string(raw)) {
				return f, false
			}
			f.typ = deltaTypeName(raw)
		case string(key) == "delta" && !f.hasDelta:
			v, isNull, ok := s.optString()
			if !ok || isNull {
				return f, false
			}
			f.delta, f.hasDelta = v, true
		case foldsToAny(key, "type", "delta", "item", "response", "timings", "error", "message", "code", "prompt_progress"):
			return f, false
		default:
			if !s.skip(0) {
				return f, false
			}
		}
	}
}

// deltaTypeName returns the constant for a delta type, so the hot path
// allocates no string for it.
func deltaTypeName(raw []byte) string {
	for _, t := range [...]string{respTextDelta, respReasoningDelta, respSummaryDelta, respArgumentsDelta} {
		if string(raw) == t {
			return t
		}
	}
	return string(raw)
}

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }
