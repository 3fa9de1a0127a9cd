package calibrate

import (
	"strings"
	"testing"
)

// --tls: the server speaks https with the run's certificate, ttftlab-go
// trusts it, and its stamps are kernel stamps from the poller, far closer
// to the send than the gap between chunks and never before it.
func TestTLSRunStampsHTTPSLikeHTTP(t *testing.T) {
	tl, err := NewTLS(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s := Steady(100, 0.5)
	rep := runOne(t, Options{Schedules: []Schedule{s}, TLS: tl, Launch: InProcessTLS(tl)})
	if !rep.TLS || len(rep.Schedules[0].Clients) != 1 {
		t.Fatalf("tls %v, %d clients: want https and ttftlab-go alone", rep.TLS, len(rep.Schedules[0].Clients))
	}
	res := rep.Schedules[0].Clients[0]
	if res.Client != TTFTLabGo || res.Failure != "" || res.Received != s.Chunks {
		t.Fatalf("%s received %d of %d chunks: %s", res.Client, res.Received, s.Chunks, res.Failure)
	}
	if res.StampSource != "kernel" {
		t.Errorf("stamp source %q over https, want kernel", res.StampSource)
	}
	gapUs := float64(s.Gap().Microseconds())
	if e := res.StampError; e.P50 >= gapUs {
		t.Errorf("median stamp error %.1f µs is not below the %.0f µs gap between chunks", e.P50, gapUs)
	}
	if min, bound := res.StampError.Min, -float64(rep.ClockMapErrorNs)/1e3; min < bound {
		t.Errorf("a chunk arrived %.1f µs before it was sent (clock mapping error %.1f µs)", -min, -bound)
	}
}

func TestReadURLTakesHTTPS(t *testing.T) {
	u, err := readURL(strings.NewReader("calibration server: https://127.0.0.1:1234 (steady, 10 chunks)\n"))
	if err != nil || u != "https://127.0.0.1:1234" {
		t.Fatalf("url %q, err %v", u, err)
	}
}
