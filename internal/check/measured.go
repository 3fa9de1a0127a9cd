package check

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"ttftlab/internal/artifact"
)

// NotMeasured is a step whose numbers report.json copies that did not
// measure in a run, with why: "skipped: reason" or "failed: reason" (the
// first line of steps.json's detail), or "FILE is not in DIR" for a step
// that left no file.
type NotMeasured struct {
	Step, Why string
}

// Unmeasured lists, in report.json's order (ttft, prefill, cache,
// sentence, cancel, bargein, prefix, audio), the steps whose numbers
// report.json copies that did not measure in the run whose folder is
// dir, by the rule check holds report.json to (whyNotMeasured): the lab's
// report step leaves their numbers null and names them in not_measured.
// dir's steps.json, when there is one, says how each step ended; an error
// is one reading it.
func Unmeasured(dir string) ([]NotMeasured, error) {
	steps, err := readStepsFile(dir)
	if err != nil {
		return nil, err
	}
	var out []NotMeasured
	for _, file := range reportSources {
		if why, _ := whyNotMeasured(steps, dir, file); why != "" {
			out = append(out, NotMeasured{Step: strings.TrimSuffix(file, ".json"), Why: why})
		}
	}
	return out, nil
}

// readStepsFile is dir's steps.json, nil when there is none.
func readStepsFile(dir string) (*artifact.Steps, error) {
	data, err := os.ReadFile(filepath.Join(dir, artifact.StepsFile))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var s artifact.Steps
	if err := artifact.Decode(data, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", artifact.StepsFile, err)
	}
	return &s, nil
}

// whyNotMeasured is the one rule of whether the step that writes file (a
// file report.json copies from) measured in the run whose folder is dir:
// "" when it did, else why not. It did not when steps.json (steps, nil
// without one) says it failed or was skipped, or else when its file is
// not there (not run, not written, or a folder of steps run alone);
// missing says it is the latter.
func whyNotMeasured(steps *artifact.Steps, dir, file string) (why string, missing bool) {
	if steps != nil {
		if st, ok := steps.Of(file); ok && (st.Status == artifact.StepFailed || st.Status == artifact.StepSkipped) {
			return st.Status + ": " + firstLine(st.Detail), false
		}
	}
	if _, err := os.Stat(filepath.Join(dir, file)); err != nil {
		return file + " is not in " + dir, true
	}
	return "", false
}
