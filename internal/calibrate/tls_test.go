package calibrate

import (
	"strings"
	"testing"
)

// --tls: the server speaks https with the run's certificate, ttftlab (the
// Lua client) and ttftlab-go trust it, and their stamps are kernel stamps
// from the poller, far closer to the send than the gap between chunks and
// never before it.
func TestTLSRunStampsHTTPSLikeHTTP(t *testing.T) {
	tl, err := NewTLS(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s := Steady(100, 0.5)
	rep := runOne(t, Options{Schedules: []Schedule{s}, TLS: tl, Launch: InProcessTLS(tl)})
	if !rep.TLS || len(rep.Schedules[0].Clients) != 2 {
		t.Fatalf("tls %v, %d clients: want https and ttftlab, ttftlab-go", rep.TLS, len(rep.Schedules[0].Clients))
	}
	for i, want := range []string{TTFTLab, TTFTLabGo} {
		res := rep.Schedules[0].Clients[i]
		if res.Client != want || res.Failure != "" || res.Received != s.Chunks {
			t.Fatalf("%s received %d of %d chunks: %s", res.Client, res.Received, s.Chunks, res.Failure)
		}
		if res.StampSource != "kernel" {
			t.Errorf("%s: stamp source %q over https, want kernel", res.Client, res.StampSource)
		}
		gapUs := sentGapUs(t, rep, res)
		if e := res.StampError; e.P50 >= gapUs {
			t.Errorf("%s: median stamp error %.1f µs is not below the %.0f µs gap between chunks", res.Client, e.P50, gapUs)
		}
		if min, bound := res.StampError.Min, -float64(rep.ClockMapErrorNs)/1e3; min < bound {
			t.Errorf("%s: a chunk arrived %.1f µs before it was sent (clock mapping error %.1f µs)", res.Client, -min, -bound)
		}
	}
}

func TestReadURLTakesHTTPS(t *testing.T) {
	u, err := readURL(strings.NewReader("calibration server: https://127.0.0.1:1234 (steady, 10 chunks)\n"))
	if err != nil || u != "https://127.0.0.1:1234" {
		t.Fatalf("url %q, err %v", u, err)
	}
}
