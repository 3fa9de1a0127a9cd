package report

import (
	"strings"
	"testing"

	"ttftlab/internal/artifact"
	"ttftlab/internal/rundir"
)

// TestRequestsOfShardsHaveTheirOwnNames: a merged run's level holds the
// requests of every shard, each shard numbering its own from 1, so the
// chart and its table name a request with its shard ("s1 #1"), not two
// rows "#1". Fails before this change: the merged page read "#1, #1, #2,
// #2, ...".
func TestRequestsOfShardsHaveTheirOwnNames(t *testing.T) {
	s0, s1 := 0, 1
	start, total := 1.0, 50.0
	req := func(shard *int, call int) artifact.LoadRequest {
		r := artifact.LoadRequest{Level: 2, Call: call, Turn: 1, Shard: shard}
		r.Index, r.StartMs, r.TotalMs = 1, &start, &total
		return r
	}
	l := &rundir.Load{Settings: artifact.LoadSettings{Mode: "concurrency"},
		Requests: []artifact.LoadRequest{req(&s0, 1), req(&s1, 2)}}
	f, err := requestsFigure(l, 2)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range f.More.Rows {
		names = append(names, r.Cells[0])
	}
	if strings.Join(names, ",") != "s0 #1,s1 #1" || !strings.Contains(string(f.SVG), ">s1 #1<") {
		t.Errorf("requests named %q; chart:\n%s", names, f.SVG)
	}
	l.Requests = []artifact.LoadRequest{req(nil, 1)}
	if f, err = requestsFigure(l, 2); err != nil || f.More.Rows[0].Cells[0] != "1" || !strings.Contains(string(f.SVG), ">#1<") {
		t.Errorf("an unsharded request is named by its index alone: %v %q", err, f.More.Rows[0].Cells)
	}
}

// TestRequestsBeforeTheSteadyWindow: the requests a level's steady window
// left out are named so in its table and drawn as a series of their own.
func TestRequestsBeforeTheSteadyWindow(t *testing.T) {
	var rows []artifact.LoadRequest
	for i := 1; i <= 40; i++ {
		ttft, start, total := 5+0.1*float64(i%3), float64(10*i), 20.0
		if i <= 10 {
			ttft = 200 + float64(i%3)
		}
		r := artifact.LoadRequest{Level: 1, Call: i, Turn: 1}
		r.Index, r.TTFTMs, r.StartMs, r.TotalMs = i, &ttft, &start, &total
		rows = append(rows, r)
	}
	from := 11
	l := &rundir.Load{Settings: artifact.LoadSettings{Mode: "concurrency"}, Requests: rows,
		Levels: []artifact.LoadLevel{{Level: 1, SteadyWindow: &artifact.SteadyWindow{Known: true, FromRequest: 11, FromIndex: &from, LeftOut: 10}}}}
	f, err := requestsFigure(l, 1)
	if err != nil {
		t.Fatal(err)
	}
	marked := 0
	for _, r := range f.More.Rows {
		if strings.HasSuffix(r.Cells[0], " (transient)") {
			marked++
		}
	}
	if marked != 10 || f.More.Rows[9].Cells[0] != "10 (transient)" || f.More.Rows[10].Cells[0] != "11" ||
		!strings.Contains(string(f.SVG), "before the steady window") {
		t.Errorf("%d rows marked transient (10th %q, 11th %q), legend in the chart: %v", marked, f.More.Rows[9].Cells[0],
			f.More.Rows[10].Cells[0], strings.Contains(string(f.SVG), "before the steady window"))
	}
}
