package chart

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Interval is a figure's 95 % interval [Lo, Hi] at At: a place on the
// category axis (a run, a level) or a row of a timeline-like chart.
type Interval struct{ At, Lo, Hi float64 }

// ErrorBars draw intervals as whiskers with a cap at each end: vertical
// (the values on the Y axis, At on X) or horizontal (the values on X, At
// a row on Y). Each bar is one stroked path.
type ErrorBars struct {
	Items      []Interval
	Color      color.Color
	Horizontal bool
	// Cap is the width of each end's cap, in points.
	Cap vg.Length
}

// AddErrorBars adds the intervals of items to p in colour c, named in the
// legend; no items, no legend entry. An interval with a bound that is not
// finite is left out (it has no bar: "too few samples").
func AddErrorBars(p *plot.Plot, name string, items []Interval, c color.Color, horizontal bool) {
	var keep []Interval
	for _, it := range items {
		if finite(it.At) && finite(it.Lo) && finite(it.Hi) {
			keep = append(keep, it)
		}
	}
	if len(keep) == 0 {
		return
	}
	e := &ErrorBars{Items: keep, Color: c, Horizontal: horizontal, Cap: 7}
	add(p, e)
	if name != "" {
		p.Legend.Add(name, e)
	}
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

func (e *ErrorBars) style() draw.LineStyle { return draw.LineStyle{Color: e.Color, Width: 1.5} }

// bar is one whisker from a to b (points on the canvas) with caps across
// it at both ends, as one path.
func (e *ErrorBars) bar(c *draw.Canvas, a, b vg.Point) {
	h := e.Cap / 2
	var path vg.Path
	if e.Horizontal {
		path.Move(vg.Point{X: a.X, Y: a.Y - h})
		path.Line(vg.Point{X: a.X, Y: a.Y + h})
		path.Move(a)
		path.Line(b)
		path.Move(vg.Point{X: b.X, Y: b.Y - h})
		path.Line(vg.Point{X: b.X, Y: b.Y + h})
	} else {
		path.Move(vg.Point{X: a.X - h, Y: a.Y})
		path.Line(vg.Point{X: a.X + h, Y: a.Y})
		path.Move(a)
		path.Line(b)
		path.Move(vg.Point{X: b.X - h, Y: b.Y})
		path.Line(vg.Point{X: b.X + h, Y: b.Y})
	}
	c.SetLineStyle(e.style())
	c.Stroke(path)
}

func (e *ErrorBars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for _, it := range e.Items {
		if e.Horizontal {
			y := trY(it.At)
			e.bar(&c, vg.Point{X: trX(it.Lo), Y: y}, vg.Point{X: trX(it.Hi), Y: y})
			continue
		}
		x := trX(it.At)
		e.bar(&c, vg.Point{X: x, Y: trY(it.Lo)}, vg.Point{X: x, Y: trY(it.Hi)})
	}
}

// DataRange keeps every bar in view: its place on one axis, its bounds on
// the other (a row, as a span's, half a row either side).
func (e *ErrorBars) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, ymin = math.Inf(1), math.Inf(1)
	xmax, ymax = math.Inf(-1), math.Inf(-1)
	for _, it := range e.Items {
		lo, hi := math.Min(it.Lo, it.Hi), math.Max(it.Lo, it.Hi)
		if e.Horizontal {
			xmin, xmax = math.Min(xmin, lo), math.Max(xmax, hi)
			ymin, ymax = math.Min(ymin, it.At-0.5), math.Max(ymax, it.At+0.5)
			continue
		}
		xmin, xmax = math.Min(xmin, it.At), math.Max(xmax, it.At)
		ymin, ymax = math.Min(ymin, lo), math.Max(ymax, hi)
	}
	return xmin, xmax, ymin, ymax
}

func (e *ErrorBars) Thumbnail(c *draw.Canvas) {
	if e.Horizontal {
		y := (c.Min.Y + c.Max.Y) / 2
		e.bar(c, vg.Point{X: c.Min.X + 1, Y: y}, vg.Point{X: c.Max.X - 1, Y: y})
		return
	}
	x := (c.Min.X + c.Max.X) / 2
	e.bar(c, vg.Point{X: x, Y: c.Min.Y}, vg.Point{X: x, Y: c.Max.Y})
}
