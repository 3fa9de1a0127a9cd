// Package check verifies a lab output folder: every file is there with the
// expected fields, and the measurements agree with each other and with what
// streaming, prompt caching and cancellation must look like.
//
// Each check prints one line, "PASS name", "FAIL name: why" or
// "SKIP name: why" (skipped when a file it needs is missing or broken, which
// has already failed on its own line), or "WARN name: why" (the rule holds,
// but the figures it read mean less than they seem: a garbled transcript),
// then a summary "N passed, M failed".
package check

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"ttftlab/internal/artifact"
)

// lab holds the decoded output folder.
type lab struct {
	dir       string
	serverLog string
	// shown is what the check running now reports when it passes.
	shown string
	// loaded says which files were read and well-formed.
	loaded map[string]bool

	server   artifact.ServerKind
	health   artifact.Health
	sse      sseStream
	chunks   []artifact.Chunk
	ttft     artifact.TTFT
	prefill  []artifact.PrefillRow
	cache    artifact.Cache
	sentence artifact.Sentence
	cancel   artifact.Cancel
	bargein  artifact.Bargein
	prefix   artifact.Prefix
	audio    artifact.Audio
	call     artifact.Call
	realtime artifact.Realtime
	report   artifact.Report
	props    artifact.Props
	// steps is steps.json, when the lab wrote one: which steps ran.
	steps *artifact.Steps
	// notWritten are the files this run's steps were not meant to write
	// (their step was not run or was skipped), with why.
	notWritten map[string]string
}

// outputFiles are the files the lab writes, in the order they are checked,
// with their decoders.
var outputFiles = []struct {
	name string
	load func(l *lab, data []byte) error
}{
	{artifact.ServerFile, record(func(l *lab) any { return &l.server })},
	{artifact.HealthFile, record(func(l *lab) any { return &l.health })},
	{artifact.PropsFile, record(func(l *lab) any { return &l.props })},
	{artifact.SSEFile, (*lab).loadSSE},
	{artifact.ChunksFile, (*lab).loadChunks},
	{artifact.TTFTFile, record(func(l *lab) any { return &l.ttft })},
	{artifact.PrefillFile, record(func(l *lab) any { return &l.prefill })},
	{artifact.CacheFile, record(func(l *lab) any { return &l.cache })},
	{artifact.SentenceFile, record(func(l *lab) any { return &l.sentence })},
	{artifact.CancelFile, record(func(l *lab) any { return &l.cancel })},
	{artifact.BargeinFile, (*lab).loadBargein},
	{artifact.PrefixFile, (*lab).loadPrefix},
	{artifact.AudioFile, record(func(l *lab) any { return &l.audio })},
	{artifact.CallFile, record(func(l *lab) any { return &l.call })},
	{artifact.RealtimeFile, record(func(l *lab) any { return &l.realtime })},
	{artifact.ReportFile, record(func(l *lab) any { return &l.report })},
}

// record decodes a file into the lab's record for it, held to the
// record's shape (artifact.Decode).
func record(field func(*lab) any) func(*lab, []byte) error {
	return func(l *lab, data []byte) error { return artifact.Decode(data, field(l)) }
}

func (l *lab) loadSSE(data []byte) error {
	if len(data) == 0 {
		return errors.New("the file is empty")
	}
	api := ""
	if l.steps != nil {
		api = l.steps.API
	}
	s, err := parseSSE(data, api)
	l.sse = s
	return err
}

func (l *lab) loadChunks(data []byte) error {
	c, err := parseChunks(data)
	l.chunks = c
	return err
}

// rule is one check. It returns nil to pass, a skipError to skip, any other
// error to fail. needs lists the files it reads.
type rule struct {
	name  string
	needs []string
	run   func(l *lab) error
}

// alsoAbout are the files a rule reads beyond its needs (files it reads
// when they are there), so Artifacts runs it when one of them was written.
var alsoAbout = map[string][]string{
	"cancel task in server log": {artifact.CancelFile},
	"server kind":               {artifact.PropsFile, artifact.ReportFile},
	"report copies sources":     reportSources,
}

// about is every file the rule reads.
func (r rule) about() []string {
	return append(append([]string(nil), r.needs...), alsoAbout[r.name]...)
}

// skipError marks a check that does not apply to this folder.
type skipError struct{ why string }

func (e skipError) Error() string { return e.why }

func skip(format string, args ...any) error {
	return skipError{fmt.Sprintf(format, args...)}
}

