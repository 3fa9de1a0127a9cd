package interval

import (
	"math"
	"math/rand/v2"
	"sort"
)

// Stat is a statistic of one pooled sample (a percentile, a mean).
type Stat func(xs []float64) float64

// Ratio is B/A of one statistic with its bootstrap interval.
type Ratio struct {
	Ratio  float64 // stat(B) / stat(A) on the samples as given
	Lo, Hi float64 // percentile bootstrap interval at Level
	// Level is the interval's confidence: Level (0.95) as RatioCI gives
	// it, or the one AtAlpha sets (Verdicts: the Holm step's).
	Level float64
	// P is the two-sided bootstrap p-value of "B/A = 1": the smallest a
	// at which the interval at level 1 - a excludes 1 (AtAlpha), so the
	// interval at 1 - a excludes 1 exactly when P <= a.
	P         float64
	SELog     float64 // bootstrap standard error of log(B/A)
	RunsA     int     // runs of A and of B the interval is over
	RunsB     int
	Reps      int
	Seed      uint64 // the seed the resampling used: record it beside the figure
	Unbounded bool   // the statistic was not finite and positive on the samples or on too many resamples
	// logs are the replicates' log(B/A), sorted, and below and above
	// how many of them are <= 0 and >= 0 (B/A <= 1, >= 1): the interval
	// at any level and the p-value come from them.
	logs         []float64
	below, above int
}

