// Package clienttest checks comparison clients for the calibration server:
// every content chunk stamped, in order, on CLOCK_MONOTONIC.
package clienttest

import (
	"context"
	"path/filepath"
	"testing"

	"ttftlab/internal/calibrate"
)

// StampsEveryChunk runs a client (run(url, arrivalsFile)) against a short
// calibration stream and fails t unless it stamped every content chunk no
// earlier than the server sent it.
func StampsEveryChunk(t *testing.T, run func(url, out string) error) {
	t.Helper()
	dir := t.TempDir()
	stamps := filepath.Join(dir, "send.tsv")
	s := calibrate.Schedule{Rate: 1000, Chunks: 20, Burst: 1}
	url, stop, err := calibrate.InProcess(context.Background(), s, stamps, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	out := filepath.Join(dir, "arrivals.tsv")
	if err := run(url, out); err != nil {
		t.Fatal(err)
	}
	arrive, err := calibrate.ReadArrivals(out)
	if err != nil {
		t.Fatal(err)
	}
	send, err := calibrate.ReadSendStamps(stamps, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(arrive) != s.Chunks+1 {
		t.Fatalf("%d arrival stamps, want %d", len(arrive)-1, s.Chunks)
	}
	for i := 1; i <= s.Chunks; i++ {
		if arrive[i] < send[i] {
			t.Errorf("chunk %d stamped %d ns before it was sent", i, send[i]-arrive[i])
		}
	}
}
