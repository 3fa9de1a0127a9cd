package interval

import (
	"math"
	"sort"
)

// Level is the confidence level of every interval this package gives,
// but that of a ratio beside a Holm verdict, which is at its step's level
// (Verdicts), Level or more.
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
// failed request) count above every finite value. xs is not changed. It is
// Late's interval without late values, unbounded also when a bound is
// infinite.
func PercentileCI(xs []float64, p float64) Percentile { return Late(xs, 0, p).interval() }

// interval is the percentile's interval as PercentileCI gives it:
// unbounded also when a bound is infinite.
func (l LatePercentile) interval() Percentile {
	out := Percentile{P: l.P, N: l.N, LoRank: l.LoRank, HiRank: l.HiRank}
	if !l.Finite() {
		out.Unbounded = true
		return out
	}
	out.Lo, out.Hi, out.Coverage = l.Lo, l.Hi, l.Coverage
	return out
}

// LatePercentile is the p-th percentile of values among which some are
// infinitely late (a request that failed or never reached the figure,
// counted above every value), with its Level order-statistic interval.
type LatePercentile struct {
	P float64 // the percentile, 0 < P < 100
	N int     // values counted: NaN left out, late ones in
	// Late is how many of the N are late: +Inf values and those given
	// as a count.
	Late int
	// Value is the percentile by PercentileOf's rule over the sorted
	// values with the late ones last: +Inf when it falls on a late value
	// or between a value and a late one (there is none), NaN when N is 0.
	Value float64
	// LoRank, HiRank are the 1-based ranks of the bounds, 0 when N is too
	// small to bound that side (PercentileRanks).
	LoRank, HiRank int
	// Lo and Hi are the interval [x(LoRank), x(HiRank)]: -Inf below and
	// +Inf above on a side with no rank, +Inf a bound that falls on a
	// late value. So Hi <= limit says the whole interval lies at or
	// below a limit, Lo > limit that it lies above.
	Lo, Hi float64
	// Coverage is the exact coverage of the ranks when both exist.
	Coverage float64
}

// Known says the percentile has a value: it falls below the late values.
func (l LatePercentile) Known() bool {
	return l.N > 0 && !math.IsInf(l.Value, 0) && !math.IsNaN(l.Value)
}

// Bounded says N bounds the percentile on both sides (a bound may still
// be late).
func (l LatePercentile) Bounded() bool { return l.LoRank > 0 && l.HiRank > 0 }

// Finite says both bounds exist and are numbers: the interval a figure
// shows (else "too few samples").
func (l LatePercentile) Finite() bool {
	return l.Bounded() && !math.IsInf(l.Lo, 0) && !math.IsInf(l.Hi, 0)
}

// Late is the p-th percentile of xs together with late more values that
// are infinitely late, and its Level interval: the one computation of a
// percentile over requests some of which failed or never reached the
// figure. NaN values in xs are left out and +Inf values count as late.
// xs is not changed.
func Late(xs []float64, late int, p float64) LatePercentile {
	s := make([]float64, 0, len(xs)+max(late, 0))
	for _, x := range xs {
		if !math.IsNaN(x) {
			s = append(s, x)
		}
	}
	sort.Float64s(s)
	for range late {
		s = append(s, math.Inf(1))
	}
	out := LatePercentile{P: p, N: len(s), Value: math.NaN(), Lo: math.Inf(-1), Hi: math.Inf(1)}
	for i := len(s) - 1; i >= 0 && math.IsInf(s[i], 1); i-- {
		out.Late++
	}
	if len(s) == 0 {
		return out
	}
	out.Value = PercentileOf(s, p)
	if math.IsNaN(out.Value) || math.IsInf(out.Value, 1) {
		out.Value = math.Inf(1)
	}
	lo, hi, cov := PercentileRanks(len(s), p, Level)
	out.LoRank, out.HiRank, out.Coverage = lo, hi, cov
	if lo > 0 {
		out.Lo = s[lo-1]
	}
	if hi > 0 {
		out.Hi = s[hi-1]
	}
	return out
}
