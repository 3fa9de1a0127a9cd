package artifact

import "math"

// Dist is one figure's distribution over N samples, and what the samples
// are (Over, e.g. "requests with a first token"). With N = 0 every
// percentile is null.
type Dist struct {
	N    int      `json:"n"`
	Over string   `json:"over,omitempty"`
	P50  *float64 `json:"p50"`
	P90  *float64 `json:"p90"`
	P95  *float64 `json:"p95"`
	P99  *float64 `json:"p99"`
	Mean *float64 `json:"mean"`
	Max  *float64 `json:"max"`
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
