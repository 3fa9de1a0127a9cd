package report

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"ttftlab/internal/rundir"
)

// repeated makes a folder of repeated runs as --runs writes it: run-1 ...
// run-N, each a copy of the run in from (a run ttftlab made).
func repeated(t *testing.T, from string, n int) string {
	t.Helper()
	dir := t.TempDir()
	for i := 1; i <= n; i++ {
		if err := os.Rename(copyDir(t, from), filepath.Join(dir, rundir.RunPrefix+strconv.Itoa(i))); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestRepeatedRunPage: a folder of repeated runs gets one page (what lab
// --runs and load --runs draw at their end): the figures pooled over the
// runs with their intervals, each run's mean, then the last run's
// sections. Fails before this change: the report refused the folder.
func TestRepeatedRunPage(t *testing.T) {
	t.Run("lab", func(t *testing.T) {
		dir := repeated(t, labRun(t), 2)
		path, err := Write("", Meta{Version: "test"}, dir)
		if err != nil || path != filepath.Join(dir, FileName) {
			t.Fatalf("Write = %q, %v", path, err)
		}
		page := readFile(t, path)
		lab := rundir.ReadLab(labRun(t), "")
		n := len(lab.TTFT.Runs)
		for _, want := range []string{
			"ttftlab lab run repeated 2 times", `<section id="pooled">`, `<section id="spread">`,
			// ttft_ms pooled: 2n samples of 2 runs, its mean across the runs.
			"<td>ttft_ms (ms)</td><td class=\"num\">" + strconv.Itoa(2*n) + "</td><td class=\"num\">2</td><td class=\"num\">0</td>",
			" across 2 runs</td>", `<th class="num">run-1</th>`, `<th class="num">run-2</th>`, ">1.00×</td>",
			"the sections are run-2&#39;s", "ttftlab report " + filepath.Join(dir, "run-2"),
		} {
			if !strings.Contains(page, want) {
				t.Errorf("the page of 2 lab runs lacks %q", want)
			}
		}
		all := charts(t, page)
		chartOf(t, all, "TTFT and total time of each run (cache off)") // the last run's sections
		spread := chartOf(t, all, "Each run's mean, relative to the mean across the runs")
		if strings.Count(spread, ">ttft_ms<")+strings.Count(spread, ">total_ms<")+strings.Count(spread, ">first_sentence_ms<") != 3 {
			t.Errorf("the spread chart does not name ttft_ms, total_ms and first_sentence_ms")
		}
		if pooled := page[strings.Index(page, `<section id="pooled">`):strings.Index(page, `<section id="spread">`)]; strings.Contains(pooled, "<details") {
			t.Errorf("the pooled figures, the page's answer, are folded")
		}
		if strings.Contains(page, `<section id="intervals">`) {
			t.Errorf("the page shows one run's intervals beside the pooled ones")
		}
	})
	t.Run("load", func(t *testing.T) {
		dir := repeated(t, loadRun(t), 2)
		page := render(t, dir)
		l := rundir.ReadLoad(loadRun(t))
		if l.Capacity == nil {
			t.Fatal("the load run has no capacity")
		}
		c := num(l.Capacity.Level)
		d := l.Levels[0].Summary.TTFTMs
		for _, want := range []string{"ttftlab load run repeated 2 times", ">" + c + " · " + c + "<",
			"<td>level 1 ttft_ms (ms)</td><td class=\"num\">" + strconv.Itoa(2*d.N) + "</td><td class=\"num\">2</td>"} {
			if !strings.Contains(page, want) {
				t.Errorf("the page of 2 load runs lacks %q", want)
			}
		}
		chartOf(t, charts(t, page), "TTFT by level: p50, p95, p99")
	})
	t.Run("kinds", func(t *testing.T) {
		dir := repeated(t, labRun(t), 1)
		if err := os.Rename(copyDir(t, loadRun(t)), filepath.Join(dir, "run-2")); err != nil {
			t.Fatal(err)
		}
		if _, err := Render(Meta{}, dir); err == nil || !strings.Contains(err.Error(), "run-1 is a lab run, run-2 a load run") {
			t.Errorf("runs of two kinds: %v", err)
		}
	})
}
