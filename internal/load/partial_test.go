package load

import (
	"testing"

	"ttftlab/internal/artifact"
)

// TestFinishInterrupted: a run stopped in its second level gets that
// level's record from its rows, marked interrupted, the canceled request
// counted as failed; the capacity is the first level, which held, with the
// interrupted one after it; a level without rows is not invented.
func TestFinishInterrupted(t *testing.T) {
	slo := artifact.SLO{Metric: "first_sentence_ms", Percentile: 50, LimitMs: 800}
	doc := artifact.Load{Settings: artifact.LoadSettings{Mode: "concurrency", Levels: []float64{1, 2, 4}, Turns: 2,
		SLO: []artifact.SLO{slo}}}
	doc.Levels = []artifact.LoadLevel{{Level: 1, SLOMet: true, SLO: []artifact.SLOVerdict{{Metric: slo.Metric, Met: true}}}}
	rows := []artifact.LoadRequest{
		row(1, 1, 1, 5, 50, 100, ""),
		row(2, 1, 1, 10, 100, 200, ""),
		row(2, 1, 2, 20, 300, 400, ""),
		row(2, 2, 1, 30, 0, 12, "canceled"),
	}
	if !FinishInterrupted(&doc, rows, LevelExtras{}) {
		t.Fatal("no level added")
	}
	if len(doc.Levels) != 2 {
		t.Fatalf("%d levels", len(doc.Levels))
	}
	l := doc.Levels[1]
	s := l.Summary
	if !l.Interrupted || l.SLOMet || l.Level != 2 || l.Concurrency == nil || *l.Concurrency != 2 {
		t.Errorf("level %+v", l)
	}
	if s.Requests != 3 || s.OK != 2 || s.Failed != 1 || s.Calls != 2 || len(s.Failures) != 1 || s.Failures[0].Kind != "canceled" {
		t.Errorf("summary %+v", s)
	}
	if s.TTFTMs.N != 3 || s.FirstSentenceMs.N != 2 || s.TotalMs.N != 2 || s.QueueMs.N != 3 || s.GapMs.N != 0 {
		t.Errorf("distributions %+v", s)
	}
	if len(s.ByTurn) != 2 || s.ByTurn[0].N != 1 || s.ByTurn[1].N != 1 || s.ByTurn[0].CacheN == nil || s.ByTurn[0].CacheN.P50 != 5 {
		t.Errorf("by_turn %+v", s.ByTurn)
	}
	// p50 of {100, 300, late}: the second of three, 300 ms.
	if v := l.SLO[0]; v.N != 3 || v.Failed != 1 || v.ValueMs == nil || *v.ValueMs != 300 || !v.Met {
		t.Errorf("SLO %+v", v)
	}
	if l.Goodput == nil || *l.Goodput != 2.0/3 {
		t.Errorf("goodput %v", l.Goodput)
	}
	if c := doc.Capacity; c == nil || c.Level != 1 || c.Next == nil || c.Next.Level != 2 {
		t.Errorf("capacity %+v", doc.Capacity)
	}
	// Stopped before any request of the next level ended: nothing to add.
	if FinishInterrupted(&doc, rows, LevelExtras{}) || len(doc.Levels) != 2 {
		t.Errorf("a level without rows was added")
	}
}

// TestLatePercentile: a failed request is infinitely late: the
