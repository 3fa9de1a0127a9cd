package check

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ttftlab/internal/artifact"
)

// stepsJSON is a steps.json where every step has the given status but
// those named in set.
func stepsJSON(t *testing.T, status string, set map[string]string) string {
	t.Helper()
	files := map[string][]string{
		"server": {"health.json", "props.json"}, "stream": {"sse_raw.txt", "chunks.jsonl"}, "ttft": {"ttft.json"},
		"prefill": {"prefill.json"}, "cache": {"cache.json"}, "sentence": {"sentence.json"}, "cancel": {"cancel.json"},
		"bargein": {"bargein.json"}, "prefix": {"prefix.json"}, "report": {"report.json"},
	}
	var s artifact.Steps
	for _, name := range []string{"server", "stream", "ttft", "prefill", "cache", "sentence", "cancel", "bargein", "prefix", "report"} {
		st := status
		if v, ok := set[name]; ok {
			st = v
		}
		detail := ""
		if st == artifact.StepFailed {
			detail = "HTTP 500 from the server\nstack traceback"
		}
		s.Steps = append(s.Steps, artifact.Step{Name: name, Status: st, Detail: detail, Artifacts: files[name]})
	}
	data, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestPartialFolderPasses: a lab run of one step (lab -- ttft) leaves a
// folder whose other files were never meant to be there; check passes it
// and says what it did not check. Fails before steps.json: every other
// file is "missing".
func TestPartialFolderPasses(t *testing.T) {
	all := validFiles()
	files := map[string]string{"ttft.json": all["ttft.json"],
		"steps.json": stepsJSON(t, artifact.StepNotRun, map[string]string{"ttft": artifact.StepPassed})}
	got, passed, failed, out := runFolder(t, files, false)
	if failed != 0 || passed == 0 {
		t.Fatalf("passed %d, failed %d, want every check of ttft.json to pass and none to fail:\n%s", passed, failed, out)
	}
	wantOutcomes(t, got, "SKIP", map[string]string{
		"file cache.json":           "not checked: step cache was not run",
		"cache second faster":       "not checked: needs cache.json, and step cache was not run",
		"report copies sources":     "not checked: needs report.json, and step report was not run",
		"cancel task in server log": "not checked: needs cancel.json",
	}, out)
	if got["ttft < total per run"].status != "PASS" || got["file steps.json"].status != "PASS" {
		t.Errorf("ttft's checks did not pass:\n%s", out)
	}
}

// TestFailedStepFails: a step the lab records as failed fails check, also
// when its files were left from an earlier run; a skipped step says why.
func TestFailedStepFails(t *testing.T) {
	files := validFiles()
	files["steps.json"] = stepsJSON(t, artifact.StepPassed, map[string]string{"cache": artifact.StepFailed, "report": artifact.StepSkipped})
	got, _, failed, out := runFolder(t, files, false)
	if failed != 1 || got["step cache"].status != "FAIL" || got["step cache"].msg != "failed in this run: HTTP 500 from the server" {
		t.Errorf("failed %d, step cache = %+v, want the one failure of step cache:\n%s", failed, got["step cache"], out)
	}
	if got["step report"].status != "SKIP" {
		t.Errorf("step report = %+v, want SKIP", got["step report"])
	}
}

// TestPassedStepNeedsItsFiles: steps.json does not excuse a file of a
// step that passed, and a status check knows its four words.
func TestPassedStepNeedsItsFiles(t *testing.T) {
	files := validFiles()
	delete(files, "cache.json")
	files["steps.json"] = stepsJSON(t, artifact.StepPassed, map[string]string{"prefix": "done"})
	got, _, failed, out := runFolder(t, files, false)
	if got["file cache.json"].status != "FAIL" || got["step prefix"].status != "FAIL" || failed != 2 {
		t.Errorf("want file cache.json and step prefix to fail:\n%s", out)
	}
}

// TestNumbersWithoutFloatNoise: a difference of two times the lab wrote
// prints as the decimal it is. Before, 1.1939999999999884.
func TestNumbersWithoutFloatNoise(t *testing.T) {
	if got := num(13.624 - 12.43); got != "1.194" {
		t.Errorf("num(13.624 - 12.43) = %s, want 1.194", got)
	}
	if got := num(215.75); got != "215.75" {
		t.Errorf("num(215.75) = %s", got)
	}
}

// TestArtifactsAreResultsForTheirFiles: the outcomes for a step's files
// are exactly Results' outcomes that concern them, so the lab's verdict on
// a step and check's on the folder cannot differ. A prompt that did not
// grow at all names the template as the likely cause.
func TestArtifactsAreResultsForTheirFiles(t *testing.T) {
	files := validFiles()
	edit(t, files, "prefill.json", `"prompt_n":400`, `"prompt_n":40`)
	edit(t, files, "prefill.json", `"prompt_n":1200`, `"prompt_n":40`)
	dir := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	all := map[string]Outcome{}
	for _, o := range Results(dir, "") {
		all[o.Name] = o
	}
	got := map[string]Outcome{}
	for _, o := range Artifacts(dir, "", []string{"prefill.json"}) {
		got[o.Name] = o
		if o != all[o.Name] {
			t.Errorf("%s: %+v for the file, %+v in the folder", o.Name, o, all[o.Name])
		}
	}
	for _, name := range []string{"file prefill.json", "prefill docs 0,4,12", "prefill prompt_n grows", "prefill ttft grows", "report copies sources"} {
		if _, ok := got[name]; !ok {
			t.Errorf("Artifacts(prefill.json) lacks %q", name)
		}
	}
	for _, name := range []string{"file ttft.json", "ttft runs", "cache second faster", "server kind"} {
		if _, ok := got[name]; ok {
			t.Errorf("Artifacts(prefill.json) has %q, which reads no prefill.json", name)
		}
	}
	const cause = "the prompt did not grow with the documents: does the server's template drop the system message?"
	if o := got["prefill prompt_n grows"]; o.Status != "FAIL" || !strings.Contains(o.Detail, cause) {
		t.Errorf("prefill prompt_n grows = %+v, want FAIL naming the template", o)
	}
	if _, ok := got["cancel task in server log"]; ok {
		t.Errorf("the server log's rule is about cancel.json, not prefill.json")
	}
	found := false
	for _, o := range Artifacts(dir, "", []string{"cancel.json"}) {
		found = found || o.Name == "cancel task in server log"
	}
	if !found {
		t.Errorf("Artifacts(cancel.json) lacks the server log's rule")
	}
}

// TestReportOfWhatWasMeasured: on a server without cached-token counts the
// cache, barge-in and prefix steps are skipped; report.json leaves their
// numbers null and names them in not_measured, and check passes it. A
// number copied from a step that did not measure, or such a step left
// unnamed, fails.
func TestReportOfWhatWasMeasured(t *testing.T) {
	skipped := map[string]string{"cache": artifact.StepSkipped, "bargein": artifact.StepSkipped, "prefix": artifact.StepSkipped}
	report := func(files map[string]string) {
		for _, f := range []string{`"cache_ttft_ms":15`, `"bargein_resumed_ttft_ms":31.2`, `"bargein_cold_ttft_ms":252`, `"prefix_front_prompt_n":473`, `"prefix_last_prompt_n":50`} {
			name, _, _ := strings.Cut(f, ":")
			edit(t, files, "report.json", f, name+":null")
		}
		edit(t, files, "report.json", `"model":`, `"not_measured":{"cache":"skipped: no count","bargein":"skipped: no count","prefix":"skipped: no count"},"model":`)
	}
	files := validFiles()
	for _, f := range []string{"cache.json", "bargein.json", "prefix.json"} {
		delete(files, f)
	}
	files["steps.json"] = stepsJSON(t, artifact.StepPassed, skipped)
	report(files)
	got, _, failed, out := runFolder(t, files, true)
	if failed != 0 || got["report copies sources"].status != "PASS" || !strings.Contains(got["report copies sources"].msg, "not measured: cache, bargein, prefix") {
		t.Fatalf("a report of what was measured: failed %d, report copies sources %+v:\n%s", failed, got["report copies sources"], out)
	}

	unnamed := validFiles()
	for _, f := range []string{"cache.json", "bargein.json", "prefix.json"} {
		delete(unnamed, f)
	}
	unnamed["steps.json"] = files["steps.json"]
	report(unnamed)
	edit(t, unnamed, "report.json", `"cache":"skipped: no count",`, ``)
	edit(t, unnamed, "report.json", `"cache_ttft_ms":null`, `"cache_ttft_ms":15`)
	got, _, _, out = runFolder(t, unnamed, true)
	if o := got["report copies sources"]; o.status != "FAIL" || !strings.Contains(o.msg, "not_measured does not name step cache") {
		t.Errorf("a step left unnamed: %+v\n%s", o, out)
	}

	// A failed step's file is there, but its numbers are not the run's.
	failedRun := validFiles()
	failedRun["steps.json"] = stepsJSON(t, artifact.StepPassed, map[string]string{"prefill": artifact.StepFailed})
	got, _, _, out = runFolder(t, failedRun, true)
	if o := got["report copies sources"]; o.status != "FAIL" || !strings.Contains(o.msg, "ttft_12docs_ms is 215.75 but step prefill did not measure: want null") {
		t.Errorf("numbers copied from a failed step: %+v\n%s", o, out)
	}
}
