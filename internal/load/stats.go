package load

import (
	"math"
	"sort"
)

// Dist summarises one measure over many requests. Percentiles interpolate
// linearly between the closest ranks (as stats.percentile does).
type Dist struct {
	N                             int
	P50, P90, P95, P99, Mean, Max float64
}

// Summarize returns the distribution of xs (NaN values left out); N is 0
// when there is nothing.
func Summarize(xs []float64) Dist {
	s := make([]float64, 0, len(xs))
	for _, x := range xs {
		if !math.IsNaN(x) {
			s = append(s, x)
		}
	}
	if len(s) == 0 {
		return Dist{}
	}
	sort.Float64s(s)
	sum := 0.0
	for _, x := range s {
		sum += x
	}
	return Dist{N: len(s), P50: Percentile(s, 50), P90: Percentile(s, 90), P95: Percentile(s, 95),
		P99: Percentile(s, 99), Mean: sum / float64(len(s)), Max: s[len(s)-1]}
}

// Percentile is the p-th percentile of sorted values (p from 0 to 100).
func Percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	h := (float64(len(sorted)) - 1) * p / 100
	lo := math.Floor(h)
	i := int(lo)
	if i+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (h-lo)*(sorted[i+1]-sorted[i])
}
