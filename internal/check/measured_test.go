package check

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"ttftlab/internal/artifact"
)

// TestUnmeasured: the steps report.json leaves null, in its order, with
// why: a failed step (the first line of its detail, even when its file
// is there), a skipped one, one whose file is not there though it passed;
// without steps.json, every file not there. The lab's report step writes
// not_measured from it and check holds report.json to the same rule.
func TestUnmeasured(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"ttft.json", "prefill.json", "cache.json", "sentence.json", "cancel.json", "prefix.json", "audio.json"} {
		write(f, "{}")
	}
	got, err := Unmeasured(dir)
	if err != nil || len(got) != 1 || got[0] != (NotMeasured{Step: "bargein", Why: "bargein.json is not in " + dir}) {
		t.Fatalf("without steps.json: %+v, %v; want bargein alone, its file not there", got, err)
	}
	write("bargein.json", "{}")
	if err := os.Remove(filepath.Join(dir, "sentence.json")); err != nil {
		t.Fatal(err)
	}
	write("steps.json", stepsJSON(t, artifact.StepPassed, map[string]string{"cache": artifact.StepSkipped, "prefill": artifact.StepFailed}))
	got, err = Unmeasured(dir)
	want := []NotMeasured{
		{Step: "prefill", Why: "failed: HTTP 500 from the server"},
		{Step: "cache", Why: "skipped: "},
		{Step: "sentence", Why: "sentence.json is not in " + dir},
	}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("with steps.json: %+v, %v; want %+v", got, err, want)
	}
	write("steps.json", `{"steps": 3}`)
	if _, err := Unmeasured(dir); err == nil {
		t.Errorf("a steps.json of the wrong shape gave no error")
	}
}
