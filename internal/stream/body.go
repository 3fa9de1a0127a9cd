package stream

import (
	"errors"
	"io"
	"time"
)

// stream reads the event stream until [DONE], an error or a close. The
// reader only reads and stamps; everything else, callbacks included,
// happens here on the caller's goroutine.
func (r *run) stream() error {
	for {
		pieces, st, err := r.nextRead()
		if stop, err := r.consume(pieces, st); stop || err != nil {
			return err
		}
		if err != nil {
			return r.ended(err, st.at-r.t0)
		}
	}
}

// nextMsg returns the reader's next read, recycling used-up buffers on the
// way and counting the reads and their stamps' sources.
func (r *run) nextMsg() readMsg {
	m := fromWire(r.h.Next())
	if len(m.data) > 0 {
		r.countRead(m)
	}
	return m
}

// countRead tallies a read that brought data, keeping it when asked. Its
// time counts from t0, known by the time the answer's first byte is read.
func (r *run) countRead(m readMsg) {
	r.res.Info.Reads++
	if m.st.src == SourceKernel {
		r.res.Info.KernelStamps++
	}
	if r.req.KeepReads {
		if r.t0 == 0 {
			r.setT0()
		}
		r.res.Reads = append(r.res.Reads, Read{TMs: ms(m.st.at - r.t0), ReadMs: ms(m.st.read - r.t0), Source: m.st.src, Bytes: len(m.data)})
	}
}

// nextRead returns the body bytes of the next read, its stamp and its
// error (set on the last one). For the raw-socket client the body is cut
// out of the socket's bytes by its framing, and io.EOF comes where the
// framing says the body ends.
func (r *run) nextRead() (pieces [][]byte, st stamp, err error) {
	pieces = r.pieces[:0]
	if r.frame == nil {
		m := r.nextMsg()
		if len(m.data) > 0 {
			pieces = append(pieces, m.data)
		}
		r.pieces = pieces
		return pieces, m.st, m.err
	}
	var data []byte
	var sockErr error
	if r.hasStart {
		data, st, r.hasStart = r.start, r.startSt, false
	} else {
		m := r.nextMsg()
		data, st, sockErr = m.data, m.st, m.err
	}
	pieces, err = r.frame.Body(data, pieces)
	r.pieces = pieces
	switch {
	case err != nil:
		return pieces, st, err
	case errors.Is(sockErr, io.EOF):
		return pieces, st, r.frame.End()
	}
	return pieces, st, sockErr
}

// recycle returns the buffers still held once the reader has stopped.
func (r *run) recycle() {
	r.h.Recycle()
	r.res.Info.ReadPauses = r.h.ReadPauses()
}

// consume handles the body bytes of one read: raw copy, lines, events.
func (r *run) consume(pieces [][]byte, st stamp) (stop bool, err error) {
	n := 0
	for _, p := range pieces {
		n += len(p)
	}
	if n == 0 {
		return false, nil
	}
	at := st.at - r.t0
	r.bytes += int64(n)
	if err := r.writeRaw(pieces); err != nil {
		r.res.TotalMs = ms(at)
		return true, r.fail(KindRawOut, err, "writing the raw output failed after %s: %v", r.progress(), err)
	}
	defer r.countLines()
	for _, p := range pieces {
		if stop, err := r.parse(p, st); stop || err != nil {
			return true, err
		}
	}
	return false, nil
}

// writeRaw copies one read's body bytes to RawOut in one write.
func (r *run) writeRaw(pieces [][]byte) error {
	if r.req.RawOut == nil {
		return nil
	}
	data := pieces[0]
	if len(pieces) > 1 {
		r.rawBuf = r.rawBuf[:0]
		for _, p := range pieces {
			r.rawBuf = append(r.rawBuf, p...)
		}
		data = r.rawBuf
	}
	_, err := r.req.RawOut.Write(data)
	return err
}

// parse feeds body bytes to the event parser and handles the events they
// complete.
func (r *run) parse(p []byte, st stamp) (stop bool, err error) {
	if r.meter != nil {
		return r.audio(p, st)
	}
	if r.inWhole {
		return r.wholeRead(p, st)
	}
	if r.parser.Unknown == nil {
		r.parser.Unknown = r.strayLine
	}
	r.parser.Feed(p, st)
	for {
		ev, ok := r.parser.Next()
		if r.lineErr != nil {
			return true, r.lineErr
		}
		if !ok {
			break
		}
		if stop, err := r.event(ev); stop || err != nil {
			return true, err
		}
	}
	if err := r.parser.Err(); err != nil {
		r.res.TotalMs = ms(st.at - r.t0)
		return true, r.fail(KindBadData, err, "the answer is not a readable event stream after %s: %v", r.progress(), err)
	}
	return false, nil
}

// countLines keeps Info.Lines current: non-blank lines, comments included.
func (r *run) countLines() {
	c := r.parser.Counts()
	r.res.Info.Lines = c.Lines - c.Blank
}

// ended explains why the body stopped before its end marker ([DONE], or
// response.completed for the Responses API): one of our closes, the
// server ending it early, or the connection failing.
func (r *run) ended(readErr error, at time.Duration) error {
	if reason, _ := r.cl.state(); reason != notClosed {
		return r.closedOutcome()
	}
	if r.inWhole {
		return r.wholeEnd(readErr, at)
	}
	r.res.TotalMs = ms(at)
	if r.meter != nil && errors.Is(readErr, io.EOF) {
		// Audio has no end marker: the end of the body is its end.
		r.res.Info.Done = true
		return nil
	}
	cutEvent := ""
	if r.parser.Tail().Truncated() {
		cutEvent = ", in the middle of an event"
	}
	if errors.Is(readErr, io.EOF) {
		return r.fail(KindTruncated, nil,
			"the stream ended without %s after %s%s; the server stopped early or something in between cut it", r.req.API.endMarker(), r.progress(), cutEvent)
	}
	return r.fail(KindDropped, readErr,
		"the connection broke mid-stream after %s%s: %v", r.progress(), cutEvent, unwrapURLError(readErr))
}
