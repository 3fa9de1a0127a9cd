package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"ttftlab/internal/artifact"
)

// The recorded runs in testdata/recorded were written by ttftlab before
// the load's level records moved into one place: a lab (`ttftlab lab`,
// default flags) and three loads made with the flags of the end-to-end
// tests that compare with them (load-e2e: TestLoadEndToEnd; load-tts:
// TestLoadSpeaksEveryAnswer; load-search: TestLoadSearchEndToEnd). Only
// the first lines of a JSONL file are kept. They hold today's artifacts to
// yesterday's field by field: no field may be lost, and every new one is
// documented. The lab's cache.json, prefix.json, sentence.json,
// prefill.json and audio.json were given the members of a repeated step
// (repeat, runs; cache and prefix also docs, method.cold_prompt) by hand:
// their one measurement is their one run (audio's 5 runs, its repeat 5).

const recordedDir = "testdata/recorded"

// recordedType is the record type of an artifact file, one value per
// line for JSONL.
func recordedType(name string) any {
	switch name {
	case "load.json":
		return new(artifact.Load)
	case "requests.jsonl":
		return new(artifact.LoadRequest)
	case "server.jsonl":
		return new(artifact.LoadServerSample)
	case "runs.json":
		return new(artifact.Runs)
	case "health.json":
		return new(artifact.Health)
	case "props.json":
		return new(artifact.Props)
	case "server.json":
		return new(artifact.ServerKind)
	case "ttft.json":
		return new(artifact.TTFT)
	case "prefill.json":
		return new([]artifact.PrefillRow)
	case "cache.json":
		return new(artifact.Cache)
	case "sentence.json":
		return new(artifact.Sentence)
	case "cancel.json":
		return new(artifact.Cancel)
	case "bargein.json":
		return new(artifact.Bargein)
	case "prefix.json":
		return new(artifact.Prefix)
	case "audio.json":
		return new(artifact.Audio)
	case "report.json":
		return new(artifact.Report)
	case "steps.json":
		return new(artifact.Steps)
	case "chunks.jsonl":
		return new(artifact.Chunk)
	}
	return nil
}

// values are a JSON or JSONL file's values.
func values(t *testing.T, path string) [][]byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(path, ".jsonl") {
		return [][]byte{data}
	}
	var out [][]byte
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) > 0 {
			out = append(out, append([]byte(nil), sc.Bytes()...))
		}
	}
	return out
}

// TestRecordedRunsStillRead: every recorded artifact decodes into today's
// record type; a load's with no member it does not know: a field removed
// or renamed since would be unknown.
func TestRecordedRunsStillRead(t *testing.T) {
	t.Parallel()
	runs, err := os.ReadDir(recordedDir)
	if err != nil || len(runs) == 0 {
		t.Fatalf("no recorded runs in %s: %v", recordedDir, err)
	}
	files := 0
	for _, run := range runs {
		entries, err := os.ReadDir(filepath.Join(recordedDir, run.Name()))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			path := filepath.Join(recordedDir, run.Name(), e.Name())
			if recordedType(e.Name()) == nil {
				t.Errorf("%s: no record type for this file", path)
				continue
			}
			files++
			decode := artifact.DecodeStrict
			if run.Name() == "lab" {
				// The lab's steps (Lua) write members their types do not
				// model (cache.json's method, cancel.json's done, ...):
				// those are held by the path comparison of the lab's
				// end-to-end test, the types' own by their shape here.
				decode = artifact.Decode
			}
			for i, v := range values(t, path) {
				if err := decode(v, recordedType(e.Name())); err != nil {
					t.Errorf("%s (value %d): %v", path, i+1, err)
				}
			}
		}
	}
	if files < 20 {
		t.Errorf("only %d recorded files read", files)
	}
}

