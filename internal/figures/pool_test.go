package figures

import (
	"math"
	"testing"
)

func TestPool(t *testing.T) {
	inf := math.Inf(1)
	runs := [][]Sample{
		{{Name: "ttft_ms", Unit: "ms", Over: "x", Values: []float64{10, 11, 12, 13, 14}}, {Name: "cache hit ttft_ms", Unit: "ms", Values: []float64{5}}},
		{{Name: "ttft_ms", Unit: "ms", Over: "x", Values: []float64{20, 21, 22, 23, 24}}, {Name: "fail", Unit: "ms", Values: []float64{1, inf}}},
	}
	fs := Pool(runs)
	if len(fs) != 3 || fs[0].Name != "ttft_ms" || fs[1].Name != "cache hit ttft_ms" || fs[2].Name != "fail" {
		t.Fatalf("%+v", fs)
	}
	f := fs[0]
	if f.N != 10 || f.Runs != 2 || f.MeanOver != "runs" || *f.Mean != 17 || f.MeanCI == nil || f.MeanCI[0] >= 12 || f.MeanCI[1] <= 22 {
		t.Fatalf("ttft: %+v mean_ci %v", f, f.MeanCI)
	}
	// p50 of 10: ranks 2..9 (the exact binomial interval).
	if *f.P50 != 17 || f.P50CI == nil || f.P50CI[0] != 11 || f.P50CI[1] != 23 || f.P95CI != nil || f.P99CI != nil {
		t.Fatalf("ttft percentiles: p50 %v %v p95_ci %v", *f.P50, f.P50CI, f.P95CI)
	}
	if h := fs[1]; h.Runs != 1 || h.MeanOver != "samples" || h.MeanCI != nil || *h.Mean != 5 || h.P50CI != nil {
		t.Fatalf("one sample: %+v", h)
	}
	if x := fs[2]; x.Failed != 1 || x.Mean != nil || x.MeanCI != nil || x.RunMeans[0] != nil || x.P99 != nil {
		t.Fatalf("a failure: %+v", x)
	}
}

// TestPoolTimeIntervalStopsAtZero: two runs far apart give a t-interval
// (t = 12.7) reaching below 0; a time's is cut at 0, a unitless figure's
// is not.
func TestPoolTimeIntervalStopsAtZero(t *testing.T) {
	runs := [][]Sample{{{Name: "ttft_ms", Unit: "ms", Values: []float64{10}}, {Name: "score", Values: []float64{10}}},
		{{Name: "ttft_ms", Unit: "ms", Values: []float64{100}}, {Name: "score", Values: []float64{100}}}}
	fs := Pool(runs)
	if ci := fs[0].MeanCI; ci == nil || ci[0] != 0 || ci[1] <= 100 {
		t.Fatalf("ttft_ms: %v", ci)
	}
	if ci := fs[1].MeanCI; ci == nil || ci[0] >= 0 {
		t.Fatalf("score: %v", ci)
	}
}
