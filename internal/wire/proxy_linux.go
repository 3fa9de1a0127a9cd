package wire

import (
	"errors"
	"io"
	"net/url"
)

// Connect opens a tunnel to target (host:port) through the HTTP proxy c
// is connected to: it sends CONNECT and reads the proxy's answer through
// the connection's reader (which must be started). After it, the
// connection carries the target's bytes (the TLS handshake comes next).
// The caller's closer bounds the wait, as for any read.
func (c *Conn) Connect(target string, proxy *url.URL) error {
	if err := c.write([][]byte{connectHead(target, proxy)}, false, nil); err != nil {
		return err
	}
	var hr HeadReader
	for {
		m := c.h.Next()
		if len(m.Data) > 0 {
			head, rest, done, err := hr.Feed(m.Data)
			if err != nil {
				return err
			}
			if done {
				resp, err := readConnectHead(head)
				if err != nil {
					return err
				}
				if err := ConnectAnswer(resp, proxy, target); err != nil {
					return err
				}
				if len(rest) > 0 || m.Err != nil {
					c.h.unread(Msg{Data: rest, St: m.St, Err: m.Err})
				}
				return nil
			}
		}
		if m.Err != nil {
			if errors.Is(m.Err, io.EOF) {
				return errors.New("the proxy closed the connection before answering CONNECT")
			}
			return m.Err
		}
	}
}
