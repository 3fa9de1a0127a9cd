package chart

import (
	"fmt"
	"math"
	"sync"

	"gonum.org/v1/plot"
)

// margin is the share of the X axis left free past the last mark, so a
// bar that ends last still shows its end.
const margin = 0.03

// Fit widens the X axis of p so every mark lies inside it with a margin
// at the right end: a range set by hand that would cut a bar or a marker
// (or the library's own range, which ends exactly at the last mark) is
// stretched to hold it. A logarithmic axis is left as it is.
func Fit(p *plot.Plot) {
	if _, log := p.X.Scale.(plot.LogScale); log {
		return
	}
	lo, hi, ok := xExtent(p)
	if !ok {
		return
	}
	p.X.Min = math.Min(p.X.Min, lo)
	span := math.Max(hi, p.X.Max) - p.X.Min
	if span <= 0 {
		span = math.Max(1, math.Abs(hi))
	}
	if hi > p.X.Max-margin*span/2 {
		p.X.Max = hi + margin*span
	}
}

// Outside names the marks of p whose X lies outside the axis, or at its
// right end (where half the mark would be cut); nil when every mark is
// inside.
func Outside(p *plot.Plot) error {
	span := p.X.Max - p.X.Min
	for i, pl := range marksOf(p) {
		r, ok := pl.(plot.DataRanger)
		if !ok {
			continue
		}
		xmin, xmax, _, _ := r.DataRange()
		if math.IsInf(xmin, 0) || math.IsInf(xmax, 0) {
			continue
		}
		if xmin < p.X.Min || xmax > p.X.Max || (span > 0 && xmax >= p.X.Max-span*1e-9 && xmax > xmin) {
			return fmt.Errorf("mark %d (%T) spans x %g..%g, the axis %g..%g", i, pl, xmin, xmax, p.X.Min, p.X.Max)
		}
	}
	return nil
}

// xExtent is the X range of every mark of p.
func xExtent(p *plot.Plot) (lo, hi float64, ok bool) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, pl := range marksOf(p) {
		r, isR := pl.(plot.DataRanger)
		if !isR {
			continue
		}
		xmin, xmax, _, _ := r.DataRange()
		if math.IsInf(xmin, 0) || math.IsInf(xmax, 0) || math.IsNaN(xmin) || math.IsNaN(xmax) {
			continue
		}
		lo, hi = math.Min(lo, xmin), math.Max(hi, xmax)
	}
	return lo, hi, hi >= lo
}

// drawn are the marks added to each plot through this package, for Fit
// and Outside (the library keeps its own list unexported); SVG forgets a
// plot once drawn.
var drawn = struct {
	sync.Mutex
	m map[*plot.Plot][]plot.Plotter
}{m: map[*plot.Plot][]plot.Plotter{}}

func add(p *plot.Plot, x plot.Plotter) {
	p.Add(x)
	drawn.Lock()
	drawn.m[p] = append(drawn.m[p], x)
	drawn.Unlock()
}

func marksOf(p *plot.Plot) []plot.Plotter {
	drawn.Lock()
	defer drawn.Unlock()
	return drawn.m[p]
}

func forget(p *plot.Plot) {
	drawn.Lock()
	delete(drawn.m, p)
	drawn.Unlock()
}
