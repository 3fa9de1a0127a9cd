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
