package interval

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// agrees says whether a figure's interval says what its verdict says:
// faster and slower lie wholly on one side of 1, no difference detected
// holds 1, too few samples has no interval.
func agrees(f Figure) bool {
	r := f.Ratio
	switch f.Verdict {
	case Faster:
		return !r.Unbounded && r.Hi < 1
	case Slower:
		return !r.Unbounded && r.Lo > 1
	case NoDifference:
		return !r.Unbounded && r.Lo <= 1 && 1 <= r.Hi
	}
	return r.Unbounded
}

// randomFamily is 1 to 6 figures of one comparison, each B/A of the
// median of lognormal samples (one run a side, or 2 to 4 runs), B shifted
// by a factor near 1 so that many figures fall near Holm's thresholds;
// some figures' samples are rounded to whole milliseconds, which makes
// replicates tie at exactly 1.
func randomFamily(rng *rand.Rand) ([]string, []Ratio) {
	m := 1 + rng.IntN(6)
	names := make([]string, m)
	ratios := make([]Ratio, m)
	for i := range ratios {
		runs := 1
		if rng.IntN(3) == 0 {
			runs = 2 + rng.IntN(3)
		}
		shift := math.Exp(0.25 * rng.NormFloat64())
		round := rng.IntN(3) == 0
		side := func(scale float64) [][]float64 {
			out := make([][]float64, runs)
			for k := range out {
				out[k] = lognormal(rng, 6+rng.IntN(40), scale)
				if round {
					for j, x := range out[k] {
						out[k][j] = math.Round(x / 100)
					}
				}
			}
			return out
		}
		a, b := side(1), side(shift)
		names[i] = string(rune('a' + i))
		ratios[i] = RatioCI(a, b, Quantile(50), RepsFor(m)+rng.IntN(100), rng.Uint64())
	}
	return names, ratios
}

// On 300 seeded random comparisons, no figure's interval disagrees with
// its verdict: a figure Holm finds faster or slower has an interval that
// excludes 1, every other one an interval that holds it. Before the
// intervals took Holm's levels, every figure's was the 95 % one, which
// excludes 1 for figures Holm leaves at no difference detected.
func TestIntervalAgreesWithVerdict(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 1))
	decided, undecided := 0, 0
	for trial := range 300 {
		names, ratios := randomFamily(rng)
		for _, f := range Verdicts(names, ratios) {
			if !agrees(f) {
				t.Fatalf("trial %d, figure %s of %d: %s with B/A %.3f [%.3f, %.3f], p %.4f", trial, f.Name, len(names), f.Verdict, f.Ratio.Ratio, f.Ratio.Lo, f.Ratio.Hi, f.Ratio.P)
			}
			if f.Verdict == Faster || f.Verdict == Slower {
				decided++
			} else {
				undecided++
			}
		}
	}
	t.Logf("%d decided, %d not", decided, undecided)
	// The inputs must reach both sides of the thresholds.
	if decided < 100 || undecided < 100 {
		t.Fatalf("%d figures decided, %d not: the inputs do not test the boundary", decided, undecided)
	}
}

// withP is a ratio of 999 replicates, c of them at B/A = 0.9 and the
// rest at 1.1 (reversed when faster), so that its p-value is p =
// 2·(c+1)/1000.
func withP(p float64, faster bool) Ratio {
	c := int(math.Round(p*500)) - 1
	logs := make([]float64, 999)
	for i := range logs {
		logs[i] = 0.1
		if i < c {
			logs[i] = -0.1
		}
		if faster {
			logs[i] = -logs[i]
		}
	}
	r := fromReplicates(Ratio{Ratio: math.Exp(logs[len(logs)/2]), Reps: 999, RunsA: 1, RunsB: 1}, logs)
	if math.Abs(r.P-p) > 1e-12 {
		panic(fmt.Sprintf("p %v, want %v", r.P, p))
	}
	return r
}

