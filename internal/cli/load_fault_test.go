package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"ttftlab/internal/artifact"
	"ttftlab/internal/atomicfile"
)

// TestLoadOneRequestFails: one request of ten answers 500. The level's
// percentiles are over the nine others (n says so), the failure is
// counted by kind with the server's message, load.json is strict JSON,
// the p95 SLO is not met (value null, one failed) while a p50 SLO still
// has its value, and the run exits 0.
func TestLoadOneRequestFails(t *testing.T) {
	t.Parallel()
	url := loadFaultServer(t, func(n int64) (int, string, string) {
		if n == 4 {
			return 500, "server_error", "slot 0 crashed"
		}
		return 0, "", ""
	})
	out := t.TempDir()
	code, stdout, stderr := runCLI("load", "--server", url, "--concurrency", "1", "--requests", "10", "--docs", "0",
		"--out", out, "--no-report", "--slo", "ttft_ms<=60000@p95", "--slo", "ttft_ms<=60000@p50")
	t.Logf("%s%s", stdout, stderr)
	if code != 0 {
		t.Fatalf("exit %d, want 0 (only one request failed)", code)
	}
	if !strings.Contains(stdout, "failed 1 of 10 requests") || !strings.Contains(stdout, "http 500") ||
		!strings.Contains(stdout, "slot 0 crashed") || !strings.Contains(stdout, "9/10") {
		t.Errorf("the console does not name the failure with its kind and message")
	}
	doc := strictLoad(t, out)
	if len(doc.Levels) != 1 {
		t.Fatalf("%d levels", len(doc.Levels))
	}
	lv := doc.Levels[0]
	s := lv.Summary
	if s.Requests != 10 || s.OK != 9 || s.Failed != 1 || len(s.Failures) != 1 {
		t.Fatalf("summary counts %+v", s)
	}
	if f := s.Failures[0]; f.Kind != "http" || f.Status != 500 || f.N != 1 || !strings.Contains(f.Example, "slot 0 crashed") {
		t.Errorf("failure %+v", f)
	}
	for name, d := range map[string]artifact.Dist{"ttft_ms": s.TTFTMs, "first_sentence_ms": s.FirstSentenceMs,
		"total_ms": s.TotalMs, "stall_ms": s.StallMs} {
		if d.N != 9 || d.P95 == nil || d.Over == "" {
			t.Errorf("%s over %d (%q), want the 9 requests that answered", name, d.N, d.Over)
		}
	}
	if s.QueueMs.N != 10 || s.QueueMs.Over != artifact.OverQueue {
		t.Errorf("queue_ms over %d, want every request (10)", s.QueueMs.N)
	}
	p95, p50 := lv.SLO[0], lv.SLO[1]
	if p95.Met || p95.ValueMs != nil || p95.Failed != 1 || p95.N != 10 {
		t.Errorf("p95 SLO %+v: want not met, no value, 1 failed of 10", p95)
	}
	// A p50 over 10 with 1 failed has a value; its verdict is its value
	// against its limit (the failed request counts as infinitely late).
	if p50.ValueMs == nil || p50.Failed != 1 || p50.Met != (*p50.ValueMs <= p50.LimitMs) {
		t.Errorf("p50 SLO %+v: want a value, 1 failed, and a verdict that agrees with them", p50)
	}
	if lv.SLOMet || doc.Capacity != nil {
		t.Errorf("a level with a failed request met its SLOs: %+v, capacity %+v", lv, doc.Capacity)
	}
	rows := strictLines[artifact.LoadRequest](t, filepath.Join(out, "requests.jsonl"))
	failed := 0
	for _, r := range rows {
		if r.Error != nil {
			failed++
			if *r.ErrorKind != "http" || r.StallMs != nil || r.TTFTMs != nil {
				t.Errorf("failed row %+v", r)
			}
		}
	}
	if len(rows) != 10 || failed != 1 {
		t.Errorf("%d rows, %d failed; want 10 and 1", len(rows), failed)
	}
	strictLines[artifact.LoadServerSample](t, filepath.Join(out, "server.jsonl"))
}

