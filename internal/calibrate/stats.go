package calibrate

import (
	"math"
	"slices"
)

// Summary describes a sample of durations, in microseconds.
type Summary struct {
	N   int     `json:"n"`
	Min float64 `json:"min_us"`
	P50 float64 `json:"p50_us"`
	P90 float64 `json:"p90_us"`
	P99 float64 `json:"p99_us"`
	Max float64 `json:"max_us"`
}

// summarize takes nearest-rank percentiles of ns (reordering it): p99 of
// 30 values is the largest, not an interpolation past the data.
func summarize(ns []int64) Summary {
	if len(ns) == 0 {
		return Summary{}
	}
	slices.Sort(ns)
	rank := func(p float64) float64 {
		i := int(math.Ceil(p/100*float64(len(ns)))) - 1
		return us(ns[max(i, 0)])
	}
	return Summary{N: len(ns), Min: us(ns[0]), P50: rank(50), P90: rank(90), P99: rank(99), Max: us(ns[len(ns)-1])}
}

func us(ns int64) float64 { return float64(ns) / 1e3 }

// stampErrors pairs a client's arrival stamps with the server's send
// stamps by chunk index (1..chunks): arrival minus send, in ns. missing
// counts chunks without both stamps.
func stampErrors(send, arrive []int64, chunks int) (errs []int64, missing int) {
	errs = make([]int64, 0, chunks)
	for i := 1; i <= chunks; i++ {
		if i >= len(send) || i >= len(arrive) || send[i] == 0 || arrive[i] == 0 {
			missing++
			continue
		}
		errs = append(errs, arrive[i]-send[i])
	}
	return errs, missing
}

// lateness is how much later than scheduled each write went out, in ns:
// it shows whether the server held the schedule (it cannot be early).
func lateness(send []int64, s Schedule) []int64 {
	gap := s.Gap().Nanoseconds()
	if gap == 0 || len(send) == 0 {
		return nil
	}
	b := s.burstSize()
	var late []int64
	for w := 0; w < s.Writes(); w++ {
		first := w*b + 1
		if first >= len(send) || send[first] == 0 {
			break
		}
		late = append(late, send[first]-(send[0]+int64(w+1)*gap))
	}
	return late
}
