package main

import (
	"os"
	"os/exec"
	"testing"
)

// TestMain lets the test binary be the paced server that startServer
// starts (it runs os.Executable() serve ...).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "serve" {
		if err := serve(os.Args[2:]); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestEveryClientReceivesEveryChunk runs a small load with each client
// and checks that every chunk arrived with its send stamp and that the
// figures are filled in.
func TestEveryClientReceivesEveryChunk(t *testing.T) {
	const streams, chunks = 6, 8
	url, stop, err := startServer(200, chunks)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	measures := map[string]func() (figures, error){
		"ttftlab": func() (figures, error) { return measureTTFTLab(url, streams, chunks) },
		"least":   func() (figures, error) { return measureLeast(url, streams, chunks) },
	}
	if _, err := exec.LookPath("python3"); err == nil {
		measures["python"] = func() (figures, error) { return measurePython("python3 ../pyasync.py", url, streams, chunks) }
	}
	for name, measure := range measures {
		f, err := measure()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if f.received != streams*chunks || f.expected != streams*chunks {
			t.Errorf("%s: received %d of %d chunks, want %d", name, f.received, f.expected, streams*chunks)
		}
		if f.p50 > f.p99 || f.p99 > f.max || f.p50 < 0 {
			t.Errorf("%s: lateness p50 %v, p99 %v, max %v: want 0 <= p50 <= p99 <= max", name, f.p50, f.p99, f.max)
		}
		if f.cpuPerChunkUs <= 0 {
			t.Errorf("%s: CPU per chunk %v, want > 0", name, f.cpuPerChunkUs)
		}
	}
}

// TestLateness: arrivals in ms are scaled to ns, each difference is taken
// from the smallest, sorted, in µs; lines that do not parse are skipped.
func TestLateness(t *testing.T) {
	// differences: 3000-1000, 4500-2000, 5000-5000 ns
	got := lateness("1000 0.003\n2000 0.0045\nnot a line\n5000 0.005", 1000)
	want := []float64{0, 2, 2.5}
	if len(got) != len(want) {
		t.Fatalf("lateness = %v, want %v", got, want)
	}
	for i := range got {
		if d := got[i] - want[i]; d > 1e-9 || d < -1e-9 {
			t.Fatalf("lateness = %v, want %v", got, want)
		}
	}
}
