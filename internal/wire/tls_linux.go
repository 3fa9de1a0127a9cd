package wire

import (
	"context"
	"crypto/tls"
	"net"
	"sync/atomic"
	"time"
)

// TLSConn is TLS over a raw Conn: crypto/tls reads the socket's bytes as
// the connection's reader (the poller thread or a thread of its own) read
// and stamped them, and each decrypted record carries the stamp of the
// raw read that delivered the record's last byte. The decryption runs on
// the caller's goroutine, in Next; the stamps were taken before it.
//
// crypto/tls is handed one record at a time (a Read of the adapter never
// crosses a record's end), so when it returns plaintext, that plaintext
// came from the last record it was handed; one Next returns one record's
// plaintext (a record holds at most 16 KiB of it, and Next reads into at
// least that much room).
type TLSConn struct {
	raw *Conn
	ad  *recordFeed
	tc  *tls.Conn
	a   arena
	// prev is the arena the previous Next's data came from, recycled one
	// arena later so that data stays valid until the next Next.
	prev    *[]byte
	armed   atomic.Bool
	wroteT0 atomic.Bool
	afterT0 func()
	err     error // the first error Next returned; every later Next returns it again
}

// Client starts TLS on c (whose reader must be started) with conf, which
// must name the server (ServerName) or skip verification.
func Client(c *Conn, conf *tls.Config) *TLSConn {
	t := &TLSConn{raw: c}
	t.ad = &recordFeed{t: t}
	t.tc = tls.Client(t.ad, conf)
	return t
}

// Handshake runs the TLS handshake; ctx bounds it (when it ends, the
// connection is closed).
func (t *TLSConn) Handshake(ctx context.Context) error {
	return t.tc.HandshakeContext(ctx)
}

// State is the TLS state after the handshake.
func (t *TLSConn) State() tls.ConnectionState { return t.tc.ConnectionState() }

// WriteAll encrypts and writes the request, reading the clock for t0
// right before the first record goes to the socket and calling afterT0
// once that first write has returned. Call it after Handshake.
func (t *TLSConn) WriteAll(head, body []byte, afterT0 func()) error {
	t.afterT0 = afterT0
	t.armed.Store(true)
	msg := make([]byte, 0, len(head)+len(body))
	msg = append(append(msg, head...), body...)
	_, err := t.tc.Write(msg)
	return err
}

// Next decrypts the next record that brings data and returns its
// plaintext with the stamp of the raw read that completed it; the last
// message carries the error that ended the stream (io.EOF at the end).
// Its Data stays valid until the next call.
func (t *TLSConn) Next() Msg {
	if t.err != nil {
		return Msg{St: t.ad.errSt, Err: t.err}
	}
	if t.a.buf != nil && len(*t.a.buf)-t.a.off < minRead {
		if t.prev != nil {
			putArena(t.prev)
		}
		t.prev, t.a.buf = t.a.buf, nil
	}
	if t.a.buf == nil {
		t.a.buf, t.a.off = getArena(), 0
	}
	buf := (*t.a.buf)[t.a.off:]
	n, err := t.tc.Read(buf)
	st := t.ad.recSt
	if err != nil {
		t.err = err
		if t.ad.errSt != (Stamp{}) {
			st = t.ad.errSt
		} else {
			t.ad.errSt = st
		}
	}
	return Msg{Data: t.a.took(n), St: st, Err: err}
}

// Recycle returns every buffer held, once the reader has stopped.
func (t *TLSConn) Recycle() {
	for _, b := range []*[]byte{t.prev, t.a.buf} {
		if b != nil {
			putArena(b)
		}
	}
	t.prev, t.a.buf = nil, nil
	t.raw.h.Recycle()
}

// ReadPauses is how often the raw reader stopped at the backlog bound.
func (t *TLSConn) ReadPauses() int { return t.raw.h.ReadPauses() }

// recordFeed is the net.Conn crypto/tls runs on: its reads take the raw
// reads from the hand-off, never past the end of a TLS record, and note
// the stamp of the read that held each record's last byte; its writes go
// to the raw socket.
type recordFeed struct {
	t   *TLSConn
	cur Msg // the raw read being handed out
	// The record being handed out: its header so far, then its body's
	// bytes left.
	hdr      [5]byte
	hdrGot   int
	bodyLeft int
	recSt    Stamp // the stamp of the raw read that completed the last whole record
	errSt    Stamp // the stamp of the raw read that ended the stream
}

func (f *recordFeed) Read(p []byte) (int, error) {
	for len(f.cur.Data) == 0 {
		if f.cur.Err != nil {
			f.errSt = f.cur.St
			return 0, f.cur.Err
		}
		f.cur = f.t.raw.h.Next()
	}
	// At most to the end of the header, then at most to the record's end.
	n := len(f.cur.Data)
	if f.hdrGot < len(f.hdr) {
		n = min(n, len(f.hdr)-f.hdrGot)
	} else {
		n = min(n, f.bodyLeft)
	}
	n = copy(p, f.cur.Data[:n])
	got := f.cur.Data[:n]
	f.cur.Data = f.cur.Data[n:]
	if f.hdrGot < len(f.hdr) {
		f.hdrGot += copy(f.hdr[f.hdrGot:], got)
		if f.hdrGot == len(f.hdr) {
			f.bodyLeft = int(f.hdr[3])<<8 | int(f.hdr[4])
		}
	} else {
		f.bodyLeft -= n
	}
	if f.hdrGot == len(f.hdr) && f.bodyLeft == 0 {
		f.recSt = f.cur.St
		f.hdrGot = 0
	}
	return n, nil
}

// Write sends p, taking t0 at the first write of the request (after the
// handshake).
func (f *recordFeed) Write(p []byte) (int, error) {
	t := f.t
	first := t.armed.Load() && !t.wroteT0.Load()
	if first {
		t.wroteT0.Store(true)
	}
	if err := t.raw.write([][]byte{p}, first, t.afterT0); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Close shuts the raw connection down (crypto/tls calls it when the
// handshake's context ends).
func (f *recordFeed) Close() error { return f.t.raw.Close() }

func (f *recordFeed) LocalAddr() net.Addr  { return f.t.raw.sock.local }
func (f *recordFeed) RemoteAddr() net.Addr { return f.t.raw.sock.remote }

// Deadlines are the closer's business (timers close the raw connection).
func (f *recordFeed) SetDeadline(time.Time) error      { return nil }
func (f *recordFeed) SetReadDeadline(time.Time) error  { return nil }
func (f *recordFeed) SetWriteDeadline(time.Time) error { return nil }