// warnError marks a check that holds but whose figures mean less than
// they seem; it is no failure.
type warnError struct{ why string }

func (e warnError) Error() string { return e.why }

func warn(format string, args ...any) error {
	return warnError{fmt.Sprintf(format, args...)}
}

// Outcome is the result of one check.
type Outcome struct {
	Name string
	// Status is "PASS", "FAIL", "SKIP" or "WARN" (no failure).
	Status string
	// Detail says what was found: the values a check compared when it
	// passed, what is wrong when it failed, why it did not apply.
	Detail string
}

// Line is the outcome as check prints it: "FAIL name: why".
func (o Outcome) Line() string {
	if o.Detail == "" {
		return o.Status + " " + o.Name
	}
	return o.Status + " " + o.Name + ": " + o.Detail
}

func outcome(name string, err error, shown string) Outcome {
	var s skipError
	var w warnError
	switch {
	case err == nil:
		return Outcome{Name: name, Status: "PASS", Detail: shown}
	case errors.As(err, &s):
		return Outcome{Name: name, Status: "SKIP", Detail: s.why}
	case errors.As(err, &w):
		return Outcome{Name: name, Status: "WARN", Detail: w.why}
	}
	return Outcome{Name: name, Status: "FAIL", Detail: err.Error()}
}

// Results checks the lab output in outDir. serverLog, when not empty, is
// llama-server's log from the lab run: it must show that the server
// cancelled the cut request, in the lines this run wrote.
//
// When the folder has a steps.json, a step that failed fails here too, and
// the files of a step that was not run or was skipped are not required:
// their checks are skipped, saying so, so a partial run's folder passes.
func Results(outDir, serverLog string) []Outcome {
	var out []Outcome
	for _, o := range results(outDir, serverLog) {
		out = append(out, o.Outcome)
	}
	return out
}

// Artifacts is the part of Results that concerns the named files: each
// file's own check and every rule that reads one of them, in Results'
// order, the same outcomes Results gives for them. The lab runs it after
// each step on the step's files, so a step passes only when check would
// pass what it wrote.
func Artifacts(outDir, serverLog string, files []string) []Outcome {
	want := map[string]bool{}
	for _, f := range files {
		want[f] = true
	}
	var out []Outcome
	for _, o := range results(outDir, serverLog) {
		for _, f := range o.about {
			if want[f] {
				out = append(out, o.Outcome)
				break
			}
		}
	}
	return out
}

// scoped is an outcome with the files it is about.
type scoped struct {
	Outcome
	about []string
}

func results(outDir, serverLog string) []scoped {
	if err := checkFolder(outDir); err != nil {
		return []scoped{{outcome("output folder", err, ""), nil}}
	}
	l := &lab{dir: outDir, serverLog: serverLog, loaded: map[string]bool{}, notWritten: map[string]string{}}
	var out []scoped
	for _, o := range l.readSteps() {
		out = append(out, scoped{o, nil})
	}
	l.unlisted()
	for _, f := range outputFiles {
		if why, ok := l.notWritten[f.name]; ok && !l.exists(f.name) {
			out = append(out, scoped{outcome("file "+f.name, skip("not checked: %s", why), ""), []string{f.name}})
			continue
		}
		err := l.loadFile(f.name, f.load)
		l.loaded[f.name] = err == nil
		out = append(out, scoped{outcome("file "+f.name, err, ""), []string{f.name}})
	}
	for _, r := range rules() {
		l.shown = ""
		err := l.apply(r)
		out = append(out, scoped{outcome(r.name, err, l.shown), r.about()})
	}
	return out
}

// readSteps reads steps.json, when there is one, into l.steps and
// l.notWritten, and returns its outcome and one per step that did not pass.
func (l *lab) readSteps() []Outcome {
	if !l.exists(artifact.StepsFile) {
		return nil
	}
	var steps artifact.Steps
	err := l.loadFile(artifact.StepsFile, record(func(*lab) any { return &steps }))
	out := []Outcome{outcome("file "+artifact.StepsFile, err, "")}
	if err != nil {
		return out
	}
	l.steps = &steps
	for _, st := range steps.Steps {
		var why string
		switch st.Status {
		case artifact.StepPassed:
			continue
		case artifact.StepFailed:
			out = append(out, outcome("step "+st.Name, fmt.Errorf("failed in this run: %s", firstLine(st.Detail)), ""))
			continue
		case artifact.StepSkipped:
			why = fmt.Sprintf("step %s was skipped (%s)", st.Name, firstLine(st.Detail))
			out = append(out, outcome("step "+st.Name, skip("skipped in this run: %s", firstLine(st.Detail)), ""))
		case artifact.StepNotRun:
			why = fmt.Sprintf("step %s was not run", st.Name)
		default:
			out = append(out, outcome("step "+st.Name, fmt.Errorf("status %q is none of passed, failed, skipped, not run", st.Status), ""))
			continue
		}
		for _, a := range st.Artifacts {
			l.notWritten[a] = why
		}
	}
	return out
}