// RatioCI is the percentile-bootstrap interval of stat(B)/stat(A). a and b
// are the runs of each variant, each run its own samples: every replicate
// draws runs with replacement and then samples with replacement inside
// each drawn run (a two-level bootstrap), so the drift between runs is in
// the interval when there are several runs; with one run per variant only
// the requests are resampled. reps replicates (1000 when <= 0) from the
// given seed; the same seed gives the same interval. The result keeps the
// replicates, so AtAlpha gives the interval at any other level.
func RatioCI(a, b [][]float64, stat Stat, reps int, seed uint64) Ratio {
	if reps <= 0 {
		reps = 1000
	}
	out := Ratio{RunsA: len(a), RunsB: len(b), Reps: reps, Seed: seed}
	sa, sb := stat(pool(a)), stat(pool(b))
	out.Ratio = sb / sa
	if !(sa > 0) || !(sb > 0) || math.IsInf(sa, 0) || math.IsInf(sb, 0) {
		out.Unbounded = true
		return out
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	logs := make([]float64, 0, reps)
	bad := 0
	bufA, bufB := []float64{}, []float64{}
	for i := 0; i < reps; i++ {
		bufA = resample(rng, a, bufA[:0])
		bufB = resample(rng, b, bufB[:0])
		ra, rb := stat(bufA), stat(bufB)
		// A statistic that is a failure (+Inf) gives no ratio: B/A would
		// be 0 or +Inf, and one such replicate would be an end of the
		// interval at a level fine enough.
		if !(ra > 0) || !(rb > 0) || math.IsInf(ra, 0) || math.IsInf(rb, 0) {
			bad++
			continue
		}
		r := rb / ra
		logs = append(logs, math.Log(r))
	}
	if bad > reps/20 {
		out.Unbounded = true
		return out
	}
	return fromReplicates(out, logs)
}

// fromReplicates fills in r's p-value, standard error and interval at
// Level from the replicates' log(B/A); unbounded when they are too few
// to give a Level interval.
func fromReplicates(r Ratio, logs []float64) Ratio {
	sort.Float64s(logs)
	r.logs = logs
	for _, l := range logs {
		if l <= 0 {
			r.below++
		}
		if l >= 0 {
			r.above++
		}
	}
	m := len(logs)
	r.P = min(1, tailP(min(r.below, r.above), m))
	if m >= 2 {
		mean := 0.0
		for _, l := range logs {
			mean += l
		}
		mean /= float64(m)
		ss := 0.0
		for _, l := range logs {
			ss += (l - mean) * (l - mean)
		}
		r.SELog = math.Sqrt(ss / float64(m-1))
	}
	return r.AtAlpha(Alpha)
}

// tailP is the p-value of c of m replicates on the far side of 1:
// 2·(c+1)/(m+1), the +1 counting the sample itself among the draws, so
// the bootstrap never claims a p below what its replicates can show.
func tailP(c, m int) float64 { return 2 * float64(c+1) / float64(m+1) }

// trim is how many replicates the interval at level 1 - alpha leaves out
// at each end: the most c with tailP(c, m) <= alpha, -1 when alpha is
// finer than m replicates resolve. The interval then excludes 1 exactly
// when no more than c replicates lie on the far side of 1, that is when
// P <= alpha.
func trim(alpha float64, m int) int {
	c := int(math.Floor(alpha*float64(m+1)/2)) - 1
	for c >= 0 && tailP(c, m) > alpha {
		c--
	}
	for tailP(c+1, m) <= alpha {
		c++
	}
	return c
}

// AtAlpha is r with its interval at confidence level 1 - alpha (0 <
// alpha < 1): the order statistics of the replicates' B/A that leave out,
// at each end, the most replicates c with 2·(c+1)/(m+1) <= alpha. It
// excludes 1 exactly when P <= alpha (alpha, not the level, is given, so
// that no rounding of 1 - level stands between them). Unbounded when r
// has no replicates or too few to resolve alpha (fewer than 2/alpha - 1:
// see RepsFor).
func (r Ratio) AtAlpha(alpha float64) Ratio {
	r.Level = 1 - alpha
	r.Lo, r.Hi = 0, 0
	if r.logs == nil {
		r.Unbounded = true
		return r
	}
	m := len(r.logs)
	c := trim(alpha, m)
	if c < 0 || c > m-1-c {
		r.Unbounded = true
		return r
	}
	r.Unbounded = false
	r.Lo, r.Hi = math.Exp(r.logs[c]), math.Exp(r.logs[m-1-c])
	return r
}

// RepsFor is the fewest bootstrap replicates with which every figure of
// a comparison of the given number of figures has its interval at every
// level Holm's correction may ask of it (down to 1 - Alpha/figures),
// with as many replicates discarded as RatioCI allows.
func RepsFor(figures int) int {
	figures = max(figures, 1)
	alpha := Alpha / float64(figures)
	reps := int(math.Ceil(2/alpha)) - 1
	for trim(alpha, reps-reps/20) < 0 {
		reps++
	}
	return reps
}

func pool(runs [][]float64) []float64 {
	var out []float64
	for _, r := range runs {
		out = append(out, r...)
	}
	return out
}

func resample(rng *rand.Rand, runs [][]float64, buf []float64) []float64 {
	if len(runs) == 0 {
		return buf
	}
	for range runs {
		run := runs[rng.IntN(len(runs))]
		for range run {
			buf = append(buf, run[rng.IntN(len(run))])
		}
	}
	return buf
}

// quantileSorted is the q-quantile (0 <= q <= 1) of sorted values.
func quantileSorted(s []float64, q float64) float64 { return PercentileOf(s, 100*q) }

// PercentileOf is the p-th percentile (0 to 100) of sorted values,
// interpolated between the closest ranks (as the stdlib's
// stats.percentile does): the point beside every interval, in load's
// distributions, the pooled figures and the A/B statistics alike. A
// percentile that falls exactly on a rank is that value, so +Inf values
// (failed requests) sorted last give +Inf only where the percentile
// reaches them. NaN for no values.
func PercentileOf(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	h := float64(len(sorted)-1) * p / 100
	i := int(math.Floor(h))
	if i+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	if frac := h - float64(i); frac > 0 {
		return sorted[i] + frac*(sorted[i+1]-sorted[i])
	}
	return sorted[i]
}

// Quantile returns a Stat: the p-th percentile (0..100) of a sample, by
// linear interpolation between closest ranks; +Inf values (failures) count
// above every finite value, NaN values are left out.
func Quantile(p float64) Stat {
	return func(xs []float64) float64 {
		s := make([]float64, 0, len(xs))
		for _, x := range xs {
			if !math.IsNaN(x) {
				s = append(s, x)
			}
		}
		if len(s) == 0 {
			return math.NaN()
		}
		sort.Float64s(s)
		return quantileSorted(s, p/100)
	}
}

// MeanStat is the mean of the finite values of a sample.
func MeanStat(xs []float64) float64 {
	sum, n := 0.0, 0
	for _, x := range xs {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			sum += x
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return sum / float64(n)
}