// TestLoadEveryRequestFails: a server that answers 401 to every request.
// load exits 1; the console, after the level's row and in the error line,
// names the kind, the count and the server's message; the sweep stops at
// the first level.
func TestLoadEveryRequestFails(t *testing.T) {
	t.Parallel()
	url := loadFaultServer(t, func(int64) (int, string, string) {
		return 401, "authentication_error", "Invalid API Key"
	})
	out := t.TempDir()
	code, stdout, stderr := runCLI("load", "--server", url, "--concurrency", "1,2", "--requests", "4", "--docs", "0",
		"--out", out, "--no-report")
	t.Logf("%s%s", stdout, stderr)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	if !strings.Contains(stdout, "failed 4 of 4 requests") || !strings.Contains(stdout, "http 401") ||
		!strings.Contains(stdout, "Invalid API Key") {
		t.Errorf("the console lacks the failure kind, count and message")
	}
	if !strings.Contains(stderr, "ttftlab load: every request at concurrency 1 failed (4 of 4): http 401 x4") ||
		!strings.Contains(stderr, "Invalid API Key") {
		t.Errorf("the error line lacks the level, the kind and the message: %q", stderr)
	}
	doc := strictLoad(t, out)
	if len(doc.Levels) != 1 {
		t.Errorf("%d levels ran, want the sweep to stop after the first", len(doc.Levels))
	}
	s := doc.Levels[0].Summary
	if s.TTFTMs.N != 0 || s.TTFTMs.P50 != nil || s.TotalMs.N != 0 || s.QueueMs.N != 4 {
		t.Errorf("distributions of a level where everything failed: ttft %+v total %+v queue %+v", s.TTFTMs, s.TotalMs, s.QueueMs)
	}
	if v := doc.Levels[0].SLO[0]; v.ValueMs != nil || v.Met || v.Failed != 4 {
		t.Errorf("SLO %+v", v)
	}
	strictLines[artifact.LoadRequest](t, filepath.Join(out, "requests.jsonl"))
}

// TestLoadRateRunIsStrict: an open loop of voice calls (two turns, a
// think time) writes load.json with rate levels, calls and by_turn, all
// decoding strictly into the record types; nothing failed, exit 0.
func TestLoadRateRunIsStrict(t *testing.T) {
	t.Parallel()
	url := loadFaultServer(t, func(int64) (int, string, string) { return 0, "", "" })
	out := t.TempDir()
	code, stdout, stderr := runCLI("load", "--server", url, "--rate", "20,40", "--requests", "3", "--turns", "2",
		"--think", "10ms", "--docs", "0", "--out", out, "--no-report", "--slo", "ttft_ms<=60000@p95")
	t.Logf("%s%s", stdout, stderr)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	doc := strictLoad(t, out)
	if len(doc.Levels) != 2 || doc.Settings.Mode != "rate" {
		t.Fatalf("levels %d, mode %q", len(doc.Levels), doc.Settings.Mode)
	}
	capacity := 0.0
	for _, lv := range doc.Levels {
		s := lv.Summary
		if lv.Rate == nil || *lv.Rate != lv.Level || s.Calls != 3 || s.Requests != 6 || len(s.ByTurn) != 2 ||
			s.ByTurn[1].N != 3 || s.ByTurn[1].CacheN == nil || lv.Goodput == nil || s.OK != 6 {
			t.Errorf("level %g: %+v", lv.Level, lv)
		}
		if v := lv.SLO[0]; v.ValueMs == nil || lv.SLOMet != (*v.ValueMs <= v.LimitMs) {
			t.Errorf("level %g: SLO %+v, slo_met %v disagree", lv.Level, v, lv.SLOMet)
		} else if lv.SLOMet {
			capacity = lv.Level
		}
	}
	if (capacity == 0) != (doc.Capacity == nil) || (doc.Capacity != nil && doc.Capacity.Level != capacity) {
		t.Errorf("capacity %+v, want the highest level whose SLO held (%g)", doc.Capacity, capacity)
	}
	if rows := strictLines[artifact.LoadRequest](t, filepath.Join(out, "requests.jsonl")); len(rows) != 12 || rows[0].Turn == 0 || rows[0].Call == 0 {
		t.Errorf("%d rows; first %+v", len(rows), rows[0])
	}
}

