package report

import (
	"image/color"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ttftlab/internal/chart"
	"ttftlab/internal/rundir"
)

// TestSearchPathChart: a load run with a capacity search gets a chart of
// its path: one bar per round (its interval), a point per round held or
// missed, a ring where the value fell on late requests, the SLO's limit,
// each round labelled with its level (a confirmation round "3 #2"), and
// a table of the rounds; the intro says the capacity is undecided between
// the two levels.
// Fails before this change: the report drew no search.
func TestSearchPathChart(t *testing.T) {
	dir := t.TempDir()
	doc := `{"settings": {"mode": "concurrency", "search_max": 8, "search_budget": 24, "levels": [1, 2, 4, 3],
	  "slo": [{"metric": "ttft_ms", "percentile": 50, "limit_ms": 150}]},
	  "levels": [{"level": 1, "summary": {}}, {"level": 2, "summary": {}}, {"level": 3, "summary": {}}, {"level": 4, "summary": {}}],
	  "capacity": {"level": 2, "next": null, "decided": false, "between": [2, 3], "search": [
	    {"level": 1, "round": 1, "calls": 12, "met": true, "value_ms": 6, "ci_ms": [5, 7], "requests": 12, "side": "below"},
	    {"level": 2, "round": 1, "calls": 12, "met": true, "value_ms": 8, "ci_ms": [6, 9], "requests": 12, "side": "below"},
	    {"level": 4, "round": 1, "calls": 12, "met": false, "value_ms": null, "ci_ms": [260, null], "requests": 12, "side": "above"},
	    {"level": 3, "round": 1, "calls": 12, "met": false, "value_ms": 160, "ci_ms": [7, 301], "requests": 12, "side": "straddles"},
	    {"level": 3, "round": 2, "calls": 12, "met": false, "value_ms": 170, "ci_ms": [90, 290], "requests": 24, "side": "straddles"}]}}`
	if err := os.WriteFile(filepath.Join(dir, "load.json"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	html := render(t, dir)
	svg := chartOf(t, charts(t, html), "Search path: TTFT p50 by round")
	for _, c := range []struct {
		what, prop string
		color      color.RGBA
		want       int
	}{
		{"held points (and the legend's)", "fill", chart.Capacity, 3},
		{"missed points (and the legend's)", "fill", chart.Cut, 3},
		{"interval bars, one per round", "stroke", chart.Chunk, 5},
		{"a ring where the value fell on late requests (and the legend's)", "stroke", chart.Cut, 2},
		{"the SLO's limit (and the legend's)", "stroke", chart.Limit, 2},
	} {
		if got := marks(svg, c.prop, c.color); got != c.want {
			t.Errorf("%s: %d marks, want %d", c.what, got, c.want)
		}
	}
	l := rundir.ReadLoad(dir)
	for _, want := range []string{">3 #2<", ">[90, 290]<", ">[260, ∞]<", "interval holds the limit: undecided", "round 2",
		"The capacity lies between " + l.LevelName(2) + " and " + l.LevelName(3) + ", undecided"} {
		if !strings.Contains(html, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

// TestSearchLevelVerdictIsPooled: with a search, a level's "SLO met" in
// the levels table is its verdict over every round (the one the capacity
// rests on), not its first round's: level 2 missed its first round and
// held over three, level 3 held its first and is undecided over two.
// Fails before this change: the table showed the first round's slo_met,
// "no" at the capacity the page names.
func TestSearchLevelVerdictIsPooled(t *testing.T) {
	dir := t.TempDir()
	doc := `{"settings": {"mode": "concurrency", "search_max": 8, "search_budget": 36, "levels": [1, 2, 3],
	  "slo": [{"metric": "ttft_ms", "percentile": 50, "limit_ms": 150}]},
	  "levels": [
	    {"level": 1, "summary": {}, "slo_met": true, "pooled": {"rounds": 1, "calls": 12, "failed": 0, "met": true, "decided": true, "slo": []}},
	    {"level": 2, "summary": {}, "slo_met": false, "pooled": {"rounds": 3, "calls": 36, "failed": 0, "met": true, "decided": true, "slo": []}},
	    {"level": 3, "summary": {}, "slo_met": true, "pooled": {"rounds": 2, "calls": 24, "failed": 0, "met": false, "decided": false, "slo": []}}],
	  "capacity": {"level": 2, "next": null, "decided": false, "between": [2, 3], "search": []}}`
	if err := os.WriteFile(filepath.Join(dir, "load.json"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	html := render(t, dir)
	for _, want := range []string{">yes (3 rounds)<", ">no (2 rounds, undecided)<", "its SLO verdict is over every round of it"} {
		if !strings.Contains(html, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

// TestClientTable: a load run's levels with summary.client get a table of
// what each cost the client's machine (the reader's wait in all and a
// time on average); a level without it is left out, and a run where none
// has it gets no table.
// Fails before this change: the page had no such table.
func TestClientTable(t *testing.T) {
	dir := t.TempDir()
	doc := `{"settings": {"mode": "concurrency", "levels": [1, 2]},
	  "levels": [
	    {"level": 1, "summary": {"client": {"cores": 2, "cpu_ms": 41.5, "busy": 0.05, "reader_cpu_ms": 3, "reader_wait_ms": 8, "reader_runs": 400}}},
	    {"level": 2, "summary": {}}]}`
	if err := os.WriteFile(filepath.Join(dir, "load.json"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	html := render(t, dir)
	for _, want := range []string{"the client&#39;s own machine by level", ">41.5<", ">5 %<", ">0.02<"} {
		if !strings.Contains(html, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "load.json"), []byte(`{"settings": {"mode": "concurrency", "levels": [1]}, "levels": [{"level": 1, "summary": {}}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if html := render(t, dir); strings.Contains(html, "own machine by level") {
		t.Error("a run without client figures got the client table")
	}
}
