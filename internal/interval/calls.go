package interval

import (
	"math"
	"sort"
)

// CallsPercentile is a percentile over requests grouped into calls (the
// turns of one conversation share its slot, its cache and its history, so
// they are not independent draws) with its Level interval widened for
// that: Late's order-statistic interval over Effective samples instead of
// N, its ranks scaled back onto the N.
type CallsPercentile struct {
	LatePercentile
	// Calls is how many calls the values came from.
	Calls int
	// DesignEffect is how many times the variance of the share of values
	// at or below the percentile, resampling whole calls (the block
	// bootstrap over calls, its variance computed exactly), exceeds that
	// of independent values: 1 when each call is one value, never below 1.
	DesignEffect float64
	// Effective is N / DesignEffect, rounded down: the independent values
	// the calls are worth.
	Effective int
}

// LateCalls is Late(xs, 0, p) over values grouped by call (calls[i] is
// xs[i]'s; NaN values are left out, +Inf are late) with the interval
// accounting for the correlation of a call's values. Let q be the share
// of the N values at or below the percentile, K_c and m_c a call's values
// at or below it and in all; resampling whole calls, the variance of that
// share is Σ_c (K_c − q·m_c)² / N² (the block bootstrap's, exactly: no
// replicates are drawn, so no seed), against q(1−q)/N for independent
// values. Their ratio, at least 1, is the design effect d; the interval is
// the order-statistic interval of floor(N/d) samples at p, its ranks
// scaled by N/floor(N/d) outward onto the sorted values. When every call
// is one value d is 1 and the result is Late's exactly. Values of one
// call alone (N > 1) bound nothing: nothing is known of how calls differ.
func LateCalls(xs []float64, calls []int, p float64) CallsPercentile {
	var s []float64
	var c []int
	for i, x := range xs {
		if !math.IsNaN(x) {
			s, c = append(s, x), append(c, calls[i])
		}
	}
	out := CallsPercentile{LatePercentile: Late(s, 0, p), DesignEffect: 1, Effective: len(s)}
	n := len(s)
	m := map[int]int{}
	for _, id := range c {
		m[id]++
	}
	out.Calls = len(m)
	if n == 0 || out.Calls == n {
		return out
	}
	if out.Calls < 2 {
		out.unbound()
		out.Effective = 1
		out.DesignEffect = float64(n)
		return out
	}
	// The share at or below the percentile (a late one never is: an
	// unknown percentile has every finite value below it).
	at := out.Value
	k := map[int]int{}
	below := 0
	for i, x := range s {
		if x <= at && !math.IsInf(x, 1) {
			k[c[i]]++
			below++
		}
	}
	q := float64(below) / float64(n)
	if q <= 0 || q >= 1 {
		return out
	}
	ss := 0.0
	for id, mc := range m {
		d := float64(k[id]) - q*float64(mc)
		ss += d * d
	}
	deff := ss / (float64(n) * q * (1 - q))
	if !(deff > 1+1e-9) {
		return out
	}
	out.DesignEffect = deff
	eff := int(math.Floor(float64(n) / deff))
	out.Effective = eff
	if eff < 1 {
		out.unbound()
		return out
	}
	lo, hi, cov := PercentileRanks(eff, p, Level)
	scale := float64(n) / float64(eff)
	sorted := append([]float64(nil), s...)
	sort.Float64s(sorted) // +Inf last
	out.LoRank, out.HiRank, out.Coverage = 0, 0, cov
	out.Lo, out.Hi = math.Inf(-1), math.Inf(1)
	if lo > 0 {
		out.LoRank = max(1, int(math.Floor(float64(lo)*scale)))
		out.Lo = sorted[out.LoRank-1]
	}
	if hi > 0 {
		out.HiRank = min(n, int(math.Ceil(float64(hi)*scale)))
		out.Hi = sorted[out.HiRank-1]
	}
	if lo == 0 || hi == 0 {
		out.Coverage = 0
	}
	return out
}

// unbound leaves the percentile without an interval on either side.
func (c *CallsPercentile) unbound() {
	c.LoRank, c.HiRank, c.Coverage = 0, 0, 0
	c.Lo, c.Hi = math.Inf(-1), math.Inf(1)
}

// CallsCI is PercentileCI over values grouped by call (LateCalls): the
// interval of the p-th percentile of xs, calls[i] being xs[i]'s call;
// nil calls take every value as its own call (PercentileCI).
func CallsCI(xs []float64, calls []int, p float64) Percentile {
	if calls == nil {
		return PercentileCI(xs, p)
	}
	return LateCalls(xs, calls, p).interval()
}
