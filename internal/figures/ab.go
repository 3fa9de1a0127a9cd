package figures

import (
	"math"
	"strconv"
	"strings"

	"ttftlab/internal/artifact"
	"ttftlab/internal/interval"
)

// ABFigure is one statistic of one figure of an A/B comparison: the
// figure pooled over each variant's runs, B/A of the statistic with the
// bootstrap interval, and the verdict after the Holm correction over
// every statistic of every figure compared.
type ABFigure struct {
	Name string
	// Stat is the statistic compared ("p50", "p95"); "" for a figure only
	// one variant has.
	Stat string
	// A and B are the figure pooled over the runs of each variant; nil
	// when that variant has no sample of it.
	A, B *artifact.Figure
	// AValue and BValue are the statistic of each variant's pooled samples
	// (+Inf when it falls on a failed request).
	AValue, BValue float64
	// OnlyIn is "A" or "B" when only that variant has the figure (no
	// ratio, no verdict), else "".
	OnlyIn string
	// Ratio is B/A of the statistic with the interval its verdict was
	// made with, at the level of its Holm step (Ratio.Level: it excludes
	// 1 when the verdict is faster or slower, holds 1 when not);
	// Ratio.Unbounded when it has no interval (too few samples, or a
	// statistic that is a failure).
	Ratio    interval.Ratio
	Verdict  interval.Verdict
	RunsFor5 int
	// TooFew is set when a variant's samples cannot bound the statistic
	// (Bounds), so no bootstrap was run.
	TooFew bool
	// AllZero is set when every sample of both variants is 0: B is A
	// exactly (B/A 1, its interval [1, 1], no difference detected), with
	// no bootstrap and outside Holm's family.
	AllZero bool
}

// AB is a comparison of variant A with variant B over their runs.
type AB struct {
	// Stats names the statistics compared, in order: "p50" (the median),
	// then any others asked for.
	Stats []string
	Seed  uint64
	// Reps is the replicates of every figure's bootstrap: the number
	// asked for, or more when Holm's finest level over the figures
	// compared needs more (interval.RepsFor).
	Reps         int
	RunsA, RunsB int
	// DriftCovered is true when each variant has at least two runs, so the
	// bootstrap resamples runs and the drift between runs is in the
	// intervals; with one run per variant only the requests are resampled.
	DriftCovered bool
	Figures      []ABFigure
}

// CompareAB compares variant B with variant A: a[i] and b[i] are the
// samples of run i of each (a run may lack a figure). For every figure
// both have and every statistic of stats ("p50", "p95": percentiles; nil
// means just the median), B/A with its seeded two-level bootstrap
// interval (interval.RatioCI: runs, then requests inside runs), the
// verdicts corrected by Holm over all of them (interval.Verdicts), each
// with the interval it was made with (at its Holm step's level), and the
// runs per variant that would detect 5 %. A statistic that a variant's
// samples cannot bound (Bounds) is "too few samples" without a bootstrap,
// and one that is 0 in every sample of both is "no difference detected"
// (B/A 1 [1, 1]) without one, since B/A of 0 is no ratio to draw:
// the bootstrap cannot draw beyond the samples, so from so few values its
// interval would be narrower than the figure's own, and it would claim a
// difference whenever the samples happen not to overlap. Figures are in
// the order of their first appearance in A, then those only B has; a
// figure's statistics in the order of stats. reps <= 0 means 1000; more
// are drawn when the figures compared need them (interval.RepsFor: 1000
// resolve Holm's levels over up to 23 figures).
func CompareAB(a, b [][]Sample, stats []string, seed uint64, reps int) AB {
	if reps <= 0 {
		reps = 1000
	}
	if len(stats) == 0 {
		stats = []string{"p50"}
	}
	out := AB{Stats: stats, Seed: seed, Reps: reps, RunsA: len(a), RunsB: len(b), DriftCovered: len(a) >= 2 && len(b) >= 2}
	pa, pb := Pool(a), Pool(b)
	byA, byB := map[string]int{}, map[string]int{}
	for i, f := range pa {
		byA[f.Name] = i
	}
	for i, f := range pb {
		byB[f.Name] = i
	}
	// First the figures and which of them get a bootstrap, so that the
	// replicates are enough for Holm's finest level over all of them.
	type runsOfFig struct {
		a, b [][]float64
		stat interval.Stat
	}
	var compared []int
	var sides []runsOfFig
	for _, f := range pa {
		fa := f
		j, ok := byB[f.Name]
		if !ok {
			out.Figures = append(out.Figures, ABFigure{Name: f.Name, A: &fa, OnlyIn: "A"})
			continue
		}
		fb := pb[j]
		ra, rb := runsOf(a, f.Name), runsOf(b, f.Name)
		for _, st := range stats {
			p := percentileOf(st)
			stat := interval.Quantile(p)
			fig := ABFigure{Name: f.Name, Stat: st, A: &fa, B: &fb, AValue: stat(flat(ra)), BValue: stat(flat(rb))}
			if !Bounds(flat(ra), p) || !Bounds(flat(rb), p) || !ExactTestPossible(count(ra), count(rb)) {
				fig.TooFew = true
				fig.Ratio = interval.Ratio{Ratio: fig.BValue / fig.AValue, RunsA: len(ra), RunsB: len(rb), Seed: seed, Unbounded: true}
				fig.Verdict = interval.Undecided
				out.Figures = append(out.Figures, fig)
				continue
			}
			if allZero(ra) && allZero(rb) {
				// A time that is 0 in every sample of both (no stall, no
				// underrun): B is A exactly, though B/A of 0 is no number
				// a bootstrap can draw.
				fig.Ratio = interval.Ratio{Ratio: 1, Lo: 1, Hi: 1, Level: interval.Level, P: 1, RunsA: len(ra), RunsB: len(rb), Seed: seed}
				fig.Verdict, fig.AllZero = interval.NoDifference, true
				out.Figures = append(out.Figures, fig)
				continue
			}
			compared = append(compared, len(out.Figures))
			sides = append(sides, runsOfFig{ra, rb, stat})
			out.Figures = append(out.Figures, fig)
		}
	}
	out.Reps = max(reps, interval.RepsFor(len(compared)))
	names := make([]string, len(compared))
	ratios := make([]interval.Ratio, len(compared))
	for k, i := range compared {
		f := &out.Figures[i]
		names[k] = f.Name + " " + f.Stat
		ratios[k] = interval.RatioCI(sides[k].a, sides[k].b, sides[k].stat, out.Reps, seed)
	}
	for k, v := range interval.Verdicts(names, ratios) {
		f := &out.Figures[compared[k]]
		f.Ratio, f.Verdict, f.RunsFor5 = v.Ratio, v.Verdict, v.RunsFor5
	}
	for i := range out.Figures {
		if out.Figures[i].OnlyIn == "" {
			out.Figures[i].Ratio.Reps = out.Reps
		}
	}
	for _, f := range pb {
		if _, ok := byA[f.Name]; !ok {
			fb := f
			out.Figures = append(out.Figures, ABFigure{Name: f.Name, B: &fb, OnlyIn: "B"})
		}
	}
	return out
}

