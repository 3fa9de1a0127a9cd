package sse

import (
	"bytes"
	"fmt"
	"time"
)

// EventOf is one dispatched server-sent event; S is the stamp type fed to
// the parser.
type EventOf[S any] struct {
	// Type is the value of the event's last "event" field, "" when it had
	// none (browsers call that type "message").
	Type string
	// Data holds the event's data lines joined with "\n". It points into the
	// parser's buffer and is valid only until the next call to Next or Feed.
	Data []byte
	// DataLines counts the event's data lines (Data may be empty while
	// DataLines is 1: "data" alone is an event with empty data).
	DataLines int
	// ID is the last event ID seen so far in the stream; as in WHATWG it
	// carries over to later events that have no "id" field.
	ID string
	// Stamp is the stamp of the event's LAST data line, not of the blank
	// line that dispatched it: the data is what the reader waits for, and
	// the blank line may come in a later read.
	Stamp S
}

// Counts tallies the complete lines a parser has seen.
type Counts struct {
	Lines    int // every complete line, blank ones included
	Blank    int // blank lines (event dispatches)
	Comments int // lines starting with ':'
	Fields   int // field lines, known or not
	Events   int // events dispatched
}

// Tail says what was left when the stream ended.
type Tail struct {
	// PartialBytes is the length of a last line that had no terminator.
	PartialBytes int
	// Fields counts the field lines after the last blank line: an event that
	// was started but never dispatched, so it is dropped.
	Fields int
}

// Truncated reports whether the stream stopped inside a line or an event.
func (t Tail) Truncated() bool { return t.PartialBytes > 0 || t.Fields > 0 }

// ParserOf turns a byte stream into events (WHATWG "event stream
// interpretation"). Use it like Splitter: Feed one read, then call Next
// until it reports false. The zero value is ready to use.
type ParserOf[S any] struct {
	// MaxLine bounds both one line and one event's data in bytes
	// (0: DefaultMaxLine). Set it before the first Feed.
	MaxLine int
	// Unknown, when set, sees every field line whose name is none of
	// data, event, id and retry (ignored by the WHATWG rules), e.g. a
	// server's bare JSON error line. The line is valid only during the
	// call.
	Unknown func(line []byte, stamp S)

	split     SplitterOf[S]
	data      []byte
	dataLines int
	dataStamp S
	dataEmit  bool // data was handed out in an Event and must be emptied on the next call
	typ       string
	lastTyp   string // the previous type, reused to avoid a string allocation per event
	id        string
	retry     time.Duration
	hasRetry  bool
	pending   int // field lines since the last blank line
	counts    Counts
	err       error
}

// Feed hands the parser the bytes of one read and the stamp they carry.
func (p *ParserOf[S]) Feed(b []byte, stamp S) {
	p.split.MaxLine = p.MaxLine
	p.split.Feed(b, stamp)
}

// Next returns the next event completed by the current feed. It reports
// false when the feed holds no further event or when parsing failed; Err
// tells which.
func (p *ParserOf[S]) Next() (EventOf[S], bool) {
	if p.dataEmit {
		p.data, p.dataLines, p.dataEmit = p.data[:0], 0, false
	}
	for p.err == nil {
		line, ok := p.split.Next()
		if !ok {
			return EventOf[S]{}, false
		}
		if ev, ok := p.line(line); ok {
			return ev, true
		}
	}
	return EventOf[S]{}, false
}

// line applies one complete line; ok is true when it dispatched an event.
func (p *ParserOf[S]) line(l LineOf[S]) (EventOf[S], bool) {
	p.counts.Lines++
	t := l.Text
	if len(t) == 0 {
		p.counts.Blank++
		return p.dispatch()
	}
	if t[0] == ':' {
		p.counts.Comments++
		return EventOf[S]{}, false
	}
	p.counts.Fields++
	p.pending++
	name, value := t, []byte(nil)
	if i := bytes.IndexByte(t, ':'); i >= 0 {
		name, value = t[:i], t[i+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	}
	if !p.field(name, value, l.Stamp) && p.Unknown != nil {
		p.Unknown(t, l.Stamp)
	}
	return EventOf[S]{}, false
}

// field applies one field; unknown fields are ignored as WHATWG says
// (known is false for them).
func (p *ParserOf[S]) field(name, value []byte, stamp S) (known bool) {
	switch string(name) {
	case "data":
		p.addData(value, stamp)
	case "event":
		if string(value) != p.lastTyp {
			p.lastTyp = string(value)
		}
		p.typ = p.lastTyp
	case "id":
		// An ID containing NUL is ignored (WHATWG).
		if bytes.IndexByte(value, 0) < 0 && string(value) != p.id {
			p.id = string(value)
		}
	case "retry":
		if ms, ok := parseDigits(value); ok {
			p.retry, p.hasRetry = time.Duration(ms)*time.Millisecond, true
		}
	default:
		return false
	}
	return true
}

func (p *ParserOf[S]) addData(value []byte, stamp S) {
	limit := p.split.limit()
	n := len(p.data) + len(value)
	if p.dataLines > 0 {
		n++
	}
	if n > limit {
		p.err = fmt.Errorf("%w: an event's data passed the %d-byte limit (%d data lines so far); check that this is an event stream or raise the limit",
			ErrLineTooLong, limit, p.dataLines)
		return
	}
	if p.dataLines > 0 {
		p.data = append(p.data, '\n')
	}
	p.data = append(p.data, value...)
	p.dataLines++
	p.dataStamp = stamp
}

// dispatch ends the current event at a blank line. An event without data
// lines is not dispatched (WHATWG), but its type is still reset.
func (p *ParserOf[S]) dispatch() (EventOf[S], bool) {
	p.pending = 0
	typ := p.typ
	p.typ = ""
	if p.dataLines == 0 {
		return EventOf[S]{}, false
	}
	p.dataEmit = true
	p.counts.Events++
	return EventOf[S]{Type: typ, Data: p.data, DataLines: p.dataLines, ID: p.id, Stamp: p.dataStamp}, true
}

// parseDigits parses a retry value: ASCII digits only, as WHATWG requires.
// Values too large to be meaningful are rejected rather than overflowing.
func parseDigits(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 15 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// Err returns the error that stopped the parser, if any.
func (p *ParserOf[S]) Err() error {
	if p.err != nil {
		return p.err
	}
	return p.split.Err()
}

// Counts returns the line tallies so far.
func (p *ParserOf[S]) Counts() Counts { return p.counts }

// Tail describes what is left over; call it when the stream has ended. An
// event not terminated by a blank line is never dispatched, so a truncated
// Tail is how a caller learns that a stream was cut.
func (p *ParserOf[S]) Tail() Tail {
	return Tail{PartialBytes: p.split.Pending(), Fields: p.pending}
}

// Retry returns the reconnection time from the last valid "retry" field
// (a count of milliseconds), if there was one.
func (p *ParserOf[S]) Retry() (time.Duration, bool) { return p.retry, p.hasRetry }
