package check

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func status(outs []Outcome, name string) string {
	for _, o := range outs {
		if o.Name == name {
			return o.Status + " " + o.Detail
		}
	}
	return "none"
}

// TestFolderRunsJSON: in a folder of repeated runs, runs.json must be
// there, decode strictly, have a figure for each figure of the runs it
// pools, each statistic inside its interval; a run it does not pool (one
// a Ctrl-C stopped) is skipped, named. Fails before this change: check
// knows no runs.json.
func TestFolderRunsJSON(t *testing.T) {
	dir := t.TempDir()
	var runs []string
	for _, r := range []string{"run-1", "run-2", "run-3"} {
		runs = append(runs, filepath.Join(dir, r))
		if err := os.Mkdir(runs[len(runs)-1], 0o755); err != nil {
			t.Fatal(err)
		}
	}
	names := func(kind, d string) []string {
		if kind != "lab" {
			t.Errorf("kind %q", kind)
		}
		return []string{"ttft_ms", "total_ms"}
	}
	f := Folder{Runs: runs, Figures: names}

	if outs := FolderResults(dir, "", f); !strings.HasPrefix(status(outs, "file runs.json"), "FAIL ") {
		t.Errorf("without runs.json: %q", status(outs, "file runs.json"))
	}

	fig := func(name string, p50 float64) string {
		return `{"name":"` + name + `","unit":"ms","over":"x","n":10,"runs":2,"failed":0,"p50":` +
			strconv.FormatFloat(p50, 'f', -1, 64) + `,"p50_ci":[11,23],"p95":24,"p95_ci":null,"p99":24,"p99_ci":null,` +
			`"mean":17,"mean_ci":[10,24],"mean_over":"runs","run_means":[12,22]}`
	}
	write := func(body string) {
		if err := os.WriteFile(filepath.Join(dir, "runs.json"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"kind":"lab","dirs":["run-1","run-2"],"figures":[` + fig("ttft_ms", 17) + `,` + fig("total_ms", 17) + `]}`)
	outs := FolderResults(dir, "", f)
	if s := status(outs, "file runs.json"); !strings.HasPrefix(s, "PASS lab, 2 run(s), 2 figures") {
		t.Errorf("runs.json: %q", s)
	}
	if s := status(outs, "runs.json figures"); !strings.HasPrefix(s, "PASS ") {
		t.Errorf("figures: %q", s)
	}
	if s := status(outs, "run-3"); !strings.HasPrefix(s, "SKIP not pooled") {
		t.Errorf("run-3: %q", s)
	}
	if s := status(outs, "run-1: file ttft.json"); !strings.HasPrefix(s, "FAIL ") {
		t.Errorf("an empty run-1 passes its lab check: %q", s)
	}

	write(`{"kind":"lab","dirs":["run-1","run-2"],"figures":[` + fig("ttft_ms", 30) + `]}`)
	s := status(FolderResults(dir, "", f), "runs.json figures")
	if !strings.Contains(s, `no figure "total_ms" of run-1`) || !strings.Contains(s, "ttft_ms: p50 30 outside its interval [11, 23]") {
		t.Errorf("a missing figure and a p50 outside its interval: %q", s)
	}

	write(`{"kind":"lab","dirs":["run-1"],"figures":[],"extra":1,"oops":}`)
	if s := status(FolderResults(dir, "", f), "file runs.json"); !strings.HasPrefix(s, "FAIL ") {
		t.Errorf("broken runs.json: %q", s)
	}
}

// TestLoadLevels: a load folder's level that measured no request (every
// one warm-up) fails check, which passed it as "0 of 0 requests ok"; a
// level the run was stopped in passes, saying it was interrupted, also
// when every request it kept is one the stop canceled.
func TestLoadLevels(t *testing.T) {
	dir := t.TempDir()
	doc := `{"settings": {"server": "http://llm", "mode": "concurrency", "levels": [1, 2], "calls": 2, "requests": 2,
	  "duration_ms": 0, "turns": 1, "think_ms": 0, "docs": 0, "max_tokens": 8, "arrival": "constant", "seed": 1,
	  "warmup": 0, "slo": [], "api": "chat"},
	 "levels": [{"level": 1, "summary": {"requests": 0, "ok": 0, "failed": 0}, "slo": [], "goodput": null, "slo_met": false},
	            {"level": 2, "summary": {"requests": 2, "ok": 1, "failed": 1}, "slo": [], "goodput": null, "slo_met": false,
	             "interrupted": true},
	            {"level": 4, "summary": {"requests": 2, "ok": 0, "failed": 2}, "slo": [], "goodput": null, "slo_met": false,
	             "interrupted": true}],
	 "capacity": null}`
	if err := os.WriteFile(filepath.Join(dir, "load.json"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	// The rows the levels count (check holds them to each other).
	rows := strings.Repeat(`{"level": 2}`+"\n", 2) + strings.Repeat(`{"level": 4}`+"\n", 2)
	if err := os.WriteFile(filepath.Join(dir, "requests.jsonl"), []byte(rows), 0o644); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	passed, failed := RunFolder(dir, "", Folder{}, &b)
	out := b.String()
	if failed != 1 || !strings.Contains(out, "FAIL level 1: no request was measured") ||
		!strings.Contains(out, "PASS level 2: 1 of 2 requests ok; interrupted: the run was stopped in this level") ||
		!strings.Contains(out, "PASS level 4: 0 of 2 requests ok; interrupted: ") {
		t.Errorf("passed %d, failed %d:\n%s", passed, failed, out)
	}
}
