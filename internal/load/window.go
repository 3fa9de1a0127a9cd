package load

import (
	"math"
	"sort"

	"ttftlab/internal/artifact"
	"ttftlab/internal/interval"
)

// The steady window of a level (docs/statistics.md, "The steady window:
// MSER-5").
const (
	// WindowRule names the rule that finds a level's steady window.
	WindowRule = "MSER-5"
	// WindowMetric is the figure it is found on: every request that got
	// a first token has it, and a cold start slows it first.
	WindowMetric = "ttft_ms"
	// WindowBatch is the requests a batch of MSER-5 averages.
	WindowBatch = 5
	// WindowMinBatches is the fewest batches MSER-5 is run on: with
	// fewer, nothing is cut.
	WindowMinBatches = 4
)

// Truncation is where MSER cuts a series: Cut of its Batches batches
// (the series' values past the last whole batch are in no batch and
// never cut). Known is false with fewer than WindowMinBatches batches.
type Truncation struct {
	Batches, Cut int
	Known        bool
}

// MSER is the truncation of xs (one figure in the order the requests
// started, finite values) by MSER with batches of batch values: the
// batch means Z_1..Z_b, and the cut d (0 <= d <= b/2) that minimises
// MSER(d) = sum over j > d of (Z_j - mean(Z_d+1..Z_b))^2 / (b-d)^2, the
// smallest such d on a tie. The transient is then the run of batches
// from the first, up to d, each apart from the window Z_d+1..Z_b: on the
// side of the cut batches' mean, beyond SteadyTolerance of the window's
// mean and beyond its 95 % prediction interval (t with b-d-1 degrees of
// freedom). So a steady series is seldom cut (MSER alone cuts a batch of
// chance spread now and then), and a chance batch in a steady tail does
// not pull the batches before it into the transient.
func MSER(xs []float64, batch int) Truncation {
	b := len(xs) / batch
	t := Truncation{Batches: b}
	if b < WindowMinBatches {
		return t
	}
	t.Known = true
	z := make([]float64, b)
	for j := range z {
		sum := 0.0
		for _, x := range xs[j*batch : (j+1)*batch] {
			sum += x
		}
		z[j] = sum / float64(batch)
	}
	best, cut := math.Inf(1), 0
	for d := 0; d <= b/2; d++ {
		w := z[d:]
		m := interval.MeanCI(w).Mean
		ss := 0.0
		for _, x := range w {
			ss += (x - m) * (x - m)
		}
		if stat := ss / float64(len(w)*len(w)); stat < best {
			best, cut = stat, d
		}
	}
	if cut > 0 {
		// The transient is the run of batches from the first, up to
		// MSER's cut, each apart from the window MSER found: on the side
		// of the cut's mean, beyond SteadyTolerance of the window's mean
		// and its 95 % prediction interval. A steady tail holds a batch
		// MSER would cut for its chance spread alone; the batches before
		// it are no transient.
		w := interval.MeanCI(z[cut:])
		up := interval.MeanCI(z[:cut]).Mean > w.Mean
		reach := SteadyTolerance * math.Abs(w.Mean)
		if w.SD > 0 {
			reach = max(reach, interval.TQuantile(0.975, float64(w.N-1))*w.SD*math.Sqrt(1+1/float64(w.N)))
		}
		run := 0
		for run < cut && (z[run] > w.Mean) == up && math.Abs(z[run]-w.Mean) > reach {
			run++
		}
		cut = run
	}
	t.Cut = cut
	return t
}

// startOrder is the places in rows of the requests that are not warm-up,
// in the order they started: by index, or by starts when given (the
// rows' starts on the wall clock, an unknown one last).
func startOrder(rows []artifact.LoadRequest, starts []float64) []int {
	type one struct {
		at float64
		i  int
	}
	var xs []one
	for i, r := range rows {
		if r.Warmup {
			continue
		}
		at := float64(r.Index)
		if starts != nil {
			at = starts[i]
			if math.IsNaN(at) {
				at = math.Inf(1)
			}
		}
		xs = append(xs, one{at, i})
	}
	sort.SliceStable(xs, func(i, j int) bool { return xs[i].at < xs[j].at })
	out := make([]int, len(xs))
	for k, o := range xs {
		out[k] = o.i
	}
	return out
}

// SteadyWindow is the steady window of a level's rows (MSER on
// WindowMetric, batches of WindowBatch, over the requests after warm-up
// in the order they started: startOrder), and which rows are its
// transient: the requests before the window that did not fail (a failed
// request counts wherever it falls). A request without the figure is in
// no batch; it is transient when it started before the window.
func SteadyWindow(rows []artifact.LoadRequest, starts []float64) (artifact.SteadyWindow, []bool) {
	order := startOrder(rows, starts)
	var xs []float64
	var at []int // xs[k] is the request at order[at[k]]
	for k, i := range order {
		if p := rows[i].Metric(WindowMetric); p != nil && !math.IsNaN(*p) && !math.IsInf(*p, 0) {
			xs = append(xs, *p)
			at = append(at, k)
		}
	}
	t := MSER(xs, WindowBatch)
	w := artifact.SteadyWindow{Metric: WindowMetric, Rule: WindowRule, Batch: WindowBatch, Batches: t.Batches, Known: t.Known, FromRequest: 1}
	transient := make([]bool, len(rows))
	if t.Cut == 0 {
		return w, transient
	}
	from := at[t.Cut*WindowBatch]
	w.FromRequest = from + 1
	if starts == nil {
		idx := rows[order[from]].Index
		w.FromIndex = &idx
	}
	for _, i := range order[:from] {
		if rows[i].ErrorKind == nil {
			transient[i] = true
			w.LeftOut++
		}
	}
	return w, transient
}

// Measured are the rows a level's figures are over: neither warm-up nor
// the transient before its steady window (SteadyWindow, in index order),
// in their order.
func Measured(rows []artifact.LoadRequest) []artifact.LoadRequest {
	_, transient := SteadyWindow(rows, nil)
	out := make([]artifact.LoadRequest, 0, len(rows))
	for i, r := range rows {
		if !r.Warmup && !transient[i] {
			out = append(out, r)
		}
	}
	return out
}

// sloCalls are the calls of a round's values of each SLO (sloValues'),
// in the same order, each value's row's call (callOf); nil without SLOs.
func sloCalls(rows []artifact.LoadRequest, slos []artifact.SLO) [][]int {
	if len(slos) == 0 {
		return nil
	}
	measured := Measured(rows)
	calls := make([]int, len(measured))
	for i, r := range measured {
		calls[i] = callOf(r, i)
	}
	out := make([][]int, len(slos))
	for i := range out {
		out[i] = calls
	}
	return out
}
