package stream

import (
	"errors"
	"io"
	"time"
)

// stream reads the event stream until [DONE], an error or a close. The
// reader goroutine only reads and stamps; everything else, callbacks
// included, happens here on the caller's goroutine.
func (r *run) stream(body io.Reader) error {
	rd := startReader(body, r.clk, r.idle, r.idleD)
	defer func() {
		r.cl.close(closedEnd)
		rd.stop()
	}()
	for {
		m := <-rd.out
		if m.free != nil {
			arenas.Put(m.free)
			continue
		}
		at := m.at - r.t0
		if stop, err := r.consume(m.data, at); stop || err != nil {
			return err
		}
		if m.err != nil {
			return r.ended(m.err, at)
		}
	}
}

// consume handles the bytes of one read: raw copy, lines, events.
func (r *run) consume(data []byte, at time.Duration) (stop bool, err error) {
	if len(data) == 0 {
		return false, nil
	}
	r.bytes += int64(len(data))
	r.lastAt = at
	if r.req.RawOut != nil {
		if _, err := r.req.RawOut.Write(data); err != nil {
			r.res.TotalMs = ms(at)
			return true, r.fail(KindRawOut, err, "writing the raw output failed after %s: %v", r.progress(), err)
		}
	}
	r.parser.Feed(data, at)
	defer r.countLines()
	for {
		ev, ok := r.parser.Next()
		if !ok {
			break
		}
		if stop, err := r.event(ev); stop || err != nil {
			return true, err
		}
	}
	if err := r.parser.Err(); err != nil {
		r.res.TotalMs = ms(at)
		return true, r.fail(KindBadData, err, "the answer is not a readable event stream after %s: %v", r.progress(), err)
	}
	return false, nil
}

// countLines keeps Info.Lines current: non-blank lines, comments included.
func (r *run) countLines() {
	c := r.parser.Counts()
	r.res.Info.Lines = c.Lines - c.Blank
}

// ended explains why the body stopped before [DONE]: one of our closes, the
// server ending it early, or the connection failing.
func (r *run) ended(readErr error, at time.Duration) error {
	if reason, _ := r.cl.state(); reason != notClosed {
		return r.closedOutcome()
	}
	r.res.TotalMs = ms(at)
	cutEvent := ""
	if r.parser.Tail().Truncated() {
		cutEvent = ", in the middle of an event"
	}
	if errors.Is(readErr, io.EOF) {
		return r.fail(KindTruncated, nil,
			"the stream ended without data: [DONE] after %s%s; the server stopped early or something in between cut it", r.progress(), cutEvent)
	}
	return r.fail(KindDropped, readErr,
		"the connection broke mid-stream after %s%s: %v", r.progress(), cutEvent, unwrapURLError(readErr))
}
