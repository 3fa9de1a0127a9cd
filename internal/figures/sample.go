// Package figures is one figure of a run as the samples it was measured
// from, and the record of a figure pooled over repeated runs with its 95 %
// intervals (internal/interval). The report, --runs and the Lua host's
// runs() and ab() read figures through it.
package figures

import "math"

// Sample is one figure of a run as the values it was measured from: the
// five TTFTs of the ttft step, the requests of a load level. A failed
// request counts as +Inf (above every finite value), so a percentile over
// Values says what the callers met, failures included.
type Sample struct {
	// Name identifies the figure across runs ("ttft_ms", "level 4
	// first_sentence_ms"): the same name in two runs is the same figure.
	Name string
	Unit string
	// Over says what the values are ("ttft step runs, cache off").
	Over   string
	Values []float64
}

// Failed is how many values are failures (+Inf).
func (s Sample) Failed() int {
	n := 0
	for _, v := range s.Values {
		if math.IsInf(v, 1) {
			n++
		}
	}
	return n
}
