// Package sse turns a byte stream into lines and server-sent events following
// the WHATWG "event stream interpretation" rules. It knows nothing of HTTP or
// JSON: callers feed it the bytes of each read together with the time the read
// returned, and get back complete lines and events carrying those times.
package sse

import (
	"bytes"
	"errors"
	"fmt"
)

// DefaultMaxLine is the limit on one line (and on one event's data) used when
// no limit is set. It keeps a stream that never sends a line ending from
// growing memory without bound.
const DefaultMaxLine = 8 << 20

// ErrLineTooLong is wrapped by the error reported when a line or an event's
// data grows past the limit.
var ErrLineTooLong = errors.New("sse: line too long")

// bom is the UTF-8 byte order mark, dropped once at the start of a stream.
var bom = [3]byte{0xEF, 0xBB, 0xBF}

// LineOf is one complete line; S is the type of the stamps fed with the
// bytes (see Splitter).
type LineOf[S any] struct {
	// Text is the line without its terminator. It points into the fed bytes
	// or into the splitter's own buffer and is valid only until the next
	// call to Next or Feed: copy it to keep it.
	Text []byte
	// Stamp is the stamp given to the Feed whose bytes completed the line,
	// i.e. the read in which its terminator arrived.
	Stamp S
}

// SplitterOf cuts a byte stream into lines ending in LF, CRLF or a lone CR.
// Each feed carries a stamp of type S, opaque to the splitter (a read time,
// a line number, a record of how the read was timed), and every line
// carries the stamp of the feed that completed it.
//
// Feed one read's bytes, then call Next until it reports false, then Feed the
// next read. A CR at the end of one feed and an LF at the start of the next
// are one CRLF terminator. The zero value is ready to use.
//
// Lines that lie wholly inside one feed are returned without copying, so the
// fed slice must stay unchanged until Next has reported false.
type SplitterOf[S any] struct {
	// MaxLine bounds a line's length in bytes, terminator excluded
	// (0: DefaultMaxLine). A longer line stops the splitter with an error
	// wrapping ErrLineTooLong.
	MaxLine int

	in    []byte // the current feed; nil once drained
	pos   int    // first byte of in not yet consumed
	lf    int    // index of the next LF in in at or after pos, len(in) when none, -1 when unknown
	stamp S      // stamp of the current feed
	fed   int64  // bytes fed so far, for error messages

	part      []byte // a line begun in an earlier feed
	partEmit  bool   // part was returned as a line and must be emptied on the next call
	skipLF    bool   // the previous feed ended in CR: a leading LF completes that CRLF
	bomN      int    // BOM bytes matched at the start of the stream so far
	bomPassed bool   // the start of the stream has been checked for a BOM
	err       error
}

// Feed hands the splitter the bytes of one read and the stamp they carry.
// It panics if the previous feed still holds unread lines, because their
// stamps would be lost.
func (s *SplitterOf[S]) Feed(p []byte, stamp S) {
	if s.pos < len(s.in) {
		panic("sse: Feed called before Next drained the previous feed")
	}
	s.fed += int64(len(p))
	s.stamp = stamp
	if !s.bomPassed {
		p = s.dropBOM(p)
	}
	if s.skipLF && len(p) > 0 {
		if p[0] == '\n' {
			p = p[1:]
		}
		s.skipLF = false
	}
	s.in, s.pos, s.lf = p, 0, -1
}

// dropBOM removes a BOM from the start of the stream, also when it arrives
// split over several feeds. Bytes that looked like a BOM but were not one are
// data and go to the pending line.
func (s *SplitterOf[S]) dropBOM(p []byte) []byte {
	for len(p) > 0 && s.bomN < len(bom) {
		if p[0] != bom[s.bomN] {
			s.part = append(s.part, bom[:s.bomN]...)
			s.bomPassed = true
			return p
		}
		s.bomN++
		p = p[1:]
	}
	if s.bomN == len(bom) {
		s.bomPassed = true
	}
	return p
}

// Next returns the next complete line of the current feed. It reports false
// when the feed holds no further complete line (the rest is kept for the next
// feed) or when the splitter has failed; Err tells which.
func (s *SplitterOf[S]) Next() (LineOf[S], bool) {
	if s.partEmit {
		s.part = s.part[:0]
		s.partEmit = false
	}
	if s.err != nil || s.pos >= len(s.in) {
		s.in, s.pos = nil, 0
		return LineOf[S]{}, false
	}
	end, next := s.findEOL()
	if end < 0 {
		rest := s.in[s.pos:]
		if s.tooLong(len(s.part) + len(rest)) {
			return LineOf[S]{}, false
		}
		s.part = append(s.part, rest...)
		s.in, s.pos = nil, 0
		return LineOf[S]{}, false
	}
	seg := s.in[s.pos:end]
	s.pos = next
	if len(s.part) == 0 {
		if s.tooLong(len(seg)) {
			return LineOf[S]{}, false
		}
		return LineOf[S]{Text: seg, Stamp: s.stamp}, true
	}
	if s.tooLong(len(s.part) + len(seg)) {
		return LineOf[S]{}, false
	}
	s.part = append(s.part, seg...)
	s.partEmit = true
	return LineOf[S]{Text: s.part, Stamp: s.stamp}, true
}

// findEOL finds the terminator of the line starting at pos: end is where the
// line stops and next where the following line starts; end is -1 when the
// feed holds no terminator. The LF position is cached so that text full of
// lone CRs is not rescanned for an LF once per line.
func (s *SplitterOf[S]) findEOL() (end, next int) {
	if s.lf < s.pos {
		s.lf = len(s.in)
		if i := bytes.IndexByte(s.in[s.pos:], '\n'); i >= 0 {
			s.lf = s.pos + i
		}
	}
	if i := bytes.IndexByte(s.in[s.pos:s.lf], '\r'); i >= 0 {
		cr := s.pos + i
		switch {
		case cr+1 == len(s.in):
			// The LF of a CRLF may open the next feed; the line is
			// complete either way, so it carries this feed's stamp.
			s.skipLF = true
			return cr, cr + 1
		case s.in[cr+1] == '\n':
			return cr, cr + 2
		default:
			return cr, cr + 1
		}
	}
	if s.lf == len(s.in) {
		return -1, -1
	}
	return s.lf, s.lf + 1
}

// tooLong records an error when a line of n bytes exceeds the limit.
func (s *SplitterOf[S]) tooLong(n int) bool {
	limit := s.limit()
	if n <= limit {
		return false
	}
	s.err = fmt.Errorf("%w: a line passed the %d-byte limit (%d bytes so far) within the first %d bytes of the stream; check that this is an event stream or raise the limit",
		ErrLineTooLong, limit, n, s.fed)
	s.in, s.pos = nil, 0
	return true
}

func (s *SplitterOf[S]) limit() int {
	if s.MaxLine > 0 {
		return s.MaxLine
	}
	return DefaultMaxLine
}

// Err returns the error that stopped the splitter, if any.
func (s *SplitterOf[S]) Err() error { return s.err }

// Pending returns how many bytes of an unfinished last line the splitter
// holds. At the end of a stream a non-zero value means the last line was cut.
func (s *SplitterOf[S]) Pending() int {
	n := len(s.in) - s.pos
	if !s.partEmit {
		n += len(s.part)
	}
	if !s.bomPassed {
		n += s.bomN
	}
	return n
}
