package interval

import (
	"math"
	"sort"
)

// Level is the confidence level of every interval this package gives.
const Level = 0.95

// Percentile is the distribution-free interval of the p-th percentile of
// the population the samples came from: [x(Lo), x(Hi)], the order
// statistics of ranks LoRank and HiRank (1-based, ascending). It holds
// the true percentile with probability at least Level whatever the
// distribution (continuous), since the number of samples below the true
// percentile is Binomial(n, p/100).
//
// Unbounded is true when n is too small for this percentile at this level
// (p99 of 20 samples: no rank has a chance of 2.5 % or less to fall below
// it), or when a bound falls on a failed request (+Inf). Lo and Hi are then
// meaningless and the figure is "too few samples".
type Percentile struct {
	P              float64 // the percentile, 0 < P < 100
	N              int     // samples counted (NaN left out, +Inf counted)
	LoRank, HiRank int     // 1-based ranks of the bounds; 0 when that side is unbounded
	Lo, Hi         float64
	Unbounded      bool
	Coverage       float64 // exact coverage of [x(LoRank), x(HiRank)] under the binomial, when bounded
}

// PercentileRanks returns the 1-based ranks (lo, hi) of the equal-tailed
// order-statistic interval of the p-th percentile over n samples at
// confidence conf: lo is the largest rank with P(B < lo) <= (1-conf)/2 and
// hi the smallest with P(B >= hi) <= (1-conf)/2, B ~ Binomial(n, p/100).
// A side with no such rank in 1..n is 0. The coverage P(lo <= B < hi) is
// returned when both exist.
func PercentileRanks(n int, p, conf float64) (lo, hi int, coverage float64) {
	if n <= 0 || p <= 0 || p >= 100 {
		return 0, 0, 0
	}
	q := p / 100
	tail := (1 - conf) / 2
	// cdf[k] = P(B <= k)
	cdf := make([]float64, n+1)
	acc := 0.0
	for k := 0; k <= n; k++ {
		acc += binomPMF(n, k, q)
		cdf[k] = math.Min(acc, 1)
	}
	for r := n; r >= 1; r-- { // P(B < r) = cdf[r-1]
		if cdf[r-1] <= tail+1e-12 {
			lo = r
			break
		}
	}
	for s := 1; s <= n; s++ { // P(B >= s) = 1 - cdf[s-1]
		if 1-cdf[s-1] <= tail+1e-12 {
			hi = s
			break
		}
	}
	if lo > 0 && hi > 0 {
		// P(lo <= B <= hi-1)
		coverage = cdf[hi-1] - cdf[lo-1]
	}
	return lo, hi, coverage
}

func binomPMF(n, k int, q float64) float64 {
	if q <= 0 {
		if k == 0 {
			return 1
		}
		return 0
	}
	if q >= 1 {
		if k == n {
			return 1
		}
		return 0
	}
	ln, _ := math.Lgamma(float64(n + 1))
	lk, _ := math.Lgamma(float64(k + 1))
	lnk, _ := math.Lgamma(float64(n - k + 1))
	return math.Exp(ln - lk - lnk + float64(k)*math.Log(q) + float64(n-k)*math.Log1p(-q))
}

// PercentileCI returns the Level interval of the p-th percentile of xs.
// NaN values (a request without the figure) are left out; +Inf values (a
// failed request) count above every finite value. xs is not changed.
func PercentileCI(xs []float64, p float64) Percentile {
	s := make([]float64, 0, len(xs))
	for _, x := range xs {
		if !math.IsNaN(x) {
			s = append(s, x)
		}
	}
	sort.Float64s(s)
	out := Percentile{P: p, N: len(s)}
	lo, hi, cov := PercentileRanks(len(s), p, Level)
	out.LoRank, out.HiRank = lo, hi
	if lo == 0 || hi == 0 || math.IsInf(s[hi-1], 0) || math.IsInf(s[lo-1], 0) {
		out.Unbounded = true
		return out
	}
	out.Lo, out.Hi, out.Coverage = s[lo-1], s[hi-1], cov
	return out
}
