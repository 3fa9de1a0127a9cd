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

// Figure is one figure's comparison: its ratio, its verdict after the Holm
// correction over all figures compared at once, and the runs per variant
// that would detect a 5 % difference.
type Figure struct {
	Name    string
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
// ratios (family-wise error rate Alpha) and gives each figure its verdict.
// The order of names and ratios is kept.
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
	for k, i := range idx {
		if ratios[i].P > Alpha/float64(m-k) {
			break // Holm: this and every larger p-value are not significant
		}
		if ratios[i].Ratio < 1 {
			out[i].Verdict = Faster
		} else {
			out[i].Verdict = Slower
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