// Holm's levels: with p-values 0.04, 0.01, 0.02 over three figures all
// three are significant (0.01 <= 0.05/3, 0.02 <= 0.05/2, 0.04 <= 0.05/1),
// each at its step's level, its interval clear of 1 (at 0.9 or 1.1
// wholly); with 0.04, 0.01, 0.03 the second step fails (0.03 > 0.05/2)
// and stops the third: both not significant at 97.5 %, their intervals
// holding 1. Uncorrected, 0.03 alone is significant at 95 %.
func TestHolmLevels(t *testing.T) {
	type want struct {
		v     Verdict
		level float64
	}
	for _, c := range []struct {
		name   string
		ratios []Ratio
		want   []want
	}{
		{"all significant", []Ratio{withP(0.04, false), withP(0.01, true), withP(0.02, false)},
			[]want{{Slower, 0.95}, {Faster, 1 - 0.05/3}, {Slower, 0.975}}},
		{"the second step stops", []Ratio{withP(0.04, false), withP(0.01, true), withP(0.03, false)},
			[]want{{NoDifference, 0.975}, {Faster, 1 - 0.05/3}, {NoDifference, 0.975}}},
		{"the first step stops", []Ratio{withP(0.04, false), withP(0.02, true), withP(0.03, false)},
			[]want{{NoDifference, 1 - 0.05/3}, {NoDifference, 1 - 0.05/3}, {NoDifference, 1 - 0.05/3}}},
		{"one figure", []Ratio{withP(0.03, false)}, []want{{Slower, 0.95}}},
		{"too few samples keeps the others' count", []Ratio{withP(0.03, false), {Unbounded: true}}, []want{{Slower, 0.95}, {Undecided, 0}}},
	} {
		names := []string{"a", "b", "c"}[:len(c.ratios)]
		got := Verdicts(names, c.ratios)
		for i, w := range c.want {
			f := got[i]
			if f.Verdict != w.v || math.Abs(f.Ratio.Level-w.level) > 1e-12 || !agrees(f) {
				t.Errorf("%s: %s: %s at %v [%v, %v], want %s at %v", c.name, f.Name, f.Verdict, f.Ratio.Level, f.Ratio.Lo, f.Ratio.Hi, w.v, w.level)
			}
			if w.v == Undecided {
				continue
			}
			// The replicates are at 0.9 and 1.1 only: a significant
			// figure's interval is that point, the others' span both.
			lo, hi := math.Exp(-0.1), math.Exp(0.1)
			switch w.v {
			case Slower:
				lo = hi
			case Faster:
				hi = lo
			}
			if math.Abs(f.Ratio.Lo-lo) > 1e-12 || math.Abs(f.Ratio.Hi-hi) > 1e-12 {
				t.Errorf("%s: %s: interval [%v, %v], want [%v, %v]", c.name, f.Name, f.Ratio.Lo, f.Ratio.Hi, lo, hi)
			}
		}
	}
}

// The interval at level 1 - a excludes 1 exactly when P <= a, for every
// a, those exactly at a p-value the replicates can give included: the
// p-value and the interval are one computation.
func TestAtExcludesOneIffP(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for trial := range 200 {
		m := 40 + rng.IntN(400)
		logs := make([]float64, m)
		shift := 0.3 * rng.NormFloat64()
		for i := range logs {
			logs[i] = shift + 0.1*rng.NormFloat64()
			if rng.IntN(10) == 0 {
				logs[i] = 0 // a tie at B/A = 1
			}
		}
		r := fromReplicates(Ratio{Reps: m}, logs)
		as := []float64{r.P, math.Nextafter(r.P, 0), 0.05, 0.05 / 7, 0.2, 0.5}
		for c := range 5 {
			as = append(as, tailP(c, m), math.Nextafter(tailP(c, m), 0))
		}
		for _, a := range as {
			if !(a > 0 && a < 1) {
				continue
			}
			at := r.AtAlpha(a)
			if at.Unbounded {
				if r.P <= a {
					t.Fatalf("trial %d: p %v <= %v, yet no interval at %v", trial, r.P, a, 1-a)
				}
				continue
			}
			excludes := at.Lo > 1 || at.Hi < 1
			if excludes != (r.P <= a) {
				t.Fatalf("trial %d, m %d: p %v, at level 1-%v: [%v, %v]", trial, m, r.P, a, at.Lo, at.Hi)
			}
		}
	}
}

// RepsFor is the fewest replicates that resolve Holm's finest level
// (Alpha/figures) even with a twentieth of them discarded.
func TestRepsFor(t *testing.T) {
	if n := RepsFor(1); n != 41 {
		t.Errorf("RepsFor(1) = %d, want 41 (39 kept of 41: 2/40 = 0.05)", n)
	}
	for figures := 1; figures <= 60; figures++ {
		a := Alpha / float64(figures)
		n := RepsFor(figures)
		if trim(a, n-n/20) < 0 || trim(a, n-1-(n-1)/20) >= 0 {
			t.Errorf("RepsFor(%d) = %d: not the fewest that resolve %v", figures, n, a)
		}
	}
}

// A resample whose statistic falls on failed requests (+Inf) is
// discarded, not taken as B/A = 0 or +Inf: every interval, at every
// level a Holm step may ask, is finite and positive or there is none.
// Fails before this change: a median of A on failures gave B/A = 0, and
// the interval at 99.6 % ran down to 0.
func TestFailedResamplesAreDiscarded(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 1))
	unbounded := 0
	for trial := range 60 {
		side := func() [][]float64 {
			xs := lognormal(rng, 12, 1)
			for i := range 1 + rng.IntN(4) {
				xs[i] = math.Inf(1)
			}
			return [][]float64{xs[:6], xs[6:]}
		}
		r := RatioCI(side(), side(), Quantile(50), 2000, uint64(trial))
		if r.Unbounded {
			unbounded++
			continue
		}
		for _, alpha := range []float64{Alpha, Alpha / 12} {
			at := r.AtAlpha(alpha)
			if !at.Unbounded && !(at.Lo > 0 && at.Hi < math.Inf(1)) {
				t.Fatalf("trial %d: interval at %v: [%v, %v]", trial, at.Level, at.Lo, at.Hi)
			}
		}
	}
	if unbounded == 0 || unbounded == 60 {
		t.Fatalf("%d of 60 unbounded: the samples do not test both sides", unbounded)
	}
}
