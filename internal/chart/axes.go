package chart

import (
	"math"
	"strconv"

	"gonum.org/v1/plot"
)

// Rows labels the Y axis of a timeline: row i is named names[i], row 0
// at the top, with room for legend rows above it so the legend covers
// no bar.
func Rows(p *plot.Plot, names []string, legendRows float64) {
	ticks := make([]plot.Tick, len(names))
	for i, n := range names {
		ticks[i] = plot.Tick{Value: float64(i), Label: n}
	}
	p.Y.Tick.Marker = plot.ConstantTicks(ticks)
	p.Y.Scale = plot.InvertedScale{Normalizer: plot.LinearScale{}}
	p.Y.Min, p.Y.Max = -0.5-legendRows, float64(len(names))-0.5
	p.Y.Padding = 0
}

// Headroom raises the top of the Y axis so the legend, in the top left
// corner, does not cover the data: the data then fill the lower part.
func Headroom(p *plot.Plot, part float64) {
	if p.Y.Max > p.Y.Min {
		p.Y.Max += (p.Y.Max - p.Y.Min) * part
	}
}

// FromZero starts the Y axis at zero, where times and counts start. An
// axis with nothing above zero (every value 0, or no value) runs from 0
// to 1, never from -1 to 1 as gonum/plot would widen it.
func FromZero(p *plot.Plot) {
	if p.Y.Min > 0 || math.IsInf(p.Y.Min, 0) || math.IsNaN(p.Y.Min) {
		p.Y.Min = 0
	}
	if !(p.Y.Max > p.Y.Min) {
		p.Y.Max = p.Y.Min + 1
	}
}

// IntegerTicks marks every whole number of the axis (runs, positions),
// or every few when there are many.
type IntegerTicks struct{}

func (IntegerTicks) Ticks(lo, hi float64) []plot.Tick {
	step := 1.0
	for (hi-lo)/step > 12 {
		step *= 2
	}
	var out []plot.Tick
	for v := math.Ceil(lo); v <= hi; v += step {
		out = append(out, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', -1, 64)})
	}
	return out
}

// NiceTicks labels about five round values (1, 2 or 5 times a power of
// ten) across the axis, written as plain numbers.
type NiceTicks struct{}

func (NiceTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) {
		return []plot.Tick{{Value: lo, Label: label(lo, 1)}}
	}
	step := niceStep((hi - lo) / 5)
	var out []plot.Tick
	for v := math.Ceil(lo/step) * step; v <= hi+step*1e-9; v += step {
		out = append(out, plot.Tick{Value: v, Label: label(v, step)})
		out = append(out, plot.Tick{Value: v + step/2})
	}
	return out
}

func niceStep(x float64) float64 {
	e := math.Pow(10, math.Floor(math.Log10(x)))
	switch f := x / e; {
	case f <= 1:
		return e
	case f <= 2:
		return 2 * e
	case f <= 5:
		return 5 * e
	}
	return 10 * e
}

// label writes v rounded to the step's precision, so 0.30000000000000004
// reads 0.3.
func label(v, step float64) string {
	digits := max(0, int(-math.Floor(math.Log10(step))))
	v = math.Round(v*math.Pow(10, float64(digits))) / math.Pow(10, float64(digits))
	if v == 0 {
		v = 0
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// RatioTicks label a logarithmic axis of ratios at 1, 2 and 5 times the
// powers of ten ("0.5×", "1×", "2×").
type RatioTicks struct{}

func (RatioTicks) Ticks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		for _, m := range []float64{1, 2, 5} {
			v := m * math.Pow(10, e)
			if v >= lo*0.999 && v <= hi*1.001 {
				out = append(out, plot.Tick{Value: v, Label: label(v, v) + "×"})
			}
		}
	}
	return out
}

// RatioAxis makes the X axis a logarithmic scale of ratios around 1, wide
// enough for lo and hi.
func RatioAxis(p *plot.Plot, lo, hi float64) {
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = RatioTicks{}
	p.X.Min, p.X.Max = math.Min(lo, 1)/1.25, math.Max(hi, 1)*1.25
}
