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
	Ratio     float64 // stat(B) / stat(A) on the samples as given
	Lo, Hi    float64 // percentile bootstrap interval at Level
	P         float64 // two-sided bootstrap p-value of "B/A = 1"
	SELog     float64 // bootstrap standard error of log(B/A)
	RunsA     int     // runs of A and of B the interval is over
	RunsB     int
	Reps      int
	Seed      uint64 // the seed the resampling used: record it beside the figure
	Unbounded bool   // the statistic was not finite and positive on the samples or on too many resamples
}

// RatioCI is the percentile-bootstrap interval of stat(B)/stat(A). a and b
// are the runs of each variant, each run its own samples: every replicate
// draws runs with replacement and then samples with replacement inside
// each drawn run (a two-level bootstrap), so the drift between runs is in
// the interval when there are several runs; with one run per variant only
// the requests are resampled. reps replicates (1000 when <= 0) from the
// given seed; the same seed gives the same interval.
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
	bad, below, above := 0, 0, 0
	bufA, bufB := []float64{}, []float64{}
	for i := 0; i < reps; i++ {
		bufA = resample(rng, a, bufA[:0])
		bufB = resample(rng, b, bufB[:0])
		ra, rb := stat(bufA), stat(bufB)
		r := rb / ra
		if !(ra > 0) || !(rb > 0) || math.IsInf(r, 0) || math.IsNaN(r) {
			bad++
			continue
		}
		if r <= 1 {
			below++
		}
		if r >= 1 {
			above++
		}
		logs = append(logs, math.Log(r))
	}
	if bad > reps/20 || len(logs) < 2 {
		out.Unbounded = true
		return out
	}
	sort.Float64s(logs)
	tail := (1 - Level) / 2
	out.Lo = math.Exp(quantileSorted(logs, tail))
	out.Hi = math.Exp(quantileSorted(logs, 1-tail))
	m := float64(len(logs))
	out.P = math.Min(1, 2*(float64(min(below, above))+1)/(m+1))
	mean := 0.0
	for _, l := range logs {
		mean += l
	}
	mean /= m
	ss := 0.0
	for _, l := range logs {
		ss += (l - mean) * (l - mean)
	}
	out.SELog = math.Sqrt(ss / (m - 1))
	return out
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
