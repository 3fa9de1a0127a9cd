package report

import (
	"strings"
	"testing"

	"ttftlab/internal/artifact"
	"ttftlab/internal/rundir"
)

// TestServerFigureShowsWhatTheServerGave: samples of a server without
// /slots but with a running-requests gauge (vLLM) show "–" for the slot
// columns and the gauge's largest value, never 0 slots busy of 0 (which
// read as an idle server). Fails before this change: nil became 0 and the
// gauge was not read.
func TestServerFigureShowsWhatTheServerGave(t *testing.T) {
	two, three := 2.0, 3.0
	l := &rundir.Load{Settings: artifact.LoadSettings{Mode: "concurrency"}, Server: []artifact.LoadServerSample{
		{Level: 2, ServerSample: artifact.ServerSample{TMs: 0, RequestsProcessing: &two}},
		{Level: 2, ServerSample: artifact.ServerSample{TMs: 100, RequestsProcessing: &three}},
	}}
	f, err := serverFigure(l)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Table.Rows) != 1 {
		t.Fatalf("rows %+v", f.Table.Rows)
	}
	got := strings.Join(f.Table.Rows[0].Cells, " | ")
	if want := "2 | 0 | 100 | 2 | – | – | 3 | –"; got != want {
		t.Errorf("row %q, want %q (head %v)", got, want, f.Table.Head)
	}
	if !strings.Contains(string(f.SVG), "requests running") {
		t.Errorf("the chart has no requests-running line")
	}
}

// TestServerFigureMarksGaugeBelowSlots: a level where /slots showed 6
// busy but the running gauge never rose above 0 marks the gauge's cell
// and says why, not "max slots busy 6" beside a plain "max running 0".
// Fails before this change.
func TestServerFigureMarksGaugeBelowSlots(t *testing.T) {
	zero, busy, total := 0.0, 6, 8
	l := &rundir.Load{Settings: artifact.LoadSettings{Mode: "concurrency"}, Server: []artifact.LoadServerSample{
		{Level: 6, ServerSample: artifact.ServerSample{TMs: 0, SlotsProcessing: &busy, SlotsTotal: &total, RequestsProcessing: &zero}},
		{Level: 6, ServerSample: artifact.ServerSample{TMs: 100, SlotsProcessing: &busy, SlotsTotal: &total, RequestsProcessing: &zero}},
	}}
	f, err := serverFigure(l)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(f.Table.Rows[0].Cells, " | "), "6 | 0 | 100 | 2 | 6 | 8 | 0 † | –"; got != want {
		t.Errorf("row %q, want %q", got, want)
	}
	if !strings.Contains(f.Table.Caption, "† the running-requests gauge (/metrics) never read as many as /slots showed busy") {
		t.Errorf("caption %q", f.Table.Caption)
	}
}
