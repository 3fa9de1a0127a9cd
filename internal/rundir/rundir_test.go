package rundir

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestFlattenKeepsFileOrder(t *testing.T) {
	got, err := Flatten([]byte(`{"z": 1, "a": {"y": "s", "b": [1, 2]}, "list": [{"k": true}, {"k": null}], "e": []}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []Field{{"z", 1.0}, {"a.y", "s"}, {"a.b", "1 2"}, {"list[0].k", true}, {"list[1].k", nil}, {"e", ""}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Flatten = %v, want %v", got, want)
	}
	for _, bad := range []string{`{"a": 1`, `{"a": 1} {}`, ``} {
		if _, err := Flatten([]byte(bad)); err == nil {
			t.Errorf("Flatten(%q) gave no error", bad)
		}
	}
}

func write(t *testing.T, dir, name, body string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestDetect(t *testing.T) {
	lab, load, none := t.TempDir(), t.TempDir(), t.TempDir()
	write(t, lab, "ttft.json", `{}`)
	write(t, load, "load.json", `{}`)
	write(t, none, "notes.txt", "")
	for dir, want := range map[string]Kind{lab: KindLab, load: KindLoad} {
		if k, err := Detect(dir); k != want || err != nil {
			t.Errorf("Detect(%s) = %q, %v; want %q", dir, k, err, want)
		}
	}
	for dir, want := range map[string]string{none: "holds neither", filepath.Join(none, "notes.txt"): "is a file",
		filepath.Join(none, "x"): "cannot open"} {
		if _, err := Detect(dir); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Detect(%s) = %v, want %q", dir, err, want)
		}
	}
}

// TestReadLoadTolerant: an older load.json (errors {kind = n}, no n or
// over in its distributions) still reads, unknown fields are kept, a bad
// line of requests.jsonl is named, missing files are no problem.
func TestReadLoadTolerant(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "load.json", `{"settings": {"mode": "rate", "slo": [{"metric": "ttft_ms", "percentile": 95, "limit_ms": 300}]},
	  "new_field": 3, "levels": [{"level": 2, "rate": 2, "summary": {"requests": 5, "ok": 4, "errors": {"timeout": 1},
	  "ttft_ms": {"p50": 10, "p95": 20}, "stall_ms": {"p50": 0}}}, {"level": 1, "summary": {}}], "capacity": null}`)
	write(t, dir, "requests.jsonl", "{\"level\": 2, \"index\": 0, \"ttft_ms\": 10, \"total_ms\": null}\nnot json\n\n")
	l := ReadLoad(dir)
	if len(l.Levels) != 2 || l.Levels[0].Level != 1 {
		t.Fatalf("levels %+v, want two sorted by level", l.Levels)
	}
	s := l.Levels[1].Summary
	if s.Requests != 5 || s.Failed != 1 || len(s.Failures) != 1 || s.Failures[0].Kind != "timeout" ||
		s.TTFTMs.P95 == nil || *s.TTFTMs.P95 != 20 || s.TotalMs.P50 != nil {
		t.Errorf("summary %+v", s)
	}
	if l.Capacity != nil || l.LevelName(2) != "rate 2 calls/s" {
		t.Errorf("capacity %v, level name %q", l.Capacity, l.LevelName(2))
	}
	if len(l.Requests) != 1 || l.Requests[0].TotalMs != nil || *l.Requests[0].TTFTMs != 10 {
		t.Errorf("requests %+v", l.Requests)
	}
	if len(l.Problems) != 1 || !strings.Contains(l.Problems[0], "requests.jsonl line 2") {
		t.Errorf("problems %q, want the bad line named", l.Problems)
	}
	found := false
	for _, f := range l.Fields {
		found = found || f.Path == "new_field"
		if strings.HasPrefix(f.Path, "levels") {
			t.Errorf("Fields hold %s; levels have their own table", f.Path)
		}
	}
	if !found {
		t.Errorf("the unknown field new_field is not kept")
	}
}

func TestReadLabExtraFiles(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "ttft.json", `{"runs": [{"ttft_ms": 1, "total_ms": 2, "tokens": 3}], "ttft_p50": 1, "total_p50": 2}`)
	write(t, dir, "newstep.json", `{"b": 1, "a": 2}`)
	write(t, dir, "cache.json", `[1, 2]`)
	l := ReadLab(dir, "")
	if l.TTFT == nil || len(l.TTFT.Runs) != 1 || l.Cache != nil {
		t.Errorf("ttft %+v, cache %+v", l.TTFT, l.Cache)
	}
	if got := l.Extra["newstep.json"]; len(got) != 2 || got[0].Path != "b" {
		t.Errorf("newstep.json fields %v, want b then a", got)
	}
	if len(l.Problems) != 1 || !strings.Contains(l.Problems[0], "cache.json") {
		t.Errorf("problems %q, want cache.json named", l.Problems)
	}
	if len(l.Checks) == 0 {
		t.Errorf("no check outcomes")
	}
}

// TestSearchWithoutCapacity: a search whose every level missed writes
// capacity level 0 with its path; the run has no capacity, as a null one
// says, so no page calls "level 0" a capacity.
func TestSearchWithoutCapacity(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "load.json", `{"settings": {"mode": "concurrency", "slo": [{"metric": "ttft_ms", "percentile": 50, "limit_ms": 1}]},
	  "levels": [{"level": 1, "summary": {}}], "capacity": {"level": 0, "next": null, "search": [{"level": 1, "met": false, "value_ms": 5}]}}`)
	if l := ReadLoad(dir); l.Capacity != nil {
		t.Errorf("capacity %+v, want none", l.Capacity)
	}
}

// TestDetectRepeatedRuns: a folder of run-1 ... run-N is of its runs'
// kind, listed in order; runs of two kinds, a run that is none, and a
// missing run are named.
func TestDetectRepeatedRuns(t *testing.T) {
	dir := t.TempDir()
	for _, r := range []string{"run-1", "run-2"} {
		os.Mkdir(filepath.Join(dir, r), 0o755)
		write(t, filepath.Join(dir, r), "load.json", `{}`)
	}
	write(t, dir, "runs.json", `{}`)
	k, runs, err := DetectRuns(dir)
	if k != KindLoad || err != nil || !reflect.DeepEqual(runs, []string{filepath.Join(dir, "run-1"), filepath.Join(dir, "run-2")}) {
		t.Errorf("DetectRuns = %q, %v, %v", k, runs, err)
	}
	if k, err := Detect(dir); k != KindLoad || err != nil {
		t.Errorf("Detect = %q, %v", k, err)
	}
	if k, runs, err := DetectRuns(filepath.Join(dir, "run-2")); k != KindLoad || err != nil || len(runs) != 1 {
		t.Errorf("DetectRuns of one run = %q, %v, %v", k, runs, err)
	}
	os.Mkdir(filepath.Join(dir, "run-3"), 0o755)
	write(t, filepath.Join(dir, "run-3"), "ttft.json", `{}`)
	if _, err := Detect(dir); err == nil || !strings.Contains(err.Error(), "run-1 is a load run, run-3 a lab run") {
		t.Errorf("runs of two kinds: %v", err)
	}
	os.Remove(filepath.Join(dir, "run-3", "ttft.json"))
	if _, err := Detect(dir); err == nil || !strings.Contains(err.Error(), "holds repeated runs, but") || !strings.Contains(err.Error(), "run-3 holds neither") {
		t.Errorf("a run that is none: %v", err)
	}
	os.Rename(filepath.Join(dir, "run-3"), filepath.Join(dir, "run-4"))
	if _, err := Detect(dir); err == nil || !strings.Contains(err.Error(), "run-4 but no run-3") {
		t.Errorf("a missing run: %v", err)
	}
}

// TestReportFilesAreNoExtra: runs.json (the pooled figures) and
// compare.json (a comparison drawn into the folder) are the report's own,
// not a step's file to list.
func TestReportFilesAreNoExtra(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "ttft.json", `{}`)
	write(t, dir, "runs.json", `{"kind": "lab"}`)
	write(t, dir, "compare.json", `{"seed": 1}`)
	write(t, dir, "future.json", `{"x": 1}`)
	if l := ReadLab(dir, ""); len(l.Extra) != 1 || l.Extra["future.json"] == nil {
		t.Errorf("extra files: %v", l.Extra)
	}
}

// TestReadLoadRowsAsCheckReadsThem: requests.jsonl is read by check's
// reader (artifact.ReadLoadRequests): the rows before the first line that
// does not decode strictly (a member no row has, a cut line), that line
// named by its number; none after it.
func TestReadLoadRowsAsCheckReadsThem(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "load.json", `{"settings": {"mode": "concurrency"}, "levels": [{"level": 1, "summary": {}}]}`)
	write(t, dir, "requests.jsonl", "{\"level\": 1, \"index\": 0}\n\n{\"level\": 1, \"index\": 1, \"no_such\": 2}\n{\"level\": 1, \"index\": 2}\n{\"level\": 1, \"ind")
	l := ReadLoad(dir)
	if len(l.Requests) != 1 || l.Requests[0].Index != 0 {
		t.Errorf("requests %+v, want the first row alone", l.Requests)
	}
	if len(l.Problems) != 1 || !strings.HasPrefix(l.Problems[0], "requests.jsonl line 3: ") || !strings.Contains(l.Problems[0], "no_such") {
		t.Errorf("problems %q, want line 3 named with its unknown member", l.Problems)
	}
	write(t, dir, "requests.jsonl", "{\"level\": 1, \"index\": 0}\n{\"level\": 1, \"ind")
	if l := ReadLoad(dir); len(l.Requests) != 1 || len(l.Problems) != 1 || !strings.Contains(l.Problems[0], "line 2: ") ||
		!strings.Contains(l.Problems[0], "cut as it was written") {
		t.Errorf("a cut last line: requests %d, problems %q", len(l.Requests), l.Problems)
	}
}
