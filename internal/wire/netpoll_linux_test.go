package wire

import (
	"errors"
	"io"
	"net"
	"testing"
	"time"
)

// A NetpollConn's reads carry the kernel's receive stamp: bytes that
// waited in the socket before the read was called are stamped when they
// came, not when they were read; a read that waits in the netpoller is
// stamped after the write that woke it; the end of the stream is io.EOF.
func TestNetpollConnKernelStamps(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	wrote := make(chan time.Time)
	next := make(chan struct{})
	go func() {
		c, err := ln.Accept()
		if err != nil {
			close(wrote)
			return
		}
		defer c.Close()
		<-next // the client asked for stamps
		w := time.Now()
		c.Write([]byte("early"))
		wrote <- w
		<-next
		time.Sleep(20 * time.Millisecond)
		w = time.Now()
		c.Write([]byte("late"))
		wrote <- w
		<-next
	}()
	clk := NewClock()
	tc, err := net.DialTCP("tcp", nil, ln.Addr().(*net.TCPAddr))
	if err != nil {
		t.Fatal(err)
	}
	defer tc.Close()
	c, err := NewNetpollConn(tc, clk, true)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)

	next <- struct{}{}
	w := <-wrote
	time.Sleep(30 * time.Millisecond) // the bytes wait in the socket
	called := clk.Now()
	n, st, err := c.ReadStamped(buf)
	if err != nil || string(buf[:n]) != "early" {
		t.Fatalf("read %q, %v", buf[:n], err)
	}
	if st.Src != SourceKernel || st.At > st.Read || st.At >= called || st.At < w.Sub(clk.Base)-MaxClockSkew {
		t.Fatalf("stamp %+v: want the kernel's, between the write (%v) and the read's call (%v)", st, w.Sub(clk.Base), called)
	}

	next <- struct{}{}
	n, err = c.Read(buf) // waits in the netpoller
	w = <-wrote
	st = c.Last()
	if err != nil || string(buf[:n]) != "late" {
		t.Fatalf("read %q, %v", buf[:n], err)
	}
	if st.Src != SourceKernel || st.At > st.Read || st.At < w.Sub(clk.Base)-MaxClockSkew {
		t.Fatalf("stamp %+v: want the kernel's, after the write (%v)", st, w.Sub(clk.Base))
	}

	next <- struct{}{}
	if n, err := c.Read(buf); n != 0 || !errors.Is(err, io.EOF) {
		t.Fatalf("after the close: %d bytes, %v; want io.EOF", n, err)
	}
}
