//go:build !linux

package wire

import "net"

// NetpollConn is a TCP connection left on Go's netpoller whose reads are
// stamped when they returned (SourceNetpoll): kernel receive stamps are
// Linux's.
type NetpollConn struct {
	*net.TCPConn
	clk  Clock
	last Stamp
}

// NewNetpollConn stamps c's reads on clk; kernel is not honoured here.
func NewNetpollConn(c *net.TCPConn, clk Clock, kernel bool) (*NetpollConn, error) {
	return &NetpollConn{TCPConn: c, clk: clk}, nil
}

// Read reads once and keeps the read's stamp for Last.
func (c *NetpollConn) Read(p []byte) (int, error) {
	n, st, err := c.ReadStamped(p)
	if n > 0 {
		c.last = st
	}
	return n, err
}

// Last is the stamp of the last read that brought bytes.
func (c *NetpollConn) Last() Stamp { return c.last }

// ReadStamped reads once into p and returns the read's stamp.
func (c *NetpollConn) ReadStamped(p []byte) (int, Stamp, error) {
	n, err := c.TCPConn.Read(p)
	at := c.clk.Now()
	return n, ReadStamp(at, SourceNetpoll), err
}
