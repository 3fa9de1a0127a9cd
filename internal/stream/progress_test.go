package stream

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"
)

// TestCanceledMessageAgreesWithTotal: a request canceled while the server
// has not answered yet (a busy server queues it) says how long it waited,
// the same time as its total_ms, not "0 bytes in 0.0 ms".
func TestCanceledMessageAgreesWithTotal(t *testing.T) {
	eachWire(t, testCanceledMessageAgreesWithTotal)
}

func testCanceledMessageAgreesWithTotal(t *testing.T, w Wire) {
	hold := make(chan struct{})
	defer close(hold)
	url := rawServer(t, func(c net.Conn) { <-hold })
	ctx, cancel := context.WithCancel(context.Background())
	const wait = 50 * time.Millisecond
	time.AfterFunc(wait, cancel)
	res, err := Do(ctx, Request{URL: url, Body: chatBody(), Wire: w})
	if err == nil {
		t.Fatal("no error")
	}
	if res.TotalMs <= 0 {
		t.Fatalf("total_ms %.1f after a %v wait", res.TotalMs, wait)
	}
	want := fmt.Sprintf("0 content chunks, 0 bytes in %.1f ms (no response yet)", res.TotalMs)
	if !strings.Contains(err.Error(), want) {
		t.Fatalf("err %q, want it to say %q (total_ms %.1f)", err, want, res.TotalMs)
	}
}
