package wire

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"sync"
	"testing"
	"time"
)

// heldConn passes writes through, or keeps them while held, so a test can
// put several TLS records in one TCP write or one record in two.
type heldConn struct {
	net.Conn
	mu   sync.Mutex
	held bool
	buf  []byte
}

func (c *heldConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.held {
		c.buf = append(c.buf, p...)
		return len(p), nil
	}
	return c.Conn.Write(p)
}

func (c *heldConn) hold() { c.mu.Lock(); c.held = true; c.mu.Unlock() }

// release stops holding and returns what was held.
func (c *heldConn) release() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	b := c.buf
	c.held, c.buf = false, nil
	return b
}

// tlsSends is what the test server sent and when.
type tlsSends struct {
	payloads []string
	// notBefore[i] is a time payload i cannot have fully arrived before:
	// taken right before the write that sent its record's last byte.
	notBefore []time.Time
	// sameRead are the indexes of records sent in one TCP write.
	sameRead [2]int
}

// serveRecords accepts one TLS connection, waits for a request line, and
// sends records: paced ones, one record split over two writes 20 ms
// apart, and two records in one write.
func serveRecords(t *testing.T, ln net.Listener, cert *SelfSigned, out chan<- *tlsSends) {
	conn, err := ln.Accept()
	if err != nil {
		t.Error(err)
		close(out)
		return
	}
	defer conn.Close()
	hc := &heldConn{Conn: conn}
	tc := tls.Server(hc, cert.ServerConfig())
	var req [4]byte
	if _, err := io.ReadFull(tc, req[:]); err != nil {
		t.Error(err)
		close(out)
		return
	}
	s := &tlsSends{}
	send := func(p string) {
		s.payloads = append(s.payloads, p)
		s.notBefore = append(s.notBefore, time.Now())
		tc.Write([]byte(p))
	}
	for i := range 5 {
		time.Sleep(3 * time.Millisecond)
		send(fmt.Sprintf("data: paced %d\n\n", i))
	}
	// One record in two writes, 20 ms apart: its stamp is the second's.
	hc.hold()
	split := "data: split across two reads\n\n"
	tc.Write([]byte(split))
	rec := hc.release()
	conn.Write(rec[:7])
	time.Sleep(20 * time.Millisecond)
	s.payloads = append(s.payloads, split)
	s.notBefore = append(s.notBefore, time.Now())
	conn.Write(rec[7:])
	// Two records in one write: one read, one stamp for both.
	time.Sleep(3 * time.Millisecond)
	hc.hold()
	tc.Write([]byte("data: burst a\n\n"))
	tc.Write([]byte("data: burst b\n\n"))
	rec = hc.release()
	at := time.Now()
	s.payloads = append(s.payloads, "data: burst a\n\n", "data: burst b\n\n")
	s.notBefore = append(s.notBefore, at, at)
	s.sameRead = [2]int{len(s.payloads) - 2, len(s.payloads) - 1}
	conn.Write(rec)
	out <- s
}

// Through the poller (and a reader thread), every decrypted record comes
// as one message stamped with the raw read that delivered its last byte:
// a kernel stamp, never later than the read, never earlier than the write
// that sent that byte, in order; two records of one read share its stamp.
func TestTLSRecordsStampedByTheirLastRead(t *testing.T) {
	cert, err := NewSelfSigned()
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []Mode{ModeEpoll, ModeThread} {
		t.Run(fmt.Sprint(mode), func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			sent := make(chan *tlsSends, 1)
			go serveRecords(t, ln, cert, sent)

			clk := NewClock()
			c, err := Dial(context.Background(), ln.Addr().String(), Options{Clock: clk, KernelStamps: true})
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Start(mode, -1); err != nil {
				t.Fatal(err)
			}
			defer func() { c.Close(); c.Release() }()
			conf := cert.ClientConfig()
			conf.ServerName = "127.0.0.1"
			tc := Client(c, conf)
			if err := tc.Handshake(context.Background()); err != nil {
				t.Fatal(err)
			}
			wrote := false
			if err := tc.WriteAll([]byte("GO\r\n"), nil, func() { wrote = true }); err != nil || !wrote {
				t.Fatalf("write: %v (afterT0 ran: %v)", err, wrote)
			}
			if _, ok := c.T0(); !ok {
				t.Fatal("no t0 after the request write")
			}
			var msgs []Msg
			for {
				m := tc.Next()
				if len(m.Data) > 0 {
					m.Data = bytes.Clone(m.Data)
					msgs = append(msgs, m)
				}
				if m.Err != nil {
					if m.Err != io.EOF {
						t.Fatalf("ended with %v", m.Err)
					}
					break
				}
			}
			defer tc.Recycle()
			s := <-sent
			if s == nil {
				t.Fatal("the server failed")
			}
			if len(msgs) != len(s.payloads) {
				t.Fatalf("%d messages for %d records", len(msgs), len(s.payloads))
			}
			for i, m := range msgs {
				if string(m.Data) != s.payloads[i] {
					t.Errorf("message %d is %q, want the record %q", i, m.Data, s.payloads[i])
				}
				if m.St.Src != SourceKernel {
					t.Errorf("message %d: source %s, want kernel", i, m.St.Src)
				}
				if m.St.At > m.St.Read {
					t.Errorf("message %d: arrival %v after its read returned (%v)", i, m.St.At, m.St.Read)
				}
				if i > 0 && m.St.At < msgs[i-1].St.At {
					t.Errorf("message %d at %v before message %d at %v", i, m.St.At, i-1, msgs[i-1].St.At)
				}
				if early := s.notBefore[i].Sub(clk.Base) - m.St.At; early > MaxClockSkew {
					t.Errorf("message %d stamped %v before the write of its last byte", i, early)
				}
			}
			a, b := msgs[s.sameRead[0]], msgs[s.sameRead[1]]
			if a.St != b.St {
				t.Errorf("two records of one write: stamps %+v and %+v, want the one read's", a.St, b.St)
			}
		})
	}
}
