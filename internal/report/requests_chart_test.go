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
