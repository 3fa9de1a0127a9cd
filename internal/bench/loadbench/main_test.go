package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"testing"
)

// TestMain lets the test binary be the paced server that startServer
// starts (it runs os.Executable() serve ...) and the Go clients that run
// starts (os.Executable() client ...).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && (os.Args[1] == "serve" || os.Args[1] == "client") {
		run := serve
		if os.Args[1] == "client" {
			run = clientCmd
		}
		if err := run(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, err)
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
	srv, err := startServer(200, chunks, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.stop()
	url := srv.url
	if env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", srv.pid)); err != nil || !bytes.Contains(env, []byte("\x00GOMAXPROCS=1\x00")) && !bytes.HasPrefix(env, []byte("GOMAXPROCS=1\x00")) {
		t.Errorf("the paced server runs without GOMAXPROCS=1 (%v)", err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	clients := []client{
		{"ttftlab", []string{exe, "client", "ttftlab"}},
		{"least", []string{exe, "client", "least"}},
	}
	for name := range kstampClients {
		if name == "kstamp-uring" && !uringAvailable(t) {
			continue
		}
		clients = append(clients, client{name, []string{exe, "client", name}})
	}
	if _, err := exec.LookPath("python3"); err == nil {
		clients = append(clients, client{"asyncio", []string{"python3", "../pyasync.py"}})
	} else if os.Getenv("TTFTLAB_REQUIRE_PYTHON") != "" {
		t.Fatal("python3 is not installed (TTFTLAB_REQUIRE_PYTHON is set); install it with apt-get install -y python3")
	}
	// the aiohttp client needs Debian's python3-aiohttp
	if py := defaultPython(); exec.Command(py, "-c", "import aiohttp").Run() == nil {
		clients = append(clients, client{"aiohttp", []string{py, "../pyaiohttp.py"}})
	} else {
		t.Logf("no aiohttp for %s: the aiohttp client is not tried", py)
	}
	measures := map[string]func() (figures, error){}
	for _, c := range clients {
		measures[c.name] = func() (figures, error) { return measureChild(c, url, streams, chunks) }
	}
	for name, measure := range measures {
		before, err := srv.report()
		if err != nil {
			t.Fatal(err)
		}
		f, err := measure()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		// the server counted every content chunk it wrote for this client
		if after, err := srv.report(); err != nil {
			t.Errorf("%s: %v", name, err)
		} else if after.N != streams*chunks || after.P50Us < 0 || after.P50Us > after.P99Us || after.P99Us > after.MaxUs {
			t.Errorf("%s: the server's writes behind plan %+v: want n=%d and 0 <= p50 <= p99 <= max", name, after, streams*chunks)
		} else if after.CPUNs <= before.CPUNs {
			t.Errorf("%s: the server's CPU time went from %d to %d ns over the run", name, before.CPUNs, after.CPUNs)
		}
		if f.received != streams*chunks || f.expected != streams*chunks {
			t.Errorf("%s: received %d of %d chunks, want %d", name, f.received, f.expected, streams*chunks)
		}
		if f.p50 > f.p99 || f.p99 > f.max || f.p50 < 0 {
			t.Errorf("%s: lateness p50 %v, p99 %v, max %v: want 0 <= p50 <= p99 <= max", name, f.p50, f.p99, f.max)
		}
		if f.cpuPerChunkUs <= 0 || f.wholeCPUPerChunkUs < f.cpuPerChunkUs {
			t.Errorf("%s: CPU per chunk %v over the streaming phase, %v over the process: want 0 < phase <= process", name, f.cpuPerChunkUs, f.wholeCPUPerChunkUs)
		}
		if f.maxRSSKiB <= 0 {
			t.Errorf("%s: max RSS %d KiB, want > 0", name, f.maxRSSKiB)
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

// TestHeapClient: the ttftlab-heap client writes the heap per finished
// request and no chunks. 64 requests: the heap they hold (a few KB each)
// stands well above what a GC cycle moves; 4 could read below zero.
func TestHeapClient(t *testing.T) {
	const streams, chunks = 64, 3
	srv, err := startServer(200, chunks, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.stop()
	url := srv.url
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	f, err := measureChild(client{"ttftlab-heap", []string{exe, "client", "ttftlab-heap"}}, url, streams, chunks)
	if err != nil {
		t.Fatal(err)
	}
	if f.heapPerRequestB <= 0 || f.received != 0 {
		t.Errorf("heap per request %v B, %d chunks: want > 0 B and no chunks", f.heapPerRequestB, f.received)
	}
}

// TestParsePhase: the first line of a client's output.
func TestParsePhase(t *testing.T) {
	m, err := parsePhase("#phase cpu_s=0.5 wall_s=2 heap_b=3500.5")
	if err != nil || m["cpu_s"] != 0.5 || m["wall_s"] != 2 || m["heap_b"] != 3500.5 {
		t.Errorf("parsePhase = %v, %v", m, err)
	}
	for _, bad := range []string{"", "1000 2000", "#phase wall_s=1", "#phase cpu_s=x"} {
		if _, err := parsePhase(bad); err == nil {
			t.Errorf("parsePhase(%q): want an error", bad)
		}
	}
}
