// Package report draws one self-contained HTML page for a lab or load
// run, or for two runs side by side: inline SVG charts (gonum/plot), each
// with its numbers in a table, inline CSS for light, dark and print, no
// script and no reference to anything outside the file.
package report

import (
	"fmt"
	"path/filepath"
	"time"

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
}

// FileName is the report's name in a run folder.
const FileName = "report.html"

// Write draws the page of the run in dirs[0], or the comparison of
// dirs[0] (A) and dirs[1] (B), into out ("" means FileName in dirs[0];
// for a comparison, in B's folder, as compare.html), written atomically.
// It returns the path written.
func Write(out string, meta Meta, dirs ...string) (string, error) {
	html, err := Render(meta, dirs...)
	if err != nil {
		return "", err
	}
	if out == "" {
		out = DefaultOut(dirs...)
	}
	if err := atomicfile.Write(out, html, 0o644); err != nil {
		return "", fmt.Errorf("writing the report %s: %w (choose another file with --out)", out, err)
	}
	return out, nil
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
	if len(dirs) != 1 && len(dirs) != 2 {
		return nil, fmt.Errorf("a report shows one run or compares two; got %d folders", len(dirs))
	}
	runs := make([]run, len(dirs))
	for i, d := range dirs {
		r, err := readRun(d, meta)
		if err != nil {
			return nil, err
		}
		runs[i] = r
	}
	var p *page
	if len(runs) == 1 {
		p = runs[0].page(meta)
	} else {
		var err error
		if p, err = comparePage(meta, runs[0], runs[1]); err != nil {
			return nil, err
		}
	}
	return p.render()
}

// run is one folder read: a lab run or a load run.
type run struct {
	kind rundir.Kind
	lab  *rundir.Lab
	load *rundir.Load
	// version is the ttftlab drawing the page, for the summary.
	version string
}

func readRun(dir string, meta Meta) (run, error) {
	kind, err := rundir.Detect(dir)
	if err != nil {
		return run{}, err
	}
	if kind == rundir.KindLoad {
		return run{kind: kind, load: rundir.ReadLoad(dir), version: meta.Version}, nil
	}
	return run{kind: kind, lab: rundir.ReadLab(dir, meta.ServerLog), version: meta.Version}, nil
}

func (r run) dir() string {
	if r.lab != nil {
		return r.lab.Dir
	}
	return r.load.Dir
}

func (r run) model() string {
	if r.lab != nil {
		return runName(labModel(r.lab), r.lab.Dir)
	}
	return runName(loadModel(r.load), r.load.Dir)
}

func (r run) sections() []section {
	var secs []section
	if r.lab != nil {
		secs = labSections(r.lab, r.version)
	} else {
		secs = loadSections(r.load, r.version)
	}
	return withIntervals(secs, intervalsSection(figures.Pool([][]figures.Sample{r.samples()}), 1))
}

// strip is the headline: the figures that opens the run's page.
func (r run) strip() []headline {
	if r.lab != nil {
		return labHeadline(r.lab)
	}
	return loadHeadline(r.load)
}

// page is the run's own page.
func (r run) page(meta Meta) *page {
	p := &page{Title: fmt.Sprintf("ttftlab %s run: %s", r.kind, r.model()), Sections: r.sections(), Columns: 1, Headline: r.strip()}
	finished := r.finished()
	p.Subtitle = []string{
		"folder " + absDir(r.dir()),
		"run finished " + stamp(finished) + " (its newest file)",
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
