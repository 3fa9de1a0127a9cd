package check

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"ttftlab/internal/artifact"
	"ttftlab/internal/sse"
)

// sseStream is what sse_raw.txt held, read with the WHATWG event-stream
// rules as a stream of the API the lab used (steps.json's api): chat,
// completions or responses.
type sseStream struct {
	api string
	// opening counts the events that open an answer: chat chunks with
	// choices[0].delta.role, the Responses API's response.created;
	// completions streams have none.
	opening int
	// contents are the non-empty content deltas in order:
	// choices[0].delta.content (chat), choices[0].text (completions), the
	// delta of response.output_text.delta (responses).
	contents []string
	// lastLine is the last non-blank line of the file; lastType the type
	// of its last event (responses).
	lastLine string
	lastType string
}

const (
	apiChat        = "chat"
	apiCompletions = "completions"
	apiResponses   = "responses"
)

// parseSSE reads the events of sse_raw.txt with the sse package, the
// parser the stream reader uses. Lines are fed one at a time, each stamped
// with its line number, so an event's stamp is the line of its last data
// line. An event whose data is neither JSON nor [DONE] is a problem,
// reported with that line.
//
// api is the API the stream was asked with; "" reads it off the stream:
// responses when an event is named response.*, completions when a chunk
// has choices[0].text, else chat.
func parseSSE(data []byte, api string) (sseStream, error) {
	if api == "" {
		api = detectAPI(data)
	}
	s := sseStream{api: api}
	var p parser
	switch api {
	case apiChat, apiCompletions, apiResponses:
	default:
		return s, fmt.Errorf("steps.json names the API %q, which is none of chat, completions, responses", api)
	}
	var lines sse.Splitter
	var events sse.Parser
	// A last line without its end still counts as the last line; a last
	// event without its blank line is dropped by the parser, as a browser
	// would drop it.
	if n := len(data); n > 0 && data[n-1] != '\n' && data[n-1] != '\r' {
		data = append(data[:n:n], '\n')
	}
	lines.Feed(data, 0)
	var buf []byte // one line and its LF: line.Text points into data
	for n := 1; ; n++ {
		line, ok := lines.Next()
		if !ok {
			break
		}
		if len(bytes.TrimSpace(line.Text)) > 0 {
			s.lastLine = string(line.Text)
		}
		buf = append(append(buf[:0], line.Text...), '\n')
		events.Feed(buf, time.Duration(n))
		for {
			ev, ok := events.Next()
			if !ok {
				break
			}
			s.dispatch(ev.Type, string(ev.Data), int(ev.Stamp), &p)
		}
	}
	if err := lines.Err(); err != nil {
		p.problems = append(p.problems, err.Error())
	}
	if err := events.Err(); err != nil {
		p.problems = append(p.problems, err.Error())
	}
	return s, p.err()
}

func (s *sseStream) dispatch(typ, data string, line int, p *parser) {
	if data == "[DONE]" {
		return
	}
	n, err := decodeJSON([]byte(data))
	if err != nil {
		p.problems = append(p.problems, fmt.Sprintf("line %d: data %v", line, err))
		return
	}
	content := ""
	switch s.api {
	case apiChat:
		delta := n.key("choices").at(0).key("delta")
		if _, ok := delta.key("role").v.(string); ok {
			s.opening++
		}
		content, _ = delta.key("content").v.(string)
	case apiCompletions:
		content, _ = n.key("choices").at(0).key("text").v.(string)
	case apiResponses:
		if t, ok := n.key("type").v.(string); ok {
			typ = t
		}
		s.lastType = typ
		switch typ {
		case "response.created":
			s.opening++
		case "response.output_text.delta":
			content, _ = n.key("delta").v.(string)
		}
	}
	if content != "" {
		s.contents = append(s.contents, content)
	}
}

// detectAPI reads the API off a stream whose API was not recorded.
func detectAPI(data []byte) string {
	switch {
	case bytes.Contains(data, []byte("\nevent: response.")) || bytes.HasPrefix(data, []byte("event: response.")) ||
		bytes.Contains(data, []byte("\"type\":\"response.")):
		return apiResponses
	case bytes.Contains(data, []byte("\"text_completion\"")) || bytes.Contains(data, []byte("{\"text\":")):
		return apiCompletions
	}
	return apiChat
}

// openingCheck is the "sse opening event" check: a chat stream opens with a
// role-only chunk, a Responses stream with response.created; a
// completions stream has no such event, so the check does not apply.
func (s *sseStream) openingCheck() (string, error) {
	switch s.api {
	case apiCompletions:
		return "", skip("a completions stream has no opening event (api %s in steps.json)", s.api)
	case apiResponses:
		if s.opening == 0 {
			return "", fmt.Errorf("no event in sse_raw.txt is response.created; a Responses stream opens with it")
		}
		return fmt.Sprintf("%d response.created events", s.opening), nil
	}
	if s.opening == 0 {
		return "", fmt.Errorf("no event in sse_raw.txt has choices[0].delta.role; the server's first event carries the role")
	}
	return fmt.Sprintf("%d events with a role", s.opening), nil
}

// endCheck is the "sse ends complete" check: chat and completions streams end with
// data: [DONE], a Responses stream with response.completed (or
// response.incomplete); anything else is a stream that stopped early.
func (s *sseStream) endCheck() (string, error) {
	if s.api == apiResponses {
		if s.lastType != "response.completed" && s.lastType != "response.incomplete" {
			return "", fmt.Errorf("the last event of sse_raw.txt is %s, want response.completed or response.incomplete (a stream that stops early is incomplete)", excerpt(s.lastType, 60))
		}
		return fmt.Sprintf("last event %s", s.lastType), nil
	}
	if strings.TrimSpace(s.lastLine) != "data: [DONE]" {
		return "", fmt.Errorf("the last non-blank line of sse_raw.txt is %s, want \"data: [DONE]\" (a stream that stops early is incomplete)", excerpt(s.lastLine, 60))
	}
	return fmt.Sprintf("last line %q", strings.TrimSpace(s.lastLine)), nil
}

// parseChunks reads chunks.jsonl: one {"t_ms":…, "text":…} object a line;
// blank lines are skipped.
func parseChunks(data []byte) ([]artifact.Chunk, error) {
	var chunks []artifact.Chunk
	var all parser
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSuffix(line, "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		var c artifact.Chunk
		if err := artifact.Decode([]byte(line), &c); err != nil {
			all.problems = append(all.problems, fmt.Sprintf("line %d: %v", i+1, err))
			continue
		}
		chunks = append(chunks, c)
	}
	return chunks, all.err()
}
