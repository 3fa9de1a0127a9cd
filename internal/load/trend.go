package load

import (
	"math"

	"ttftlab/internal/interval"
)

// Window is the median of a run of consecutive requests of a level (in
// the order they started): From is the first one's place (0-based), N
// how many; P50 with its 95 % order-statistic interval [Lo, Hi] (a late
// request, +Inf, above every value: a bound or the median may be +Inf).
// Bounded is false when N cannot bound the median (fewer than 6).
type Window struct {
	From, N int
	P50     float64
	Lo, Hi  float64
	Bounded bool
}

// Trend is how a level's latency moved over its requests: the medians of
// its first, middle and last thirds, and the rank correlation of its
// batch means with time.
type Trend struct {
	Thirds [3]Window
	// Rising: each third's median interval lies wholly above the one
	// before, and the last third's median is at least the minimum rise
	// above the first's: the latency keeps growing (over-saturation).
	Rising bool
	// Steady: the first and last thirds' median intervals overlap, or
	// their medians differ by at most SteadyTolerance of the lower, or by
	// at most the minimum rise. Known
	// is false when a third has too few requests to bound its median
	// (fewer than 6, so fewer than 18 requests): nothing is said then.
	Steady, Known bool
	// Drift is the rank correlation of the batch means with time: a
	// trend across the level that the thirds' intervals may not show.
	Drift Drift
}

// Drift is the trend test of a level's requests: the means of batches of
// TrendBatch requests in the order they started (a late request makes its
// batch's mean late, above every other), and Spearman's rank correlation
// of those means with time. Drifting: its p-value is below 5 % and the
// first and last thirds' medians differ by more than the steady state's
// tolerance (SteadyTolerance of the lower, or the minimum rise): a
// trend the level's figures mix, too large to be no change of regime.
type Drift struct {
	Batches  int
	Rank     interval.Rank
	Drifting bool
}

// TrendBatch is the requests a batch mean of the drift test averages.
const TrendBatch = WindowBatch

// SteadyTolerance is the share by which the first and last thirds'
// medians may differ and still be steady when their intervals are apart:
// with many fast requests the intervals are narrow, and a drift of a few
// percent is no change of regime.
const SteadyTolerance = 0.10

// RiseShare is the share of the first SLO's limit that a level's lateness
// must rise by to be over-saturated, and the least change that leaves the
// steady state (docs/statistics.md).
const RiseShare = 0.1

// TrendOf splits xs (one figure of a level's requests in the order they
// started; NaN left out, +Inf a late request) into thirds and compares
// their medians; minRise is the rise, in the figure's unit, that counts
// as growth, and the least change that leaves the steady state.
func TrendOf(xs []float64, minRise float64) Trend {
	s := make([]float64, 0, len(xs))
	for _, x := range xs {
		if !math.IsNaN(x) {
			s = append(s, x)
		}
	}
	var t Trend
	n := len(s)
	for i := range 3 {
		from, to := i*n/3, (i+1)*n/3
		t.Thirds[i] = windowOf(s[from:to], from)
	}
	a, b, c := t.Thirds[0], t.Thirds[1], t.Thirds[2]
	t.Known = a.Bounded && c.Bounded
	apart := a.Hi < c.Lo || c.Hi < a.Lo
	t.Steady = !t.Known || !apart || math.Abs(c.P50-a.P50) <= math.Max(SteadyTolerance*math.Min(a.P50, c.P50), minRise)
	t.Rising = a.Bounded && b.Bounded && c.Bounded && b.Lo > a.Hi && c.Lo > b.Hi && c.P50-a.P50 >= minRise
	means := make([]float64, n/TrendBatch)
	for j := range means {
		sum := 0.0
		for _, x := range s[j*TrendBatch : (j+1)*TrendBatch] {
			sum += x
		}
		means[j] = sum / TrendBatch
	}
	t.Drift = Drift{Batches: len(means), Rank: interval.Spearman(means)}
	moved := math.Abs(c.P50-a.P50) > math.Max(SteadyTolerance*math.Min(a.P50, c.P50), minRise)
	t.Drift.Drifting = t.Drift.Rank.Known && t.Drift.Rank.P < 1-interval.Level && moved
	return t
}

// windowOf is the median of xs with its interval (interval.Late).
func windowOf(xs []float64, from int) Window {
	w := Window{From: from, N: len(xs), P50: math.NaN()}
	if len(xs) == 0 {
		return w
	}
	l := interval.Late(xs, 0, 50)
	w.P50 = l.Value // +Inf when it falls on a late request
	if l.Bounded() {
		w.Lo, w.Hi, w.Bounded = l.Lo, l.Hi, true
	}
	return w
}
