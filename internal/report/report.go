// Package report draws one self-contained HTML page for a lab or load
// run, or for two runs side by side: inline SVG charts (gonum/plot), each
// with its numbers in a table, inline CSS for light, dark and print, no
// script and no reference to anything outside the file.
package report

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"ttftlab/internal/artifact"
	"ttftlab/internal/atomicfile"
	"ttftlab/internal/figures"
	"ttftlab/internal/rundir"
)

// Meta is what the page says about itself.
type Meta struct {
	// Version is the ttftlab version drawing the page.
	Version string
	// ServerLog is llama-server's log of the run, for check's cancel rule
	// ("" when unknown).
	ServerLog string
	// Seed is the bootstrap's seed of a comparison's intervals (the
	// command line's default is DefaultSeed).
	Seed uint64
	// Interleaved says that the two folders compared are the two sides
	// of one run that interleaved them (`ttftlab ab`: each step's
	// repetitions in the order A B B A), so a drift of the machine fell
	// on both alike; false for two runs made separately, whose drift
	// between them no interval covers.
	Interleaved bool
}

// FileName is the report's name in a run folder.
const FileName = "report.html"

// Write draws the page of the run in dirs[0], or the comparison of
// dirs[0] (A) and dirs[1] (B), into out ("" means FileName in dirs[0];
// for a comparison, in B's folder, as compare.html), written atomically.
// A comparison also writes its verdicts beside the page (Drawn). It
// returns the path of the page.
func Write(out string, meta Meta, dirs ...string) (string, error) {
	d, err := Draw(out, meta, dirs...)
	return d.Path, err
}

// Drawn is what Draw wrote.
type Drawn struct {
	// Path is the HTML page.
	Path string
	// ComparePath is compare.json beside a comparison's page (the page's
	// name with .json for .html), and Compare its content; "" and nil for
	// a single folder.
	ComparePath string
	Compare     *artifact.Compare
}

// Draw is Write, saying what it wrote.
func Draw(out string, meta Meta, dirs ...string) (Drawn, error) {
	p, c, err := build(meta, dirs...)
	if err != nil {
		return Drawn{}, err
	}
	html, err := p.render()
	if err != nil {
		return Drawn{}, err
	}
	if out == "" {
		out = DefaultOut(dirs...)
	}
	d := Drawn{Path: out, Compare: c}
	if c != nil {
		d.ComparePath = strings.TrimSuffix(out, filepath.Ext(out)) + ".json"
		if d.ComparePath == out {
			d.ComparePath = out + ".json"
		}
		data, err := json.MarshalIndent(c, "", "  ")
		if err != nil {
			return Drawn{}, fmt.Errorf("writing the verdicts: %w", err)
		}
		if err := atomicfile.Write(d.ComparePath, append(data, '\n'), 0o644); err != nil {
			return Drawn{}, fmt.Errorf("writing the verdicts %s: %w (choose another page with --out; they go beside it)", d.ComparePath, err)
		}
	}
	if err := atomicfile.Write(out, html, 0o644); err != nil {
		return Drawn{}, fmt.Errorf("writing the report %s: %w (choose another file with --out)", out, err)
	}
	return d, nil
}

// DefaultOut is where Write puts the page when out is "".
func DefaultOut(dirs ...string) string {
	if len(dirs) == 2 {
		return filepath.Join(dirs[1], "compare.html")
	}
	return filepath.Join(dirs[0], FileName)
}

// Render is the page's HTML for one run folder or two.
func Render(meta Meta, dirs ...string) ([]byte, error) {
	p, _, err := build(meta, dirs...)
	if err != nil {
		return nil, err
	}
	return p.render()
}

// build reads the folders and makes the page, and of two folders the
// verdicts.
func build(meta Meta, dirs ...string) (*page, *artifact.Compare, error) {
	if len(dirs) != 1 && len(dirs) != 2 {
		return nil, nil, fmt.Errorf("a report shows one run or compares two; got %d folders", len(dirs))
	}
	runs := make([]run, len(dirs))
	for i, d := range dirs {
		r, err := readRun(d, meta)
		if err != nil {
			return nil, nil, err
		}
		runs[i] = r
	}
	if len(runs) == 1 {
		return runs[0].page(meta), nil, nil
	}
	a, b := runs[0], runs[1]
	if a.kind != b.kind {
		return nil, nil, fmt.Errorf("cannot compare a %s run (%s) with a %s run (%s): pass two lab folders or two load folders",
			a.kind, a.dir(), b.kind, b.dir())
	}
	c := compare(a, b, meta)
	return comparePage(meta, a, b, c), c, nil
}