// jsonPaths adds the member paths of a decoded JSON value to into: "a.b",
// an array's elements as "a[]". A member whose value is null is kept as
// its path too.
func jsonPaths(v any, prefix string, into map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			p := k
			if prefix != "" {
				p = prefix + "." + k
			}
			into[p] = true
			jsonPaths(e, p, into)
		}
	case []any:
		for _, e := range x {
			jsonPaths(e, prefix+"[]", into)
		}
	}
}

func filePaths(t *testing.T, path string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, v := range values(t, path) {
		var x any
		if err := json.Unmarshal(v, &x); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		jsonPaths(x, "", out)
	}
	return out
}

// varies are the members whose presence depends on what happened in the
// run, not on the code that wrote it: a failure's kinds, an over-saturated
// level, a lab repetition discarded, a slow client.
var varies = []string{"failures[].", "over_saturated", "discarded", "not_measured", "status", "dropped", "error", "note"}

func variesByRun(path string) bool {
	for _, v := range varies {
		if strings.Contains(path, v) {
			return true
		}
	}
	return false
}

// compareWithRecorded holds the artifacts of the run in out to the
// recorded run of that name (recordedDiff).
func compareWithRecorded(t *testing.T, run, out string) {
	t.Helper()
	for _, problem := range recordedDiff(t, run, out, docsText(t)) {
		t.Error(problem)
	}
}

// recordedDiff compares each file of the recorded run with the file of
// that name in out: each member path the recorded file has, the new file
// has too (none lost); a path only the new one has must be named in docs
// (new fields are documented).
func recordedDiff(t *testing.T, run, out, docs string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(recordedDir, run))
	if err != nil {
		t.Fatal(err)
	}
	var problems []string
	for _, e := range entries {
		was := filePaths(t, filepath.Join(recordedDir, run, e.Name()))
		now := filePaths(t, filepath.Join(out, e.Name()))
		var lost, undocumented []string
		for p := range was {
			if !now[p] && !variesByRun(p) {
				lost = append(lost, p)
			}
		}
		for p := range now {
			if was[p] || variesByRun(p) {
				continue
			}
			name := strings.TrimSuffix(p[strings.LastIndex(p, ".")+1:], "[]")
			if !strings.Contains(docs, name) {
				undocumented = append(undocumented, p)
			}
		}
		sort.Strings(lost)
		sort.Strings(undocumented)
		if len(lost) > 0 {
			problems = append(problems, fmt.Sprintf("%s: members the recorded run %s has and this run lost: %s", e.Name(), run,
				strings.Join(lost, ", ")))
		}
		if len(undocumented) > 0 {
			problems = append(problems, fmt.Sprintf("%s: new members no page of docs/ names: %s", e.Name(),
				strings.Join(undocumented, ", ")))
		}
	}
	return problems
}

// docsText is every page of docs/ as one text.
func docsText(t *testing.T) string {
	t.Helper()
	pages, err := filepath.Glob("../../docs/*.md")
	if err != nil || len(pages) == 0 {
		t.Fatalf("no docs pages: %v", err)
	}
	var b strings.Builder
	for _, p := range pages {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(data)
	}
	return b.String()
}

// TestCompareWithRecordedCanFail: the comparison passes a recorded run
// against itself and finds a lost member and an undocumented new one.
func TestCompareWithRecordedCanFail(t *testing.T) {
	t.Parallel()
	docs := docsText(t)
	same := filepath.Join(recordedDir, "load-e2e")
	if p := recordedDiff(t, "load-e2e", same, docs); len(p) > 0 {
		t.Errorf("a recorded run differs from itself: %v", p)
	}
	dir := t.TempDir()
	entries, err := os.ReadDir(same)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(same, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if e.Name() == "load.json" {
			b = bytes.ReplaceAll(b, []byte(`"goodput"`), []byte(`"zz_not_a_documented_member"`))
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := strings.Join(recordedDiff(t, "load-e2e", dir, docs), "\n")
	if !strings.Contains(got, "lost: levels[].goodput") || !strings.Contains(got, "names: levels[].zz_not_a_documented_member") {
		t.Errorf("the comparison did not find the lost and the undocumented member:\n%s", got)
	}
}
