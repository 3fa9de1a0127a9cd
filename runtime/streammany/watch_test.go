package streammany

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ttftlab/internal/artifact"
	"ttftlab/internal/llamaserver"
)

// The lines stream_many writes itself stay JSON that a strict parser
// (encoding/json: no NaN, no Inf, nothing after the value) reads back.

// TestWatchLinesStayJSON: the watcher builds its lines in Go. A metric
// that reads NaN or Inf becomes null instead of costing the line (a
// line encoding/json refuses was dropped silently).
func TestWatchLinesStayJSON(t *testing.T) {
	dir := t.TempDir()
	w := &watcher{file: filepath.Join(dir, "watch.jsonl"), tags: map[string]any{"level": 2.0, "name": "x"}}
	rng := rand.New(rand.NewSource(7))
	pool := []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.MaxFloat64, -math.MaxFloat64, 0, 3, 12.5, 1e308}
	var wants []map[string]any
	for i := range 200 {
		var s llamaserver.Sample
		s.At = time.Duration(i) * time.Millisecond
		want := map[string]any{}
		for _, f := range []struct {
			name string
			p    **float64
		}{{"requests_processing", &s.RequestsProcessing}, {"requests_deferred", &s.RequestsDeferred}, {"predicted_per_s", &s.PredictedPerS}} {
			if rng.Intn(4) == 0 {
				continue
			}
			v := pool[rng.Intn(len(pool))]
			*f.p = &v
			if math.IsNaN(v) || math.Abs(v) >= math.MaxFloat64 {
				want[f.name] = nil
			} else {
				want[f.name] = v
			}
		}
		w.write(s, s.At, s.At, 1.7e12+msOf(s.At))
		wants = append(wants, want)
	}
	data, err := os.ReadFile(w.file)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	if len(lines) != len(wants) {
		t.Fatalf("%d lines for %d samples: samples were lost", len(lines), len(wants))
	}
	for i, line := range lines {
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("line %d: %v: %s", i+1, err, line)
		}
		for k, v := range wants[i] {
			if m[k] != v {
				t.Fatalf("line %d: %s is %v, want %v", i+1, k, m[k], v)
			}
		}
	}
}

// TestWatchSamplesAreRecords: server.jsonl lines are the watch's tags
// then artifact.ServerSample, strict JSON whatever a metric reads (NaN,
// infinities, the old math.huge are null), and none is lost.
func TestWatchSamplesAreRecords(t *testing.T) {
	w := &watcher{file: filepath.Join(t.TempDir(), "s.jsonl"), tags: map[string]any{"level": 2.0}}
	busy, total := 1, 2
	for _, x := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.MaxFloat64, 3.5} {
		w.write(llamaserver.Sample{SlotsProcessing: &busy, SlotsTotal: &total, RequestsDeferred: &x, PredictedPerS: &x}, 1500*time.Microsecond, 2500*time.Microsecond, 1796158800000.5)
	}
	data, err := os.ReadFile(w.file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 5 {
		t.Fatalf("%d lines for 5 samples:\n%s", len(lines), data)
	}
	for i, line := range lines {
		var s artifact.LoadServerSample
		if err := artifact.DecodeStrict([]byte(line), &s); err != nil {
			t.Fatalf("line %s: %v", line, err)
		}
		if s.Level != 2 || s.TMs != 1.5 || s.RunMs == nil || *s.RunMs != 2.5 || *s.SlotsTotal != 2 || (i < 4) != (s.PredictedPerS == nil) || s.RequestsProcessing != nil || s.UnixMs == nil || *s.UnixMs != 1796158800000.5 {
			t.Errorf("line %s", line)
		}
	}
	if !strings.HasPrefix(lines[4], `{"level":2,"t_ms":1.5,`) {
		t.Errorf("tags first, then the sample: %s", lines[4])
	}
}
