package calibrate

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ttftlab/internal/stream"
)

func runOne(t *testing.T, o Options) *Report {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	o.StampsPath = filepath.Join(t.TempDir(), "stamps.tsv")
	rep, err := Run(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// At a modest rate ttftlab's stamps must be closer to the send than the
// gap between chunks, and never before it (beyond the clock mapping's
// stated error): arrival cannot precede sending. The gap is the one the
// server's send stamps show in this same run, not the planned 10 ms: a
// busy machine that delays the stamps delays the sends too.
func TestStampErrorBelowGapAt100PerSecond(t *testing.T) {
	s := Steady(100, 0.5)
	rep := runOne(t, Options{Schedules: []Schedule{s}, KeepChunks: true})
	res := rep.Schedules[0].Clients[0]
	if res.Failure != "" || res.Received != s.Chunks {
		t.Fatalf("received %d of %d chunks: %s", res.Received, s.Chunks, res.Failure)
	}
	gapUs := sentGapUs(t, rep, res)
	if e := res.StampError; e.P50 >= gapUs {
		t.Errorf("median stamp error %.1f µs is not below the median %.0f µs gap between the chunks' sends in this run", e.P50, gapUs)
	}
	if min, bound := res.StampError.Min, -float64(rep.ClockMapErrorNs)/1e3; min < bound {
		t.Errorf("a chunk arrived %.2f µs before it was sent (mapping error bound %.2f µs): the clocks are not aligned", -min, -bound)
	}
	// The allocations are not asked for: the runtime counts a small
	// object's allocation when its span is taken, a span at a time, so a
	// stream of 50 chunks may take none (allocs_per_chunk 0).
	if c := res.Cost; c == nil || c.CPUUsPerChunk <= 0 || c.Chunks < s.Chunks/2 {
		t.Errorf("cost not measured over the stream: %+v", c)
	}
}

// The server's answer must read as llama-server's through ttftlab's own
// client: every content chunk in order, the final timings, [DONE].
func TestServerSpeaksLlamaServer(t *testing.T) {
	stamps := filepath.Join(t.TempDir(), "stamps.tsv")
	s := Schedule{Rate: 2000, Chunks: 60, Burst: 20}
	url, stop, err := InProcess(context.Background(), s, stamps, 7)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	res, err := stream.Do(context.Background(), stream.Request{URL: url, Body: []byte(`{"stream": true}`)})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Chunks) != s.Chunks || !res.Info.Done || res.Info.FinishReason != "length" {
		t.Fatalf("got %d chunks, done %v, finish %q", len(res.Chunks), res.Info.Done, res.Info.FinishReason)
	}
	for i, c := range res.Chunks {
		if c.Text != contentText(i+1) {
			t.Fatalf("chunk %d is %q, want %q", i+1, c.Text, contentText(i+1))
		}
	}
	if res.Timings["predicted_n"] != float64(s.Chunks) {
		t.Errorf("timings %v, want predicted_n %d", res.Timings, s.Chunks)
	}
	send, err := ReadSendStamps(stamps, 7)
	if err != nil {
		t.Fatal(err)
	}
	distinct := map[int64]bool{}
	for _, at := range send[1:] {
		distinct[at] = true
	}
	if len(send) != s.Chunks+1 || len(distinct) != s.Writes() {
		t.Errorf("%d send stamps with %d distinct values, want %d chunks in %d writes", len(send)-1, len(distinct), s.Chunks, s.Writes())
	}
	if late := summarize(lateness(send, s)); late.N != s.Writes() || late.Min < 0 {
		t.Errorf("lateness %+v: every write must be stamped at or after its planned time", late)
	}
}

// python3 returns the interpreter of the reference Python client
// (internal/bench/pyclient.py). Without one, ok is false; with
// TTFTLAB_REQUIRE_PYTHON set (as in CI, which installs it) that is a
// failure instead.
func python3(t *testing.T) (py string, ok bool) {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err == nil {
		return py, true
	}
	if os.Getenv("TTFTLAB_REQUIRE_PYTHON") != "" {
		t.Fatalf("python3 is not installed (TTFTLAB_REQUIRE_PYTHON is set); install it with apt-get install -y python3")
	}
	return "", false
}

// The reference Python client runs against the same server and is
// compared the same way.
func TestPythonClientCompared(t *testing.T) {
	py, ok := python3(t)
	if !ok {
		t.Skip("skipping: python3 is not installed (apt-get install -y python3; TTFTLAB_REQUIRE_PYTHON=1 fails instead)")
	}
	s := Steady(200, 0.1)
	client := Client{Name: "python", Command: []string{py, filepath.Join("..", "bench", "pyclient.py")}}
	rep := runOne(t, Options{Schedules: []Schedule{s}, Clients: []Client{client}})
	got := rep.Schedules[0].Clients
	if len(got) != 2 || got[1].Client != "python" {
		t.Fatalf("results %+v", got)
	}
	for _, c := range got {
		if c.Failure != "" || c.Received != s.Chunks || c.StampError.Min < -1 {
			t.Errorf("%s: %d of %d chunks, error %+v: %s", c.Client, c.Received, s.Chunks, c.StampError, c.Failure)
		}
	}
	if got[0].Request+1 != got[1].Request {
		t.Errorf("requests %d and %d: each client must get its own", got[0].Request, got[1].Request)
	}
}

// A client that never reaches the server is reported, and the next
// client still gets its own request's stamps.
func TestFailingClientDoesNotShiftRequests(t *testing.T) {
	s := Steady(500, 0.05)
	clients := []Client{{Name: "broken", Command: []string{"false"}}}
	if py, ok := python3(t); ok {
		clients = append(clients, Client{Name: "python", Command: []string{py, filepath.Join("..", "bench", "pyclient.py")}})
	}
	rep := runOne(t, Options{Schedules: []Schedule{s}, Clients: clients})
	got := rep.Schedules[0].Clients
	if !strings.Contains(got[1].Failure, "broken") {
		t.Errorf("broken client's failure %q does not name it", got[1].Failure)
	}
	if len(got) == 3 && (got[2].Failure != "" || got[2].Request != got[0].Request+1) {
		t.Errorf("the client after a failed one: request %d, failure %q", got[2].Request, got[2].Failure)
	}
}

func TestParseClient(t *testing.T) {
	c, err := ParseClient("py = python3  bench/pyclient.py")
	if err != nil || c.Name != "py" || strings.Join(c.Command, "|") != "python3|bench/pyclient.py" {
		t.Errorf("got %+v, %v", c, err)
	}
	for _, bad := range []string{"python3 x.py", "=cmd", "name="} {
		if _, err := ParseClient(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestSummarizeNearestRank(t *testing.T) {
	ns := make([]int64, 0, 100)
	for i := 100; i >= 1; i-- {
		ns = append(ns, int64(i)*1000)
	}
	s := summarize(ns)
	if s.N != 100 || s.Min != 1 || s.P50 != 50 || s.P90 != 90 || s.P99 != 99 || s.Max != 100 {
		t.Errorf("summary %+v", s)
	}
}

func TestScheduleValidate(t *testing.T) {
	for _, s := range []Schedule{{Rate: 10, Chunks: 0, Burst: 1}, {Rate: -1, Chunks: 5, Burst: 1}, {Rate: 10, Chunks: 5, Burst: 0}} {
		if s.Validate() == nil {
			t.Errorf("%+v accepted", s)
		}
	}
	if s := (Schedule{Rate: 5000, Chunks: 10000, Burst: 50}); s.Gap() != 10*time.Millisecond || s.Writes() != 200 {
		t.Errorf("burst gap %v, writes %d", s.Gap(), s.Writes())
	}
}

// sentGapUs is the median gap, in µs, between the sends of consecutive
// chunks of res's request, from the server's send stamps of the run.
func sentGapUs(t *testing.T, rep *Report, res ClientResult) float64 {
	t.Helper()
	send, err := ReadSendStamps(rep.StampsFile, res.Request)
	if err != nil {
		t.Fatal(err)
	}
	var gaps []int64
	for i := 2; i < len(send); i++ {
		gaps = append(gaps, send[i]-send[i-1])
	}
	if len(gaps) == 0 {
		t.Fatalf("request %d has %d send stamps: no gap to compare with", res.Request, len(send))
	}
	return summarize(gaps).P50
}