// run is one folder read: a lab run or a load run, or a folder of
// repeated runs (--runs N), whose sections are its last run's.
type run struct {
	kind rundir.Kind
	lab  *rundir.Lab
	load *rundir.Load
	// version is the ttftlab drawing the page, for the summary.
	version string
	// top is the folder given; repeated are its runs (run-1 ... run-N),
	// nil for a single run. lab or load is then the last run.
	top      string
	repeated []string
	// perRun are the timed figures of each run with their samples (one
	// entry for a single run); capacities each load run's capacity level
	// (nil where none held).
	perRun     [][]figures.Sample
	capacities []*float64
}

func readRun(dir string, meta Meta) (run, error) {
	kind, dirs, err := rundir.DetectRuns(dir)
	if err != nil {
		return run{}, err
	}
	r := run{kind: kind, version: meta.Version, top: dir}
	if len(dirs) > 1 || dirs[0] != dir {
		r.repeated = dirs
	}
	for _, d := range dirs {
		if kind == rundir.KindLoad {
			r.load = rundir.ReadLoad(d)
			var c *float64
			if r.load.Capacity != nil {
				c = &r.load.Capacity.Level
			}
			r.capacities = append(r.capacities, c)
		} else {
			r.lab = rundir.ReadLab(d, meta.ServerLog)
		}
		r.perRun = append(r.perRun, r.samples())
	}
	return r, nil
}

func (r run) dir() string {
	if r.repeated != nil {
		return r.top
	}
	if r.lab != nil {
		return r.lab.Dir
	}
	return r.load.Dir
}

// modelName is the model the run's files name, "" when they name none.
func (r run) modelName() string {
	if r.lab != nil {
		return labModel(r.lab)
	}
	return loadModel(r.load)
}

func (r run) model() string {
	if r.lab != nil {
		return runName(labModel(r.lab), r.dir())
	}
	return runName(loadModel(r.load), r.dir())
}

// sections are the run's sections; of a repeated run, its last run's,
// after the figures pooled over every run and their spread.
func (r run) sections() []section {
	var secs []section
	if r.lab != nil {
		secs = labSections(r.lab, r.version)
	} else {
		secs = loadSections(r.load, r.version)
	}
	if r.repeated != nil {
		return append(r.runsSections(), secs...)
	}
	return withIntervals(secs, intervalsSection(figures.Pool(r.perRun), 1))
}

// strip is the headline: the figures that opens the run's page.
func (r run) strip() []headline {
	if r.repeated != nil {
		return r.runsHeadline()
	}
	if r.lab != nil {
		return labHeadline(r.lab)
	}
	return loadHeadline(r.load)
}

// page is the run's own page.
func (r run) page(meta Meta) *page {
	title := fmt.Sprintf("ttftlab %s run: %s", r.kind, r.model())
	if r.repeated != nil {
		title = fmt.Sprintf("ttftlab %s run repeated %d times: %s", r.kind, len(r.repeated), r.model())
	}
	p := &page{Title: title, Sections: r.sections(), Columns: 1, Headline: r.strip()}
	finished := r.finished()
	p.Subtitle = []string{
		"folder " + absDir(r.dir()),
		"run finished " + stamp(finished) + " (its newest file)",
	}
	if r.repeated != nil {
		p.Subtitle[1] = "last run finished " + stamp(finished) + " (its newest file)"
	}
	p.Footer = "Drawn by ttftlab " + meta.Version + ". Self-contained: no script, font or image is loaded from anywhere."
	return p
}

func (r run) finished() time.Time {
	if r.lab != nil {
		return r.lab.Finished
	}
	return r.load.Finished
}

func absDir(d string) string {
	if a, err := filepath.Abs(d); err == nil {
		return a
	}
	return d
}
