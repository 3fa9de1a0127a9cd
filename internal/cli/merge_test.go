package cli

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ttftlab/internal/artifact"
)

// TestMergeShardsOfALoad: a load (on a fake server), split into three
// shard folders, merges into one load folder that holds every row of
// every shard in shard order and requests.csv, the same levels, each
// shard's requests and the start spread, which the console prints with
// each merged level's ttft intervals; `ttftlab check` passes it, the
// report draws it, and a second merge into the same folder is refused.
// The merged records' arithmetic (percentiles over the union, verdicts,
// spread) is internal/load's TestMergeRecomputesFromTheUnion; a merge of
// shards run against the real llama-server, TestLoadShardsSideBySide.
func TestMergeShardsOfALoad(t *testing.T) {
	t.Parallel()
	url := loadFaultServer(t, func(int64) (int, string, string) { return 0, "", "" })
	src, shards := t.TempDir(), t.TempDir()
	code, stdout, stderr := runCLI("load", "--server", url, "--concurrency", "1,2", "--requests", "7", "--turns", "2", "--think", "10ms",
		"--docs", "0", "--out", src, "--no-report", "--slo", "ttft_ms<=60000@p95")
	if code != 0 {
		t.Fatalf("load: exit %d\n%s%s", code, stdout, stderr)
	}
	splitLoad(t, src, shards, 3, "run-7")
	out := filepath.Join(shards, "merged")
	code, stdout, stderr = runCLI("merge", shards, "--out", out)
	t.Logf("%s%s", stdout, stderr)
	if code != 0 {
		t.Fatalf("merge: exit %d", code)
	}
	orig := strictLoad(t, src)
	doc := strictLoad(t, out)
	// The console shows each merged level's ttft intervals as load does,
	// from the merged record.
	for _, l := range doc.Levels {
		if want := ciLine(l.Summary.TTFTMs); !strings.Contains(stdout, want+"\n") {
			t.Errorf("level %g: the console lacks %q", l.Level, want)
		}
	}
	origRows := strictLines[artifact.LoadRequest](t, filepath.Join(src, "requests.jsonl"))
	rows := strictLines[artifact.LoadRequest](t, filepath.Join(out, "requests.jsonl"))
	// Every row of every shard, in shard order, each with its shard.
	if len(rows) != len(origRows) || len(rows) != 28 {
		t.Fatalf("merged %d rows, the shards %d", len(rows), len(origRows))
	}
	seen := map[[3]float64]bool{}
	last := 0
	for _, r := range rows {
		if r.Shard == nil || *r.Shard < last || *r.Shard != (r.Call-1)%3 || r.RunID != "run-7" {
			t.Fatalf("row %+v out of shard order or untagged", r)
		}
		last = *r.Shard
		seen[[3]float64{r.Level, float64(r.Call), float64(r.Turn)}] = true
	}
	for _, r := range origRows {
		if !seen[[3]float64{r.Level, float64(r.Call), float64(r.Turn)}] {
			t.Errorf("level %g call %d turn %d is not in the merge", r.Level, r.Call, r.Turn)
		}
	}
	f, _ := os.Open(filepath.Join(out, "requests.csv"))
	records, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil || len(records) != 29 || records[0][0] != "host" {
		t.Errorf("requests.csv: %d records (%v)", len(records), err)
	}
	if doc.Settings.Shards != 3 || doc.Settings.Shard != nil || doc.Settings.RunID != "run-7" || len(doc.Levels) != len(orig.Levels) {
		t.Fatalf("merged settings %+v, %d levels of %d", doc.Settings, len(doc.Levels), len(orig.Levels))
	}
	for i, l := range doc.Levels {
		if o := orig.Levels[i]; l.Level != o.Level || l.Interrupted || l.Summary.Requests != o.Summary.Requests {
			t.Errorf("level %d: %g (interrupted %v, %d requests), unsharded %g (%d)", i, l.Level, l.Interrupted, l.Summary.Requests,
				o.Level, o.Summary.Requests)
		}
		sum := 0
		for k, sh := range l.Shards {
			sum += sh.Requests
			if sh.Shard != k || sh.Host != fmt.Sprintf("pod-%d", k) {
				t.Errorf("level %g shard %+v", l.Level, sh)
			}
		}
		if len(l.Shards) != 3 || sum != l.Summary.Requests || l.StartSpreadMs == nil || *l.StartSpreadMs != 2 {
			t.Errorf("level %g: shards %+v (requests %d of %d), spread %v", l.Level, l.Shards, sum, l.Summary.Requests, l.StartSpreadMs)
		}
	}
	if !strings.Contains(stdout, "start spread 2.0 ms") {
		t.Errorf("the console does not print the start spread")
	}
	if (doc.Capacity == nil) != (orig.Capacity == nil) || doc.Capacity != nil && doc.Capacity.Level != orig.Capacity.Level {
		t.Errorf("capacity %+v, unsharded %+v", doc.Capacity, orig.Capacity)
	}
	if a, b := jsonlRows(t, filepath.Join(out, "server.jsonl")), jsonlRows(t, filepath.Join(src, "server.jsonl")); len(a) != len(b) {
		t.Errorf("server.jsonl: %d samples, shard 0 has %d", len(a), len(b))
	}
	page, err := os.ReadFile(filepath.Join(out, "report.html"))
	if err != nil || !strings.Contains(stdout, "HTML report: ") {
		t.Fatalf("no report drawn: %v", err)
	}
	// The page names each level (the chart of turns, one line a level)
	// and the capacity the merge found.
	for _, l := range doc.Levels {
		if !bytes.Contains(page, []byte(fmt.Sprintf("level %g", l.Level))) {
			t.Errorf("report.html does not mention level %g", l.Level)
		}
	}
	// Every level held (the SLO is far above any TTFT): the capacity is a
	// lower bound, and the page says so.
	if doc.Capacity != nil && !bytes.Contains(page, []byte(fmt.Sprintf("Capacity: at least concurrency %g", doc.Capacity.Level))) {
		t.Errorf("report.html does not give the capacity %g", doc.Capacity.Level)
	}
	if code, stdout, _ := runCLI("check", out); code != 0 {
		t.Errorf("check of the merged folder: exit %d\n%s", code, stdout)
	}
	if code, _, stderr := runCLI("merge", shards, "--out", out); code != 2 || !strings.Contains(stderr, "already holds a load.json") {
		t.Errorf("a second merge into the same --out: exit %d, %s", code, stderr)
	}
}