// unlisted marks the files no step of steps.json lists as not written:
// a step that passed without a file its server cannot give (props.json on
// a server without /props) drops it from its list. A folder without
// steps.json predates server.json.
func (l *lab) unlisted() {
	if l.steps == nil {
		l.notWritten[artifact.ServerFile] = "the folder has no steps.json (written before the lab recorded the server's kind)"
		l.notWritten[artifact.AudioFile] = "the folder has no steps.json (written before the lab had an audio step)"
		l.notWritten[artifact.CallFile] = "the folder has no steps.json (written before the lab had a call step)"
		l.notWritten[artifact.RealtimeFile] = "the folder has no steps.json (written before the lab had a realtime step)"
		return
	}
	for _, f := range outputFiles {
		if _, ok := l.steps.Of(f.name); !ok {
			if _, known := l.notWritten[f.name]; !known {
				l.notWritten[f.name] = "no step of steps.json lists it (its server cannot give it; server.json names the kind)"
			}
		}
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// unusable is the skip of a check that needs file when the file failed to
// load or was not written in this run; nil when the file is there.
func (l *lab) unusable(file string) error {
	switch why, ok := l.notWritten[file]; {
	case l.loaded[file]:
		return nil
	case ok:
		return skip("not checked: needs %s, and %s", file, why)
	}
	return skip("needs %s, which failed above", file)
}

func (l *lab) exists(name string) bool {
	_, err := os.Stat(filepath.Join(l.dir, name))
	return err == nil
}

// Run is Results written to w, one line per check ("PASS name: values",
// "FAIL name: why", "SKIP name: why", "WARN name: why"), then a summary.
func Run(outDir, serverLog string, w io.Writer) (passed, failed int) {
	return write(Results(outDir, serverLog), w)
}

// write prints outcomes one per line, then the summary.
func write(outcomes []Outcome, w io.Writer) (passed, failed int) {
	skipped, warned := 0, 0
	for _, o := range outcomes {
		fmt.Fprintln(w, o.Line())
		switch o.Status {
		case "PASS":
			passed++
		case "FAIL":
			failed++
		case "WARN":
			warned++
		default:
			skipped++
		}
	}
	summary := fmt.Sprintf("%d passed, %d failed", passed, failed)
	if skipped > 0 {
		summary += fmt.Sprintf(", %d skipped", skipped)
	}
	if warned > 0 {
		summary += fmt.Sprintf(", %d with a warning", warned)
	}
	fmt.Fprintln(w, summary)
	return passed, failed
}

// pass records what a passing check looked at and returns nil.
func (l *lab) pass(format string, args ...any) error {
	l.shown = fmt.Sprintf(format, args...)
	return nil
}

func checkFolder(dir string) error {
	info, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("cannot open %s: %w; run the lab with this output folder first", dir, err)
	}
	if !info.IsDir() {
		return fmt.Errorf("%s is a file; pass the folder the lab wrote", dir)
	}
	return nil
}

func (l *lab) loadFile(name string, load func(*lab, []byte) error) error {
	path := filepath.Join(l.dir, name)
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%s is missing; did the lab step that writes it fail?", path)
	}
	if err != nil {
		return fmt.Errorf("cannot read %s: %w", path, err)
	}
	if err := load(l, data); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// apply runs r unless a file it needs failed to load or was not written
// in this run.
func (l *lab) apply(r rule) error {
	for _, f := range r.needs {
		if err := l.unusable(f); err != nil {
			return err
		}
	}
	return r.run(l)
}

// rules lists every check after the file checks, in output order.
func rules() []rule {
	var all []rule
	for _, group := range [][]rule{streamRules, timingRules, cancelRules, voiceRules, audioRules, callRules, realtimeRules, reportRules} {
		all = append(all, group...)
	}
	return all
}
