package stream

// scanner is a strict JSON reader for fastChunk: every method reports
// false on input it does not accept, and fastChunk then leaves the
// payload to encoding/json, so being strict here never changes a result.
type scanner struct {
	b []byte
	i int
	// text is set for completions chunks: a choice's content is its
	// "text" string, not its delta's "content".
	text bool
}

// maxSkipDepth bounds the nesting skip follows; deeper values go to
// encoding/json.
const maxSkipDepth = 32

func (s *scanner) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// open consumes optional space and the byte c.
func (s *scanner) open(c byte) bool {
	s.space()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// literal consumes optional space and word, if the input has it there.
func (s *scanner) literal(word string) bool {
	s.space()
	if len(s.b)-s.i >= len(word) && string(s.b[s.i:s.i+len(word)]) == word {
		s.i += len(word)
		return true
	}
	return false
}

// nextKey moves to the next member of an object whose '{' is consumed:
// done at its '}', else the member's key, with the ':' consumed. Keys with
// escapes are refused.
func (s *scanner) nextKey(first bool) (key []byte, done, ok bool) {
	if done, ok = s.next(first, '}'); done || !ok {
		return nil, done, ok
	}
	s.space()
	key, escaped, ok := s.str()
	if !ok || escaped || !s.open(':') {
		return nil, false, false
	}
	return key, false, true
}

// nextItem moves to the next item of an array whose '[' is consumed: done
// at its ']'.
func (s *scanner) nextItem(first bool) (done, ok bool) {
	return s.next(first, ']')
}

// next handles the separator before a member or item: the closing byte
// (done), a comma (not before the first), or for the first one anything
// else, which the caller reads.
func (s *scanner) next(first bool, closing byte) (done, ok bool) {
	s.space()
	if s.i >= len(s.b) {
		return false, false
	}
	switch c := s.b[s.i]; {
	case c == closing:
		s.i++
		return true, true
	case first:
		return false, true
	case c == ',':
		s.i++
		return false, true
	}
	return false, false
}

// str reads a string and returns its bytes between the quotes, still
// escaped; escaped says whether any escape occurs. Raw control bytes and
// malformed escapes are refused, as JSON requires.
func (s *scanner) str() (raw []byte, escaped, ok bool) {
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return nil, false, false
	}
	start := s.i + 1
	for i := start; i < len(s.b); {
		switch c := s.b[i]; {
		case c == '"':
			s.i = i + 1
			return s.b[start:i], escaped, true
		case c == '\\':
			n := escapeLen(s.b[i+1:])
			if n == 0 {
				return nil, false, false
			}
			escaped = true
			i += 1 + n
		case c < 0x20:
			return nil, false, false
		default:
			i++
		}
	}
	return nil, false, false
}

// escapeLen is the length of the valid escape at the start of b (after
// the backslash), 0 when there is none.
func escapeLen(b []byte) int {
	if len(b) == 0 {
		return 0
	}
	switch b[0] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 1
	case 'u':
		if len(b) < 5 {
			return 0
		}
		for _, c := range b[1:5] {
			if !isHex(c) {
				return 0
			}
		}
		return 5
	}
	return 0
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// skip reads and discards one value of any type.
func (s *scanner) skip(depth int) bool {
	s.space()
	if s.i >= len(s.b) || depth > maxSkipDepth {
		return false
	}
	switch c := s.b[s.i]; {
	case c == '{':
		s.i++
		return s.skipObject(depth)
	case c == '[':
		s.i++
		return s.skipArray(depth)
	case c == '"':
		_, _, ok := s.str()
		return ok
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	case c == '-' || '0' <= c && c <= '9':
		return s.number()
	}
	return false
}

func (s *scanner) skipObject(depth int) bool {
	for first := true; ; first = false {
		done, ok := s.next(first, '}')
		if done || !ok {
			return ok
		}
		s.space()
		if _, _, ok := s.str(); !ok || !s.open(':') || !s.skip(depth+1) {
			return false
		}
	}
}

func (s *scanner) skipArray(depth int) bool {
	for first := true; ; first = false {
		done, ok := s.next(first, ']')
		if done || !ok {
			return ok
		}
		if !s.skip(depth + 1) {
			return false
		}
	}
}

// number reads a number in JSON's grammar:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *scanner) number() bool {
	if s.peekIs('-') {
		s.i++
	}
	switch {
	case s.peekIs('0'):
		s.i++
	case s.digits() == 0:
		return false
	}
	if s.peekIs('.') {
		s.i++
		if s.digits() == 0 {
			return false
		}
	}
	if s.peekIs('e') || s.peekIs('E') {
		s.i++
		if s.peekIs('+') || s.peekIs('-') {
			s.i++
		}
		if s.digits() == 0 {
			return false
		}
	}
	return true
}

func (s *scanner) peekIs(c byte) bool { return s.i < len(s.b) && s.b[s.i] == c }

// digits consumes a run of decimal digits and returns its length.
func (s *scanner) digits() int {
	start := s.i
	for s.i < len(s.b) && '0' <= s.b[s.i] && s.b[s.i] <= '9' {
		s.i++
	}
	return s.i - start
}