// TestMergeRefusesShardsThatDoNotBelong: shards of different run ids, a
// missing shard and different settings are refused (exit 1) naming the
// ids and folders, the missing shard, the field and both values; a
// folder of no shard is refused before anything is written.
func TestMergeRefusesShardsThatDoNotBelong(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name string, doc artifact.Load) string {
		p := filepath.Join(dir, name)
		writeShard(t, p, doc, nil, nil)
		return p
	}
	a0, a1, a2 := write("a0", tinyShard("A", 0, 3)), write("a1", tinyShard("A", 1, 3)), write("a2", tinyShard("A", 2, 3))
	b1 := write("b1", tinyShard("B", 1, 3))
	other := tinyShard("A", 2, 3)
	other.Settings.MaxTokens = 128
	c2 := write("c2", other)
	none := filepath.Join(dir, "none")
	os.MkdirAll(none, 0o755)
	// A folder holding one shard's shard-0 of two: merge says where it
	// looked (before this change: "have 0" and nothing more).
	parent := filepath.Join(dir, "parent")
	os.MkdirAll(filepath.Join(parent, "shard-0"), 0o755)
	writeShard(t, filepath.Join(parent, "shard-0"), tinyShard("P", 0, 2), nil, nil)
	for _, tc := range []struct {
		args []string
		code int
		want []string
	}{
		{[]string{a0, b1, a2}, 1, []string{`run "A"`, `run "B"`, a0, b1}},
		{[]string{a0, a2}, 1, []string{"shard 1 of 3 is missing: have 0, 2 (in " + a0 + ", " + a2 + "); looked in " + a0 + ", " + a2 + ": pass every shard's folder"}},
		{[]string{parent}, 1, []string{"shard 1 of 2 is missing: have 0 (in " + filepath.Join(parent, "shard-0") + "); looked in " + parent +
			" (the shard-* folders of " + parent + ")"}},
		{[]string{a0, a1, c2}, 1, []string{"settings differ: max_tokens is 64 in " + a0 + " but 128 in " + c2}},
		{[]string{a0, a1, none}, 1, []string{none, "neither a load.json nor shard-* folders"}},
		{[]string{a0, a1, a2}, 2, []string{"missing --out"}},
	} {
		out := filepath.Join(dir, "out")
		args := append([]string{"merge"}, tc.args...)
		if tc.code != 2 {
			args = append(args, "--out", out)
		}
		code, _, stderr := runCLI(args...)
		if code != tc.code {
			t.Errorf("%v: exit %d, want %d\n%s", tc.args, code, tc.code, stderr)
		}
		for _, w := range tc.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%v: stderr lacks %q:\n%s", tc.args, w, stderr)
			}
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: refused, yet %s was made", tc.args, out)
		}
	}
	// The three of run A merge: one level of no request, no capacity.
	code, stdout, stderr := runCLI("merge", a0, a1, a2, "--out", filepath.Join(dir, "out"), "--no-report")
	if code != 0 || !strings.Contains(stdout, "capacity: none") {
		t.Errorf("exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestMergeExitsAsLoadWouldForTheRows: shards whose every request of a
// level failed merge into a folder that says so, and merge exits 1 as
// load exits for the same rows, naming the level; the folder is written.
func TestMergeExitsAsLoadWouldForTheRows(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for i := range 2 {
		doc := tinyShard("F", i, 2)
		lv := 1.0
		doc.Levels = []artifact.LoadLevel{{Level: 1, Rate: &lv, SLO: []artifact.SLOVerdict{}}}
		if i == 1 {
			// This shard ended the level early as over-saturated.
			w := func(from int, p50, lo float64) artifact.TrendWindow {
				return artifact.TrendWindow{From: from, N: 6, P50Ms: &p50, CIMs: [2]*float64{&lo, nil}}
			}
			doc.Levels[0].OverSaturated = &artifact.LevelTrend{Metric: "queue_ms + ttft_ms", Known: true, Rising: true,
				Thirds: []artifact.TrendWindow{w(1, 12, 10), w(7, 80, 70), w(13, 200, 180)}}
		}
		kind, msg := "connect", "connection refused"
		shard := i
		row := artifact.LoadRequest{Level: 1, Call: i + 1, Turn: 1, Shard: &shard, Host: fmt.Sprintf("pod-%d", i), RunID: "F",
			Request: artifact.Request{Index: 1, StartMs: artifact.Ms(1), ScheduledMs: artifact.Ms(0), QueueMs: artifact.Ms(1),
				TotalMs: artifact.Ms(2), ErrorKind: &kind, Error: &msg}}
		line, err := json.Marshal(row)
		if err != nil {
			t.Fatal(err)
		}
		writeShard(t, filepath.Join(dir, fmt.Sprintf("shard-%d", i)), doc, append(line, '\n'), nil)
	}
	out := filepath.Join(dir, "merged")
	code, stdout, stderr := runCLI("merge", dir, "--out", out, "--no-report")
	if code != 1 || !strings.Contains(stderr, "every request at rate 1 calls/s failed (2 of 2)") {
		t.Errorf("exit %d, want 1 naming the level:\n%s%s", code, stdout, stderr)
	}
	if doc := strictLoad(t, out); len(doc.Levels) != 1 || doc.Levels[0].Summary.Failed != 2 {
		t.Errorf("merged: %+v", doc.Levels)
	}
	// The console says what failed, as load's does.
	for _, want := range []string{"     0%  missed\n", "  failed 2 of 2 requests:\n", "    connect            2  e.g. connection refused\n",
		"capacity: none: already 1 calls/s failed every request (over-saturated: its lateness kept rising)\n",
		"  over-saturated: queue_ms + ttft_ms kept rising in a shard (p50 of each third 12 [10, inf] -> 80 [70, inf] -> 200 [180, inf] ms"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the console lacks %q:\n%s", want, stdout)
		}
	}
}
