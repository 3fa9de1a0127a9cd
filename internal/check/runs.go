package check

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"ttftlab/internal/artifact"
)

// Folder is what the check of a folder needs to know that the caller
// reads (package rundir, above this one): the runs of a folder made with
// --runs N, and the figures of a run, which runs.json must pool.
type Folder struct {
	// Runs are dir/run-1 ... dir/run-N, nil for a single run; RunsErr
	// is why they could not be listed (a run is missing).
	Runs    []string
	RunsErr error
	// Figures names the figures of the run in dir, of kind "lab" or
	// "load" (rundir's Samples).
	Figures func(kind, dir string) []string
}

// FolderResults checks dir: a single lab run (Results) or load run
// (load.json decodes strictly, no level failed every request), or every run of
// a folder made with --runs N, each check named by its run ("run-2: step
// ttft"); then runs.json, when the folder has one (a --runs folder must):
// it decodes strictly as artifact.Runs, names its runs, and has a figure
// for each figure of its runs.
func FolderResults(dir, serverLog string, f Folder) []Outcome {
	if err := checkFolder(dir); err != nil {
		return []Outcome{outcome("output folder", err, "")}
	}
	var out []Outcome
	if f.Runs == nil && f.RunsErr == nil {
		if _, err := os.Stat(filepath.Join(dir, loadFile)); err == nil {
			out = loadResults(dir)
		} else {
			out = Results(dir, serverLog)
		}
		if _, err := os.Stat(filepath.Join(dir, artifact.RunsFile)); err == nil {
			runs, o := readRuns(dir)
			out = append(out, o)
			if runs != nil {
				out = append(out, figuresOutcome(dir, runs, f.Figures))
			}
		}
		return out
	}
	if f.RunsErr != nil {
		out = append(out, outcome("runs", f.RunsErr, ""))
	}
	runs, o := readRuns(dir)
	kind := ""
	var pooled []string
	if runs != nil {
		kind, pooled = runs.Kind, runs.Dirs
	}
	for _, run := range f.Runs {
		name := filepath.Base(run)
		if runs != nil && !slices.Contains(pooled, name) {
			out = append(out, outcome(name, skip("not pooled in %s (stopped before it finished, or left from an earlier run): not checked", artifact.RunsFile), ""))
			continue
		}
		k := kind
		if k == "" {
			k = "lab"
			if _, err := os.Stat(filepath.Join(run, loadFile)); err == nil {
				k = "load"
			}
		}
		var rs []Outcome
		if k == "load" {
			rs = loadResults(run)
		} else {
			rs = Results(run, serverLog)
		}
		for _, r := range rs {
			r.Name = name + ": " + r.Name
			out = append(out, r)
		}
	}
	out = append(out, o)
	if runs != nil {
		for _, d := range pooled {
			if !slices.ContainsFunc(f.Runs, func(r string) bool { return filepath.Base(r) == d }) {
				out = append(out, outcome(artifact.RunsFile+" dirs", fmt.Errorf("it pools %s, which the folder does not hold", d), ""))
			}
		}
		out = append(out, figuresOutcome(dir, runs, f.Figures))
	}
	return out
}

// readRuns decodes dir/runs.json strictly.
func readRuns(dir string) (*artifact.Runs, Outcome) {
	name := "file " + artifact.RunsFile
	path := filepath.Join(dir, artifact.RunsFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, outcome(name, fmt.Errorf("%s is missing; a folder of repeated runs pools them there", path), "")
	}
	if err != nil {
		return nil, outcome(name, fmt.Errorf("cannot read %s: %w", path, err), "")
	}
	var runs artifact.Runs
	if err := artifact.DecodeStrict(data, &runs); err != nil {
		return nil, outcome(name, fmt.Errorf("%s: %w", path, err), "")
	}
	if runs.Kind != "lab" && runs.Kind != "load" {
		return nil, outcome(name, fmt.Errorf("%s: kind %q is neither lab nor load", path, runs.Kind), "")
	}
	return &runs, outcome(name, nil, fmt.Sprintf("%s, %d run(s), %d figures", runs.Kind, len(runs.Dirs), len(runs.Figures)))
}

// figuresOutcome checks that runs.json has a figure for each figure of
// its runs, each over no more runs than it pools, with every percentile
// and the mean inside its interval.
func figuresOutcome(dir string, runs *artifact.Runs, names func(kind, dir string) []string) Outcome {
	const name = "runs.json figures"
	by := map[string]artifact.Figure{}
	for _, f := range runs.Figures {
		by[f.Name] = f
	}
	var problems []string
	want := 0
	if names != nil {
		seen := map[string]bool{}
		for _, d := range runs.Dirs {
			for _, n := range names(runs.Kind, filepath.Join(dir, d)) {
				if seen[n] {
					continue
				}
				seen[n] = true
				want++
				if _, ok := by[n]; !ok {
					problems = append(problems, fmt.Sprintf("no figure %q of %s", n, d))
				}
			}
		}
	}
	for _, f := range runs.Figures {
		if f.Runs < 1 || f.Runs > len(runs.Dirs) || f.N < f.Runs || f.Failed > f.N {
			problems = append(problems, fmt.Sprintf("%s: n %d, runs %d, failed %d over %d run folders", f.Name, f.N, f.Runs, f.Failed, len(runs.Dirs)))
		}
		for _, s := range []struct {
			what string
			v    *float64
			ci   *[2]float64
		}{{"p50", f.P50, f.P50CI}, {"p95", f.P95, f.P95CI}, {"p99", f.P99, f.P99CI}, {"mean", f.Mean, f.MeanCI}} {
			if s.v != nil && s.ci != nil && (*s.v < s.ci[0] || *s.v > s.ci[1]) {
				problems = append(problems, fmt.Sprintf("%s: %s %g outside its interval [%g, %g]", f.Name, s.what, *s.v, s.ci[0], s.ci[1]))
			}
		}
	}
	if len(problems) > 0 {
		return outcome(name, errors.New(strings.Join(problems, "; ")), "")
	}
	return outcome(name, nil, fmt.Sprintf("%d figures, each of the %d the runs measured", len(runs.Figures), want))
}

