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
// rules (only the parts a chat-completion stream uses).
type sseStream struct {
	roleEvents int
	// contents are the non-empty choices[0].delta.content values in order.
	contents []string
	// lastLine is the last non-blank line of the file.
	lastLine string
}

// parseSSE reads the events of sse_raw.txt with the sse package, the
// parser the stream reader uses. Lines are fed one at a time, each stamped
// with its line number, so an event's stamp is the line of its last data
// line. An event whose data is neither JSON nor [DONE] is a problem,
// reported with that line.
func parseSSE(data []byte) (sseStream, error) {
	var s sseStream
	var p parser
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
			s.dispatch(string(ev.Data), int(ev.Stamp), &p)
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
