package report

import (
	"strings"
	"testing"

	"ttftlab/internal/artifact"
	"ttftlab/internal/rundir"
)

// TestSteadyTable: a level with a transient says where its window began
// and how many it left out; one that drifts is marked with its rho and
// p-value; levels without a steady record (older files) give no table.
func TestSteadyTable(t *testing.T) {
	t.Parallel()
	f := func(x float64) *float64 { return &x }
	idx := 16
	l := &rundir.Load{Levels: []artifact.LoadLevel{
		{Level: 1, SteadyWindow: &artifact.SteadyWindow{Known: true, FromRequest: 16, FromIndex: &idx, LeftOut: 15},
			Steady: &artifact.LevelTrend{Known: true, Steady: true, Drift: &artifact.TrendDrift{Batch: 5, Batches: 5, Rho: f(0.1), P: f(0.87), Known: true}}},
		{Level: 2, SteadyWindow: &artifact.SteadyWindow{Known: true, FromRequest: 1},
			Steady: &artifact.LevelTrend{Known: true, Steady: true, Drift: &artifact.TrendDrift{Batch: 5, Batches: 12, Rho: f(0.7133), P: f(0.0092), Known: true, Drifting: true}}},
	}}
	tab := steadyTable(l)
	if tab == nil || len(tab.Rows) != 2 {
		t.Fatalf("table %+v, want two rows", tab)
	}
	if got := strings.Join(tab.Rows[0].Cells, "|"); got != "1|16|15|yes|0.10|0.8700|none detected" || tab.Rows[0].Class != "" {
		t.Errorf("level 1: %q (class %q)", got, tab.Rows[0].Class)
	}
	if got := strings.Join(tab.Rows[1].Cells, "|"); got != "2|1|0|yes|0.71|0.0092|drifting (12 batches of 5)" || tab.Rows[1].Class != "bad" {
		t.Errorf("level 2: %q (class %q)", got, tab.Rows[1].Class)
	}
	if steadyTable(&rundir.Load{Levels: []artifact.LoadLevel{{Level: 1}}}) != nil {
		t.Error("a table for levels without a steady record")
	}
}
