package load

import (
	"math/rand/v2"
	"testing"

	"ttftlab/internal/artifact"
)

// stepSeries is n values whose first slow are about 200 ms and the rest
// about 20 ms, with seeded noise.
func stepSeries(seed uint64, n, slow int) []float64 {
	rng := rand.New(rand.NewPCG(seed, 1))
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = 20 + 2*rng.NormFloat64()
		if i < slow {
			xs[i] = 200 + 30*rng.NormFloat64()
		}
	}
	return xs
}

// TestMSERFindsAStep: a step down after a known number of slow values is
// cut at the first batch boundary at or after it, or one batch later (the
// tolerance of docs/statistics.md), whether or not the step falls on a
// boundary; one batch later in few of the seeded series.
func TestMSERFindsAStep(t *testing.T) {
	t.Parallel()
	late := 0
	for _, slow := range []int{5, 12, 20, 23, 30} {
		for seed := range uint64(20) {
			tr := MSER(stepSeries(seed, 100, slow), WindowBatch)
			from := tr.Cut * WindowBatch // values left out
			if !tr.Known || tr.Batches != 20 || from < slow || from >= slow+2*WindowBatch {
				t.Errorf("step after %d (seed %d): %+v cuts %d values, want %d to %d", slow, seed, tr, from, slow, slow+2*WindowBatch-1)
			}
			if from >= slow+WindowBatch {
				late++
			}
		}
	}
	if late > 5 {
		t.Errorf("%d of 100 steps cut a batch late, want at most 5", late)
	}
}

// TestMSERLeavesSteadySeriesWhole: one distribution over the level is
// cut in few of 100 seeded series; fewer than 4 batches are never cut.
func TestMSERLeavesSteadySeriesWhole(t *testing.T) {
	t.Parallel()
	cut := 0
	for seed := range uint64(100) {
		if tr := MSER(stepSeries(seed, 60, 0), WindowBatch); !tr.Known || tr.Cut > 0 {
			cut++
		}
	}
	if cut > 5 {
		t.Errorf("one distribution: %d of 100 cut, want at most 5", cut)
	}
	if tr := MSER(stepSeries(1, 19, 10), WindowBatch); tr.Known || tr.Cut != 0 || tr.Batches != 3 {
		t.Errorf("19 values: %+v, want 3 batches, nothing known or cut", tr)
	}
}

// TestSteadyWindowOfRows: the window counts from the requests after
// warm-up in the order they started; a failed request before it is not
// left out, nor is a request after it; a request without a first token
// before it is.
func TestSteadyWindowOfRows(t *testing.T) {
	t.Parallel()
	xs := stepSeries(7, 40, 10)
	var rows []artifact.LoadRequest
	add := func(r artifact.Request) {
		r.Index = len(rows) + 1
		rows = append(rows, artifact.LoadRequest{Call: r.Index, Request: r})
	}
	for range 3 {
		v := 500.0
		add(artifact.Request{Warmup: true, TTFTMs: &v})
	}
	failed := "http"
	for i, x := range xs {
		if i == 2 {
			add(artifact.Request{ErrorKind: &failed}) // the 3rd after warm-up
			add(artifact.Request{})                   // the 4th: no first token
		}
		add(artifact.Request{TTFTMs: &x})
	}
	// Rows come in the order they ended: reversed.
	for i, j := 0, len(rows)-1; i < j; i, j = i+1, j-1 {
		rows[i], rows[j] = rows[j], rows[i]
	}
	w, transient := SteadyWindow(rows, nil)
	if !w.Known || w.FromRequest != 13 || w.FromIndex == nil || *w.FromIndex != 16 || w.LeftOut != 11 || w.Rule != "MSER-5" {
		t.Fatalf("%+v, want the window from the 13th request (index 16), 11 left out", w)
	}
	n := 0
	for i, tr := range transient {
		if tr {
			n++
			if r := rows[i]; r.Warmup || r.ErrorKind != nil || r.Index >= 16 {
				t.Errorf("row %+v left out", r)
			}
		}
	}
	if n != w.LeftOut {
		t.Errorf("%d rows marked transient, the window says %d", n, w.LeftOut)
	}
}