// percentileOf reads a statistic's name, "p50" or "p95", as its
// percentile; anything else is the median.
func percentileOf(st string) float64 {
	p, err := strconv.ParseFloat(strings.TrimPrefix(st, "p"), 64)
	if err != nil || !(p > 0 && p < 100) {
		return 50
	}
	return p
}

// Bounds says whether samples bound their p-th percentile at all: its
// order-statistic interval, the one the pages show, is bounded (p50 needs
// 6 samples, p95 72) and neither bound falls on a failed request.
func Bounds(samples []float64, p float64) bool {
	return interval.Late(samples, 0, p).Finite()
}

// ExactTestPossible says whether na samples of A and nb of B are enough
// for any test to call a difference at interval.Alpha: an exact
// permutation test's smallest two-sided p-value, 2 / C(na+nb, na), must
// not exceed it (3 against 3 gives 0.1, 4 against 4 gives 0.029). Below
// that the samples cannot show a difference, however far apart they lie.
func ExactTestPossible(na, nb int) bool {
	if na < 1 || nb < 1 {
		return false
	}
	lc, _ := math.Lgamma(float64(na + nb + 1))
	la, _ := math.Lgamma(float64(na + 1))
	lb, _ := math.Lgamma(float64(nb + 1))
	return math.Log(2)-(lc-la-lb) <= math.Log(interval.Alpha)+1e-12
}

// ABBAOrder is the order of 2n runs, n of each variant, interleaved as
// A B B A A B B A ...: a drift over the runs falls on both variants alike.
func ABBAOrder(n int) []string {
	out := make([]string, 0, 2*n)
	for k := 0; k < 2*n; k++ {
		if k%4 == 0 || k%4 == 3 {
			out = append(out, "A")
		} else {
			out = append(out, "B")
		}
	}
	return out
}

// runsOf is the values of a figure in each run that has it.
func runsOf(runs [][]Sample, name string) [][]float64 {
	var out [][]float64
	for _, run := range runs {
		var vs []float64
		for _, s := range run {
			if s.Name == name {
				vs = append(vs, s.Values...)
			}
		}
		if len(vs) > 0 {
			out = append(out, vs)
		}
	}
	return out
}

// allZero says whether every value of the runs is 0.
func allZero(runs [][]float64) bool {
	for _, r := range runs {
		for _, v := range r {
			if v != 0 {
				return false
			}
		}
	}
	return true
}

func count(runs [][]float64) int {
	n := 0
	for _, r := range runs {
		for _, v := range r {
			if !math.IsNaN(v) {
				n++
			}
		}
	}
	return n
}

func flat(runs [][]float64) []float64 {
	var out []float64
	for _, r := range runs {
		out = append(out, r...)
	}
	return out
}