// TestLoadWriteFails: requests.csv turns into /dev/full in the middle of
// a level, as a disk fills. load ends the level as a stopped one does:
// load.json gets the level, marked interrupted, summarised from the rows
// requests.jsonl kept; the error names the file and why (no Lua stack
// traceback); exit 1; and check passes the folder, whose rows and levels
// agree.
func TestLoadWriteFails(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	url := diskFillsMidLevel(t, out)
	code, stdout, stderr := runCLI("load", "--server", url, "--concurrency", "1,2", "--requests", "10", "--docs", "0",
		"--out", out, "--no-report", "--slo", "ttft_ms<=60000@p95")
	t.Logf("%s%s", stdout, stderr)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	if !strings.Contains(stderr, filepath.Join(out, "requests.csv")) || !strings.Contains(stderr, "no space left on device") {
		t.Errorf("stderr does not name the file and why it could not be written:\n%s", stderr)
	}
	if strings.Contains(stderr, "stack traceback") {
		t.Errorf("a failed write printed a Lua stack traceback:\n%s", stderr)
	}
	rows := strictLines[artifact.LoadRequest](t, filepath.Join(out, "requests.jsonl"))
	doc := strictLoad(t, out)
	if len(rows) == 0 || len(doc.Levels) != 1 || !doc.Levels[0].Interrupted || doc.Levels[0].Level != 1 ||
		doc.Levels[0].Summary.Requests != len(rows) || doc.Capacity != nil {
		t.Fatalf("load.json levels %+v; want level 1 interrupted over the %d rows recorded", doc.Levels, len(rows))
	}
	if !strings.Contains(stdout, "  interrupted: ") {
		t.Errorf("the console lacks the interrupted level's row:\n%s", stdout)
	}
	if code, stdout, stderr := runCLI("check", out); code != 0 {
		t.Errorf("check on the folder a failed write left: exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestCheckLoadRowsAgreeWithLevels: check passes a load folder whose
// rows and levels agree, and fails one whose load.json lost a level its
// rows ran (the "levels": [] a failed write used to leave), one whose
// level counts other requests than its rows, and a requests.jsonl cut
// in the middle of a line, naming the line; merge refuses a shard cut so
// with the line's number too.
func TestCheckLoadRowsAgreeWithLevels(t *testing.T) {
	t.Parallel()
	url := loadFaultServer(t, func(int64) (int, string, string) { return 0, "", "" })
	out := t.TempDir()
	if code, stdout, stderr := runCLI("load", "--server", url, "--concurrency", "1,2", "--requests", "4", "--docs", "0",
		"--out", out, "--no-report", "--slo", "ttft_ms<=60000@p95"); code != 0 {
		t.Fatalf("load: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, stdout, _ := runCLI("check", out); code != 0 {
		t.Fatalf("check on a whole load folder: exit %d\n%s", code, stdout)
	}
	doc := strictLoad(t, out)
	jsonl, err := os.ReadFile(filepath.Join(out, "requests.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lost := doc
	lost.Levels = lost.Levels[:1]
	fewer := strictLoad(t, out)
	fewer.Levels[1].Summary.Requests--
	lines := strings.SplitAfter(strings.TrimSuffix(string(jsonl), "\n"), "\n")
	cut := strings.Join(lines[:len(lines)-1], "") + lines[len(lines)-1][:len(lines[len(lines)-1])/2]
	for _, tc := range []struct {
		name  string
		doc   artifact.Load
		jsonl string
		want  string
	}{
		{"a level lost", lost, string(jsonl), "4 rows of level 2, which load.json has no record of"},
		{"a level that counts one request fewer", fewer, string(jsonl), "level 2 counts 3 requests (0 warm-up), but requests.jsonl has 4 rows of it"},
		{"requests.jsonl cut mid-line", doc, cut, fmt.Sprintf("requests.jsonl: line %d: ", len(lines))},
	} {
		dir := t.TempDir()
		writeShard(t, dir, tc.doc, []byte(tc.jsonl), nil)
		code, stdout, _ := runCLI("check", dir)
		if code != 1 || !strings.Contains(stdout, tc.want) {
			t.Errorf("%s: check exit %d, want 1 naming %q:\n%s", tc.name, code, tc.want, stdout)
		}
	}
	// merge refuses a shard whose requests.jsonl is cut, naming the line.
	dir := t.TempDir()
	a0, a1 := filepath.Join(dir, "a0"), filepath.Join(dir, "a1")
	writeShard(t, a0, tinyShard("A", 0, 2), nil, nil)
	writeShard(t, a1, tinyShard("A", 1, 2), []byte("{\"level\": 1, \"call\": 2}\n{\"level\": 1, \"ca"), nil)
	code, _, stderr := runCLI("merge", a0, a1, "--out", filepath.Join(dir, "out"), "--no-report")
	if want := filepath.Join(a1, "requests.jsonl") + ": line 2: "; code != 1 || !strings.Contains(stderr, want) || !strings.Contains(stderr, "cut") {
		t.Errorf("merge of a cut shard: exit %d, want 1 naming %q and the cut:\n%s", code, want, stderr)
	}
}

// TestLoadWriteFailsLoadJSONToo: a disk that fills in the middle of a
// level for every file, load.json's completion included, still prints the
// stopped level's row: the console is then the only record of its figures
// (it printed two write errors and no row, and load.json kept "levels":
// []).
func TestLoadWriteFailsLoadJSONToo(t *testing.T) {
	out := t.TempDir()
	url := diskFillsMidLevel(t, out)
	full := func(path string, data []byte, mode os.FileMode) error {
		if dest, _ := os.Readlink(filepath.Join(out, "requests.csv")); dest != "/dev/full" {
			return atomicfile.Write(path, data, mode) // not full yet
		}
		return fmt.Errorf("writing %s: %w", path, syscall.ENOSPC)
	}
	writeFileAtomic = full
	t.Cleanup(func() { writeFileAtomic = atomicfile.Write })
	code, stdout, stderr := runCLI("load", "--server", url, "--concurrency", "1,2", "--requests", "10", "--docs", "0",
		"--out", out, "--no-report", "--slo", "ttft_ms<=60000@p95")
	t.Logf("%s%s", stdout, stderr)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	if !strings.Contains(stderr, filepath.Join(out, "requests.csv")) || !strings.Contains(stderr, filepath.Join(out, "load.json")) {
		t.Errorf("stderr does not name both files that could not be written:\n%s", stderr)
	}
	if !strings.Contains(stdout, "\n1 ") || !strings.Contains(stdout, "  interrupted: ") {
		t.Errorf("the console lacks the interrupted level's row:\n%s", stdout)
	}
}
