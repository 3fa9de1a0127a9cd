package streammany_test

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"ttftlab/internal/artifact"
	"ttftlab/internal/stream/streamtest"
	"ttftlab/runtime"
)

// TestStreamManyRunMs: two stream_many calls of one script (two levels of
// a load) with a 100 ms pause between them: start_ms and server.jsonl's
// t_ms restart at each call, run_ms counts on from the script's start, so
// the second call's run_ms lie at least its own start_ms (t_ms) plus the
// first call's duration and the pause later.
func TestStreamManyRunMs(t *testing.T) {
	url := (&streamtest.FakeLlama{Pieces: []string{"Yes.", " We open."}, Delay: 5 * time.Millisecond}).Start(t)
	vm, out := testVM(t, runtime.Config{Server: url})
	err := vm.RunString(`
		local durations = {}
		for level = 1, 2 do
			local _, s = stream_many(function(i)
				if i > 3 then return nil end
				return "q", {}
			end, {concurrency = 2, record = {jsonl = "r.jsonl", tags = {level = level}},
				watch = {file = "s.jsonl", every_ms = 10, tags = {level = level}}})
			durations[level] = s.duration_ms
			if level == 1 then sleep_ms(100) end
		end
		print(string.format("%.3f", durations[1]))`, "runms.lua")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var first float64
	if _, err := fmt.Sscan(out.String(), &first); err != nil {
		t.Fatalf("printed %q", out)
	}
	least := first + 100
	reqs := readLines[artifact.LoadRequest](t, filepath.Join(vm.Out(), "r.jsonl"))
	if len(reqs) != 6 {
		t.Fatalf("%d rows, want 6", len(reqs))
	}
	for _, r := range reqs {
		if r.RunMs == nil || r.StartMs == nil || *r.RunMs < *r.StartMs {
			t.Fatalf("row %+v: run_ms before start_ms", r)
		}
		if r.Level == 2 && *r.RunMs-*r.StartMs < least {
			t.Errorf("level 2 request %d: run_ms %.3f, start_ms %.3f: want at least %.3f ms apart (level 1's duration and the pause)",
				r.Index, *r.RunMs, *r.StartMs, least)
		}
	}
	samples := readLines[artifact.LoadServerSample](t, filepath.Join(vm.Out(), "s.jsonl"))
	seen := map[float64]bool{}
	for _, s := range samples {
		seen[s.Level] = true
		if s.RunMs == nil {
			t.Fatalf("level %g sample at t_ms %.3f has no run_ms", s.Level, s.TMs)
		}
		if run := *s.RunMs; run < s.TMs || (s.Level == 2 && run-s.TMs < least) {
			t.Errorf("level %g sample: t_ms %.3f, run_ms %.3f (want at least %.3f apart at level 2)", s.Level, s.TMs, run, least)
		}
	}
	if !seen[1] || !seen[2] {
		t.Errorf("samples of levels %v, want both", seen)
	}
}

func readLines[T any](t *testing.T, path string) []T {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var v T
		if err := artifact.DecodeStrict(sc.Bytes(), &v); err != nil {
			t.Fatalf("%s: %v in %s", path, err, sc.Text())
		}
		out = append(out, v)
	}
	return out
}
