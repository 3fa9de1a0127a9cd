package runtime

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"testing"
	"time"

	"ttftlab/internal/llamaserver"
	"ttftlab/internal/stream/streamtest"
)

// The lines stream_many writes itself stay JSON that a strict parser
// (encoding/json: no NaN, no Inf, nothing after the value) reads back.

// TestWatchLinesStayJSON: the watcher builds its lines in Go. A metric
// that reads NaN or Inf becomes null instead of costing the line (a
// line encoding/json refuses was dropped silently), and a tag that is
// not finite is refused when the run starts, naming it.
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

	vm, _ := testVM(t, Config{Server: "http://127.0.0.1:1"})
	err = vm.RunString(`stream_many({}, {watch = {file = "w.jsonl", tags = {level = math.huge}}})`, "w.lua")
	if err == nil {
		t.Fatal("a tag of math.huge was accepted")
	}
	mustContain(t, err.Error(), "w.lua:1:", "opts.watch.tags.level", "use a finite number or a string")
}

// TestRecordLinesStayJSON: stream_many's record goes through
// write_json's encoder: a tag that cannot be written is an error naming
// it, and the JSONL file never holds a line a strict parser refuses.
func TestRecordLinesStayJSON(t *testing.T) {
	url := (&streamtest.FakeLlama{Pieces: []string{"Hi."}}).Start(t)
	for _, tags := range []string{"{level = math.huge}", "{level = 0/0}", "{level = 1/0}"} {
		vm, _ := testVM(t, Config{Server: url})
		err := vm.RunString(`stream_many({{"a", {max_tokens = 4}}, {"b", {max_tokens = 4}}},
			{record = {jsonl = "r.jsonl", tags = `+tags+`}})`, "r.lua")
		if err == nil {
			t.Fatalf("%s: recorded without an error", tags)
		}
		mustContain(t, err.Error(), "level: ")
		data, _ := os.ReadFile(filepath.Join(vm.cfg.Out, "r.jsonl"))
		for _, line := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
			if len(line) == 0 {
				continue
			}
			var v any // a number beyond float64 fails here too, unlike json.Valid
			if err := json.Unmarshal(line, &v); err != nil {
				t.Fatalf("%s: r.jsonl holds %q: %v", tags, line, err)
			}
		}
	}
}
