package interval

import (
	"math"
	"sort"
)

// Verdict is what an A/B comparison of one time figure concludes (lower
// is faster).
type Verdict string

const (
	Faster       Verdict = "faster"                 // B takes less time than A
	Slower       Verdict = "slower"                 // B takes more time than A
	NoDifference Verdict = "no difference detected" // not at this sample size
	Undecided    Verdict = "too few samples"        // no interval at all
)

// Alpha is the family-wise error rate the Holm correction holds over all
// the figures of one comparison.
const Alpha = 1 - Level

// Figure is one figure's comparison: its ratio with the interval its
// verdict was made with, its verdict after the Holm correction over all
// figures compared at once, and the runs per variant that would detect a
// 5 % difference.
type Figure struct {
	Name string
	// Ratio is the figure's ratio with its interval at the level of its
	// Holm step (Ratio.Level): it excludes 1 when the verdict is faster
	// or slower and holds 1 when it is no difference detected.
	Ratio   Ratio
	Verdict Verdict
	// RunsFor5 is the number of runs per variant at which a 5 % difference
	// would be detected (two-sided test at Alpha, power 80 %), from the
	// standard error of this comparison scaled by 1/√runs; 0 when unknown.
	RunsFor5 int
}

// Detectable is the relative difference RunsFor5 is computed for.
const Detectable = 0.05

// Verdicts applies the Holm step-down correction to the p-values of the
// ratios (family-wise error rate Alpha) and gives each figure its verdict
// and the interval it was made with. Of the m figures with an interval,
// sorted by p-value, the k-th (from 1) is tested at Alpha/(m-k+1) while
// every smaller one was significant: a figure found significant gets its
// interval at level 1 - Alpha/(m-k+1), which excludes 1; from the first
// figure that is not, every remaining one gets its interval at that
// step's level, which holds 1 (their p-values are above its threshold).
// The direction is the side of 1 its replicates fall on. A ratio with
// too few replicates for its level (RepsFor) has no interval there and
// stays no difference detected. The order of names and ratios is kept.
func Verdicts(names []string, ratios []Ratio) []Figure {
	out := make([]Figure, len(ratios))
	var idx []int
	for i, r := range ratios {
		out[i] = Figure{Name: names[i], Ratio: r, Verdict: NoDifference, RunsFor5: RunsToDetect(r, Detectable)}
		if r.Unbounded {
			out[i].Verdict = Undecided
			continue
		}
		idx = append(idx, i)
	}
	sort.SliceStable(idx, func(x, y int) bool { return ratios[idx[x]].P < ratios[idx[y]].P })
	m := len(idx)
	rejecting := true
	a := Alpha
	for k, i := range idx {
		if rejecting {
			a = Alpha / float64(m-k)
			// Holm: once one p-value is above its threshold, it and every
			// larger one are not significant, at this step's level.
			rejecting = ratios[i].P <= a
		}
		out[i].Ratio = ratios[i].AtAlpha(a)
		if !rejecting {
			continue
		}
		if ratios[i].above > ratios[i].below {
			out[i].Verdict = Slower
		} else {
			out[i].Verdict = Faster
		}
	}
	return out
}

// RunsToDetect is the number of runs per variant at which a relative
// difference d would be detected with power 80 % by a two-sided test at
// Alpha, assuming the standard error of log(B/A) falls as 1/√runs from
// what r measured at r's run count. 0 when r has no standard error.
func RunsToDetect(r Ratio, d float64) int {
	if r.Unbounded || !(r.SELog > 0) || math.IsInf(r.SELog, 0) {
		return 0
	}
	runs := float64(min(r.RunsA, r.RunsB))
	if runs < 1 {
		runs = 1
	}
	const zAlpha, zPower = 1.959963984540054, 0.8416212335729143
	need := runs * math.Pow((zAlpha+zPower)*r.SELog/math.Log1p(d), 2)
	return max(1, int(math.Ceil(need)))
}
