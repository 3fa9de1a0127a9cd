package artifact

import "math"

// Dist is one figure's distribution over N samples, and what the samples
// are (Over, e.g. "requests with a first token"). With N = 0 every
// percentile is null. P50CI, P95CI and P99CI are the 95 % intervals of
// those percentiles over the same N samples (docs/statistics.md), null
// when N is too small to bound them ("too few samples").
type Dist struct {
	N     int         `json:"n"`
	Over  string      `json:"over,omitempty"`
	P50   *float64    `json:"p50"`
	P50CI *[2]float64 `json:"p50_ci"`
	P90   *float64    `json:"p90"`
	P95   *float64    `json:"p95"`
	P95CI *[2]float64 `json:"p95_ci"`
	P99   *float64    `json:"p99"`
	P99CI *[2]float64 `json:"p99_ci"`
	Mean  *float64    `json:"mean"`
	Max   *float64    `json:"max"`
}

// CI is an interval as an optional value: nil when it is unbounded or a
// bound is not finite (see Num).
func CI(unbounded bool, lo, hi float64) *[2]float64 {
	if unbounded || Num(lo) == nil || Num(hi) == nil {
		return nil
	}
	return &[2]float64{lo, hi}
}

// Num is a finite number as an optional value: nil for NaN, ±Inf and
// ±math.MaxFloat64 (what a finite "huge" stood for), so a record can never
// carry a value JSON cannot hold or that no measurement gave, as
// write_json refuses the same.
func Num(x float64) *float64 {
	if math.IsNaN(x) || math.Abs(x) >= math.MaxFloat64 {
		return nil
	}
	return &x
}

// TailNeeds is the fewest values that give the p-th percentile (95) a
// tail: 100/(100-p), 20 for a p95 and 100 for a p99. Over fewer, the
// percentile is the largest value or between the two largest, not the
// tail it names (see ThinTail).
func TailNeeds(p float64) int { return int(math.Ceil(100/(100-p) - 1e-9)) }

// ThinTail says whether n values are too few for the p-th percentile to
// name a tail (TailNeeds): the console marks such a percentile "*", and
// the report says so beside it.
func ThinTail(p float64, n int) bool { return n < TailNeeds(p) }

// Unbounded says whether the distribution's p-th percentile (50, 95, 99)
// has no 95 % interval: its interval line reads "too few samples", and
// the console and the report star it. A percentile the record keeps no
// interval for (a p90) is unbounded when it is a thin tail (ThinTail).
// Never for an empty distribution, which has no percentile at all.
func (d Dist) Unbounded(p float64) bool {
	if d.N == 0 {
		return false
	}
	switch p {
	case 50:
		return d.P50CI == nil
	case 95:
		return d.P95CI == nil
	case 99:
		return d.P99CI == nil
	}
	return ThinTail(p, d.N)
}
