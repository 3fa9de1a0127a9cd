package wsstamp

import (
	"net"
	"sync"
	"time"

	"ttftlab/internal/wire"
)

// The WebSocket library reads a message through a buffered reader of its
// own, so the moment a message's bytes came off the socket is taken below
// it: the socket is a wire.NetpollConn, whose every read is one recvmsg
// stamped with the kernel's receive time (else the clock right after it
// returned), and stampConn, above TLS when there is TLS, follows the
// server's frames in the bytes it passes up (a server's frames are
// unmasked, their lengths in their headers), so that the read that
// brought the last byte of each data message is known. The k-th message
// the library hands up is the k-th data message completed on the wire,
// so its stamp is the k-th stamp queued here.

// stampConn is a client's connection that queues the stamp of each data
// message completed by the bytes read.
type stampConn struct {
	net.Conn                   // the socket, or TLS over it
	sock     *wire.NetpollConn // the socket
	clk      wire.Clock
	mu       sync.Mutex
	stamps   []time.Time // completed data messages' stamps, oldest first
	scan     frameScan
}

// Read reads the connection; the bytes it returns came in the socket's
// last read (TLS: a record's last bytes came in it, or in an earlier
// one: the stamp is at worst late), whose stamp they take.
func (c *stampConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		at := c.clk.Base.Add(c.sock.Last().At)
		c.mu.Lock()
		c.scan.feed(p[:n], func() { c.stamps = append(c.stamps, at) })
		c.mu.Unlock()
	}
	return n, err
}

// next is the stamp of the oldest data message not yet taken: the
// message the library just handed up.
func (c *stampConn) next() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.stamps) == 0 {
		// A message the frames did not show (cannot happen with
		// uncompressed frames): the latest possible stamp.
		return time.Now()
	}
	at := c.stamps[0]
	c.stamps = c.stamps[1:]
	return at
}

// frameScan follows a server's side of a WebSocket connection: the HTTP
// response head, then frames (RFC 6455 section 5.2).
type frameScan struct {
	body    bool     // past the response head
	crlf    int      // bytes of "\r\n\r\n" matched at the head's end
	hdr     [14]byte // the frame header being read
	hn      int      // its bytes so far
	need    int      // its length, once its second byte is known (2 before)
	left    uint64   // payload bytes of the current frame still to come
	payload bool     // inside a frame's payload
}

// feed follows b; done is called for each data message that b completes.
func (s *frameScan) feed(b []byte, done func()) {
	for len(b) > 0 {
		switch {
		case !s.body:
			c := b[0]
			b = b[1:]
			switch {
			case c == "\r\n\r\n"[s.crlf]:
				s.crlf++
			case c == '\r':
				s.crlf = 1
			default:
				s.crlf = 0
			}
			if s.crlf == 4 {
				s.body, s.need = true, 2
			}
		case s.payload:
			k := uint64(len(b))
			if k > s.left {
				k = s.left
			}
			b = b[k:]
			s.left -= k
			if s.left == 0 {
				s.payload = false
				s.frameEnd(done)
			}
		default:
			s.hdr[s.hn] = b[0]
			s.hn++
			b = b[1:]
			if s.hn == 2 {
				s.need = 2
				switch s.hdr[1] & 0x7f {
				case 126:
					s.need += 2
				case 127:
					s.need += 8
				}
				if s.hdr[1]&0x80 != 0 {
					s.need += 4 // a mask key (servers send none)
				}
			}
			if s.hn < s.need {
				continue
			}
			switch l := s.hdr[1] & 0x7f; l {
			case 126:
				s.left = uint64(s.hdr[2])<<8 | uint64(s.hdr[3])
			case 127:
				s.left = 0
				for _, v := range s.hdr[2:10] {
					s.left = s.left<<8 | uint64(v)
				}
			default:
				s.left = uint64(l)
			}
			s.hn, s.need = 0, 2
			if s.left > 0 {
				s.payload = true
			} else {
				s.frameEnd(done)
			}
		}
	}
}

// frameEnd is the end of the frame whose header is in s.hdr: a data
// frame (continuation, text, binary) with FIN ends a message; control
// frames (close, ping, pong) are not messages.
func (s *frameScan) frameEnd(done func()) {
	fin, op := s.hdr[0]&0x80 != 0, s.hdr[0]&0x0f
	if fin && op <= 2 {
		done()
	}
}
