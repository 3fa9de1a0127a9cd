package load

import (
	"math"
	"sort"

	"ttftlab/internal/artifact"
	"ttftlab/internal/interval"
)

// Dist summarises one measure over many requests. Percentiles interpolate
// linearly between the closest ranks (as stats.percentile does).
// P50CI, P95CI and P99CI are the 95 % order-statistic intervals of those
// percentiles over the same values (internal/interval), widened for the
// correlation of a call's values when their calls are known.
type Dist struct {
	N                             int
	P50, P90, P95, P99, Mean, Max float64
	P50CI, P95CI, P99CI           interval.Percentile
}

// Summarize returns the distribution of xs; NaN values (a request that
// does not have the figure) and infinities are left out. N is 0 when
// nothing is left. calls[i] is the call xs[i] came from: the intervals
// account for the correlation of a call's values (interval.CallsCI); nil
// takes every value as independent.
func Summarize(xs []float64, calls []int) Dist {
	s := make([]float64, 0, len(xs))
	var cs []int
	for i, x := range xs {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			s = append(s, x)
			if calls != nil {
				cs = append(cs, calls[i])
			}
		}
	}
	if len(s) == 0 {
		return Dist{}
	}
	d := Dist{N: len(s), P50CI: interval.CallsCI(s, cs, 50), P95CI: interval.CallsCI(s, cs, 95), P99CI: interval.CallsCI(s, cs, 99)}
	sort.Float64s(s)
	sum := 0.0
	for _, x := range s {
		sum += x
	}
	d.P50, d.P90, d.P95, d.P99 = interval.PercentileOf(s, 50), interval.PercentileOf(s, 90), interval.PercentileOf(s, 95), interval.PercentileOf(s, 99)
	d.Mean, d.Max = sum/float64(len(s)), s[len(s)-1]
	return d
}

// Record is the distribution as the artifacts write it: what it is over,
// its n, and null percentiles when n is 0. Every distribution is of times
// in ms, and each value is kept to the microsecond (artifact.Ms) as every
// artifact writes a time, so what a script prints from the record is what
// the file it writes holds: 7.8500004 printed "7.9" beside a file's 7.85.
func (d Dist) Record(over string) artifact.Dist {
	out := artifact.Dist{N: d.N, Over: over}
	if d.N == 0 {
		return out
	}
	out.P50, out.P90, out.P95, out.P99 = artifact.Ms(d.P50), artifact.Ms(d.P90), artifact.Ms(d.P95), artifact.Ms(d.P99)
	out.Mean, out.Max = artifact.Ms(d.Mean), artifact.Ms(d.Max)
	ci := func(c interval.Percentile) *[2]float64 {
		b := artifact.CI(c.Unbounded || c.N == 0, c.Lo, c.Hi)
		if b != nil {
			b[0], b[1] = *artifact.Ms(b[0]), *artifact.Ms(b[1])
		}
		return b
	}
	out.P50CI, out.P95CI, out.P99CI = ci(d.P50CI), ci(d.P95CI), ci(d.P99CI)
	return out
}
