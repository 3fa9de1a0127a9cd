package sentence

import "strings"

// Ready is a sentence of a stream that is complete: its text without
// leading and trailing white space, and the time of the chunk that
// completed it (End's time for the rest of the answer).
type Ready struct {
	Text string
	TMs  float64
}

// Splitter peels the sentences off a streamed answer as its chunks come,
// as the voice module's on_chunk does in Lua: the text not yet sent is
// pending; after each chunk, while First(pending, false) finds a
// sentence, that sentence is ready and pending goes on after it; at the
// end, First(pending, true) gives the rest. Its cost is linear in the
// answer's length however it is cut into chunks: the pending text is read
// once, not again at every chunk. The zero value is ready to use; a
// Splitter is not safe for use by several goroutines at once.
type Splitter struct {
	buf   strings.Builder
	start int // where pending begins in buf
	sc    scanner
}

// Feed adds a chunk that arrived at tMs and returns the sentences it
// completed, in order (nil when none).
func (s *Splitter) Feed(text string, tMs float64) []Ready {
	s.buf.WriteString(text)
	return s.peel(false, tMs)
}

// End returns the rest of the answer, in final mode: every sentence of the
// pending text, with tMs (the time the answer ended). The Splitter is then
// empty, ready for another answer.
func (s *Splitter) End(tMs float64) []Ready {
	out := s.peel(true, tMs)
	s.buf = strings.Builder{}
	s.start = 0
	s.sc = scanner{}
	return out
}

func (s *Splitter) peel(final bool, tMs float64) []Ready {
	var out []Ready
	for {
		all := s.buf.String()
		pending := all[s.start:]
		e, ok := s.sc.first(pending, final)
		if !ok {
			break
		}
		if t := strings.Trim(pending[:e], " \t\n\v\f\r"); t != "" {
			out = append(out, Ready{Text: strings.Clone(t), TMs: tMs})
		}
		s.start += e
		s.sc = scanner{}
		if s.start > 4096 && s.start > len(all)/2 {
			// Keep only the pending text: copying it costs no more than
			// the text already peeled.
			rest := all[s.start:]
			s.buf = strings.Builder{}
			s.buf.WriteString(rest)
			s.start = 0
		}
	}
	return out
}