// loadFile is a load run's record (artifact.Load).
const loadFile = "load.json"

// loadResults checks a load run's folder: load.json decodes strictly as
// its record, requests.jsonl too, line by line, its rows and load.json's
// levels agree (rowsOutcome), and every level measured a request and not
// every one failed.
func loadResults(dir string) []Outcome {
	name := "file " + loadFile
	path := filepath.Join(dir, loadFile)
	data, err := os.ReadFile(path)
	if err != nil {
		return []Outcome{outcome(name, fmt.Errorf("cannot read %s: %w", path, err), "")}
	}
	var doc artifact.Load
	if err := artifact.DecodeStrict(data, &doc); err != nil {
		return []Outcome{outcome(name, fmt.Errorf("%s: %w", path, err), "")}
	}
	out := []Outcome{outcome(name, nil, fmt.Sprintf("%d level(s)", len(doc.Levels)))}
	out = append(out, rowsOutcome(dir, doc))
	for _, lv := range doc.Levels {
		s := lv.Summary
		var err error
		switch {
		case lv.Interrupted:
			// Stopped in this level: its requests, if any ended, are what
			// the stop left, canceled ones counted as failed; the detail
			// says so.
		case s.Requests == 0:
			err = fmt.Errorf("no request was measured (none started, or every one was warm-up): the level has no figure")
		case s.Failed == s.Requests:
			err = fmt.Errorf("every request failed (%d of %d)", s.Failed, s.Requests)
		}
		detail := fmt.Sprintf("%d of %d requests ok", s.Requests-s.Failed, s.Requests)
		if lv.Interrupted {
			detail += "; interrupted: the run was stopped in this level, whose figures are over the requests that ended before the stop"
		}
		out = append(out, outcome(fmt.Sprintf("level %g", lv.Level), err, detail))
	}
	return out
}

// requestsFile holds a load run's rows (artifact.LoadRequest), one line
// each.
const requestsFile = "requests.jsonl"

// rowsOutcome checks requests.jsonl against load.json: every line
// decodes strictly (a line cut by a full disk is named by its number),
// every level the rows ran has a record (a run that stopped in a level
// gets one, marked interrupted), and each record counts the requests of
// its rows, warm-up apart. A search runs a level again to confirm it
// while its record stays the first round's: there the rows may be more.
// No requests.jsonl is no row.
func rowsOutcome(dir string, doc artifact.Load) Outcome {
	name := "file " + requestsFile
	path := filepath.Join(dir, requestsFile)
	var rows []artifact.LoadRequest
	f, err := os.Open(path)
	switch {
	case err == nil:
		rows, err = artifact.ReadLoadRequests(f)
		f.Close()
		if err != nil {
			return outcome(name, fmt.Errorf("%s: %w", path, err), "")
		}
	case !errors.Is(err, os.ErrNotExist):
		return outcome(name, fmt.Errorf("cannot read %s: %w", path, err), "")
	}
	type count struct{ requests, warmup int }
	by := map[float64]*count{}
	var order []float64
	for _, r := range rows {
		c := by[r.Level]
		if c == nil {
			c = &count{}
			by[r.Level] = c
			order = append(order, r.Level)
		}
		if r.Warmup {
			c.warmup++
		} else {
			c.requests++
		}
	}
	var problems []string
	recorded := map[float64]bool{}
	for _, lv := range doc.Levels {
		recorded[lv.Level] = true
		c, s := by[lv.Level], lv.Summary
		if c == nil {
			c = &count{}
		}
		// The transient before the steady window is left out of the
		// level's requests, and counted beside them.
		counted := s.Requests
		if w := lv.SteadyWindow; w != nil {
			counted += w.LeftOut
		}
		more := doc.Settings.SearchMax > 0 && c.requests >= counted && c.warmup >= s.Warmup
		if (c.requests != counted || c.warmup != s.Warmup) && !more {
			problems = append(problems, fmt.Sprintf("level %g counts %d requests (%d warm-up), but %s has %d rows of it (%d warm-up)",
				lv.Level, counted, s.Warmup, requestsFile, c.requests+c.warmup, c.warmup))
		}
	}
	for _, l := range order {
		if !recorded[l] {
			problems = append(problems, fmt.Sprintf("%s has %d rows of level %g, which %s has no record of (a run that stops in a level records it, marked interrupted)",
				requestsFile, by[l].requests+by[l].warmup, l, loadFile))
		}
	}
	if len(problems) > 0 {
		return outcome(name, fmt.Errorf("%s", strings.Join(problems, "; ")), "")
	}
	return outcome(name, nil, fmt.Sprintf("%d rows, as %s's levels count them", len(rows), loadFile))
}

// RunFolder is FolderResults written to w as Run writes Results.
func RunFolder(dir, serverLog string, f Folder, w io.Writer) (passed, failed int) {
	return write(FolderResults(dir, serverLog, f), w)
}
