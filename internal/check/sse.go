package check

import (
	"bytes"
	"fmt"
	"strings"
)

// sseStream is what sse_raw.txt held, read with the WHATWG event-stream
// rules (only the parts a chat-completion stream uses).
type sseStream struct {
	roleEvents int
	// contents are the non-empty choices[0].delta.content values in order.
	contents []string
	// lastLine is the last non-blank line of the file.
	lastLine string
}

// sseLines splits data at LF, CRLF or a lone CR; a final line without an end
// still counts.
func sseLines(data []byte) []string {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var lines []string
	start := 0
	for i := 0; i < len(data); i++ {
		if data[i] != '\n' && data[i] != '\r' {
			continue
		}
		lines = append(lines, string(data[start:i]))
		if data[i] == '\r' && i+1 < len(data) && data[i+1] == '\n' {
			i++
		}
		start = i + 1
	}
	if start < len(data) {
		lines = append(lines, string(data[start:]))
	}
	return lines
}

// parseSSE reads the events of sse_raw.txt. An event whose data is neither
// JSON nor [DONE] is a problem, reported with its line number.
func parseSSE(data []byte) (sseStream, error) {
	var s sseStream
	var p parser
	var buf []string
	first := 0 // line number of the event's first data line
	for i, line := range sseLines(data) {
		if strings.TrimSpace(line) != "" {
			s.lastLine = line
		}
		switch {
		case line == "":
			if buf != nil {
				s.dispatch(strings.Join(buf, "\n"), first, &p)
			}
			buf = nil
		case strings.HasPrefix(line, ":"):
			// A comment (keep-alive ping).
		case line == "data" || strings.HasPrefix(line, "data:"):
			if buf == nil {
				first = i + 1
			}
			v := strings.TrimPrefix(strings.TrimPrefix(line, "data"), ":")
			buf = append(buf, strings.TrimPrefix(v, " "))
		}
	}
	// An event without its closing blank line is discarded, as a browser
	// would; the [DONE] check looks at lastLine instead.
	return s, p.err()
}

func (s *sseStream) dispatch(data string, line int, p *parser) {
	if data == "[DONE]" {
		return
	}
	n, err := decodeJSON([]byte(data))
	if err != nil {
		p.problems = append(p.problems, fmt.Sprintf("line %d: data %v", line, err))
		return
	}
	delta := n.key("choices").at(0).key("delta")
	if _, ok := delta.key("role").v.(string); ok {
		s.roleEvents++
	}
	if c, ok := delta.key("content").v.(string); ok && c != "" {
		s.contents = append(s.contents, c)
	}
}

type chunk struct {
	tMs  float64
	text string
}

// parseChunks reads chunks.jsonl: one {"t_ms":…, "text":…} object a line;
// blank lines are skipped.
func parseChunks(data []byte) ([]chunk, error) {
	var chunks []chunk
	var all parser
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSuffix(line, "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		n, err := decodeJSON([]byte(line))
		if err != nil {
			all.problems = append(all.problems, fmt.Sprintf("line %d: %v", i+1, err))
			continue
		}
		var p parser
		if p.obj(n) {
			chunks = append(chunks, chunk{tMs: p.num(n.key("t_ms")), text: p.str(n.key("text"))})
		}
		for _, pr := range p.problems {
			all.problems = append(all.problems, fmt.Sprintf("line %d: %s", i+1, pr))
		}
	}
	return chunks, all.err()
}
