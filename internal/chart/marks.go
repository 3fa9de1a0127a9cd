package chart

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Points is a scatter of circles in one colour, named in the legend.
func Points(p *plot.Plot, name string, xys plotter.XYs, c color.Color) error {
	s, err := plotter.NewScatter(xys)
	if err != nil {
		return err
	}
	s.GlyphStyle = draw.GlyphStyle{Color: c, Radius: 3.5, Shape: draw.CircleGlyph{}}
	add(p, s)
	if name != "" {
		p.Legend.Add(name, s)
	}
	return nil
}

// Rings is a scatter of open circles, larger than Points', so a ring
// drawn over a point leaves the point in view.
func Rings(p *plot.Plot, name string, xys plotter.XYs, c color.Color) error {
	s, err := plotter.NewScatter(xys)
	if err != nil {
		return err
	}
	s.GlyphStyle = draw.GlyphStyle{Color: c, Radius: 5.5, Shape: draw.CircleGlyph{}}
	s.GlyphStyle.Shape = draw.RingGlyph{}
	add(p, s)
	if name != "" {
		p.Legend.Add(name, s)
	}
	return nil
}

// Line joins xys in one colour; dashed for fitted or derived lines.
func Line(p *plot.Plot, name string, xys plotter.XYs, c color.Color, dashed bool) error {
	l, err := plotter.NewLine(xys)
	if err != nil {
		return err
	}
	l.LineStyle = draw.LineStyle{Color: c, Width: 1.5}
	if dashed {
		l.LineStyle.Dashes = []vg.Length{5, 3}
	}
	add(p, l)
	if name != "" {
		p.Legend.Add(name, l)
	}
	return nil
}

// LinePoints is a line through xys with a circle on each point.
func LinePoints(p *plot.Plot, name string, xys plotter.XYs, c color.Color) error {
	if err := Line(p, "", xys, c, false); err != nil {
		return err
	}
	return Points(p, name, xys, c)
}

// Span is an interval between From and To (either may be the larger) on
// the row Row of a timeline.
type Span struct{ Row, From, To float64 }

// Spans are horizontal bars, one per interval, e.g. a request from its
// start to its end. A zero-length interval still shows as a sliver.
type Spans struct {
	Items     []Span
	Color     color.Color
	Thickness vg.Length
}

// AddSpans adds bars of thickness t (in points) to p, named in the legend;
// no items, no legend entry.
func AddSpans(p *plot.Plot, name string, items []Span, c color.Color, t vg.Length) {
	if len(items) == 0 {
		return
	}
	s := &Spans{Items: items, Color: c, Thickness: t}
	add(p, s)
	if name != "" {
		p.Legend.Add(name, s)
	}
}

func (s *Spans) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	h := s.Thickness / 2
	for _, it := range s.Items {
		x0, x1, y := trX(min(it.From, it.To)), trX(max(it.From, it.To)), trY(it.Row)
		if x1-x0 < 1 {
			x1 = x0 + 1
		}
		box := []vg.Point{{X: x0, Y: y - h}, {X: x1, Y: y - h}, {X: x1, Y: y + h}, {X: x0, Y: y + h}}
		c.FillPolygon(s.Color, c.ClipPolygonXY(box))
	}
}

func (s *Spans) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, ymin = math.Inf(1), math.Inf(1)
	xmax, ymax = math.Inf(-1), math.Inf(-1)
	for _, it := range s.Items {
		xmin, xmax = math.Min(xmin, math.Min(it.From, it.To)), math.Max(xmax, math.Max(it.From, it.To))
		ymin, ymax = math.Min(ymin, it.Row), math.Max(ymax, it.Row)
	}
	return xmin, xmax, ymin - 0.5, ymax + 0.5
}

func (s *Spans) Thumbnail(c *draw.Canvas) {
	y := (c.Min.Y + c.Max.Y) / 2
	h := s.Thickness / 2
	c.FillPolygon(s.Color, []vg.Point{{X: c.Min.X, Y: y - h}, {X: c.Max.X, Y: y - h}, {X: c.Max.X, Y: y + h}, {X: c.Min.X, Y: y + h}})
}

// Tick is a moment on the row Row of a timeline.
type Tick struct{ Row, At float64 }

// Ticks are short vertical strokes, e.g. one per streamed chunk.
type Ticks struct {
	Items  []Tick
	Color  color.Color
	Length vg.Length
	Width  vg.Length
}

// AddTicks adds strokes of length l (in points) to p, named in the legend;
// no items, no legend entry.
func AddTicks(p *plot.Plot, name string, items []Tick, c color.Color, l, w vg.Length) {
	if len(items) == 0 {
		return
	}
	t := &Ticks{Items: items, Color: c, Length: l, Width: w}
	add(p, t)
	if name != "" {
		p.Legend.Add(name, t)
	}
}

func (t *Ticks) style() draw.LineStyle { return draw.LineStyle{Color: t.Color, Width: t.Width} }

func (t *Ticks) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for _, it := range t.Items {
		x, y := trX(it.At), trY(it.Row)
		c.StrokeLine2(t.style(), x, y-t.Length/2, x, y+t.Length/2)
	}
}

func (t *Ticks) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, ymin = math.Inf(1), math.Inf(1)
	xmax, ymax = math.Inf(-1), math.Inf(-1)
	for _, it := range t.Items {
		xmin, xmax = math.Min(xmin, it.At), math.Max(xmax, it.At)
		ymin, ymax = math.Min(ymin, it.Row), math.Max(ymax, it.Row)
	}
	return xmin, xmax, ymin - 0.5, ymax + 0.5
}

func (t *Ticks) Thumbnail(c *draw.Canvas) {
	x := (c.Min.X + c.Max.X) / 2
	c.StrokeLine2(t.style(), x, c.Min.Y, x, c.Max.Y)
}

// Rule is a line across the whole plot at one value: vertical (a moment,
// X true) or horizontal (a limit).
type Rule struct {
	At     float64
	X      bool
	Color  color.Color
	Dashed bool
	// Label is written beside a vertical rule: at LabelY (in data units)
	// when set, else at the top of the plot.
	Label  string
	LabelY *float64
}

// AddRule adds a vertical (x true) or horizontal rule at v, named in the
// legend.
func AddRule(p *plot.Plot, name string, v float64, x bool, c color.Color, dashed bool) *Rule {
	r := &Rule{At: v, X: x, Color: c, Dashed: dashed}
	add(p, r)
	if name != "" {
		p.Legend.Add(name, r)
	}
	return r
}

func (r *Rule) style() draw.LineStyle {
	s := draw.LineStyle{Color: r.Color, Width: 1.5}
	if r.Dashed {
		s.Dashes = []vg.Length{5, 3}
	}
	return s
}

func (r *Rule) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	if r.X {
		x := trX(r.At)
		c.StrokeLine2(r.style(), x, c.Min.Y, x, c.Max.Y)
		if r.Label != "" {
			sty := p.Legend.TextStyle
			sty.Color = r.Color
			y := c.Max.Y - sty.Font.Size
			if r.LabelY != nil {
				y = trY(*r.LabelY) - sty.Font.Size/3
			}
			// A label right of the middle reads leftwards, so it stays
			// inside the plot.
			at := x + 3
			if x > (c.Min.X+c.Max.X)/2 {
				sty.XAlign, at = draw.XRight, x-3
			}
			c.FillText(sty, vg.Point{X: at, Y: y}, r.Label)
		}
		return
	}
	y := trY(r.At)
	c.StrokeLine2(r.style(), c.Min.X, y, c.Max.X, y)
}

// DataRange keeps the rule's value in view on its own axis only.
func (r *Rule) DataRange() (xmin, xmax, ymin, ymax float64) {
	inf := math.Inf(1)
	if r.X {
		return r.At, r.At, inf, -inf
	}
	return inf, -inf, r.At, r.At
}

func (r *Rule) Thumbnail(c *draw.Canvas) {
	if r.X {
		x := (c.Min.X + c.Max.X) / 2
		c.StrokeLine2(r.style(), x, c.Min.Y, x, c.Max.Y)
		return
	}
	y := (c.Min.Y + c.Max.Y) / 2
	c.StrokeLine2(r.style(), c.Min.X, y, c.Max.X, y)
}

// Label is a text naming a mark that runs from From to To (in data
// units, equal for a moment) on the row Y, in Color: it reads rightwards
// from To, or leftwards from From when To is right of the plot's middle,
// so it stays inside the plot and clear of its mark.
type Label struct {
	From, To, Y float64
	Text        string
	Color       color.Color
}

// AddLabel writes text beside the mark from..to on row y of p; it has no
// legend entry (it names the mark beside it).
func AddLabel(p *plot.Plot, text string, from, to, y float64, c color.Color) *Label {
	l := &Label{From: from, To: to, Y: y, Text: text, Color: c}
	add(p, l)
	return l
}

func (l *Label) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	sty := p.Legend.TextStyle
	sty.Color = l.Color
	at := trX(l.To) + 3
	if trX(l.To) > (c.Min.X+c.Max.X)/2 {
		sty.XAlign, at = draw.XRight, trX(l.From)-3
	}
	c.FillText(sty, vg.Point{X: at, Y: trY(l.Y) - sty.Font.Size/3}, l.Text)
}

// DataRange keeps the labelled mark in view; its Y is the row it names.
func (l *Label) DataRange() (xmin, xmax, ymin, ymax float64) {
	return math.Min(l.From, l.To), math.Max(l.From, l.To), math.Inf(1), math.Inf(-1)
}

// Steps is a series that holds each value until the next sample, as a
// count sampled over time does. A series with no sample (a figure never
// given) draws nothing and is not named in the legend.
func Steps(p *plot.Plot, name string, xys plotter.XYs, c color.Color, dashed bool) error {
	if len(xys) == 0 {
		return nil
	}
	l, err := plotter.NewLine(xys)
	if err != nil {
		return err
	}
	l.StepStyle = plotter.PostStep
	l.LineStyle = draw.LineStyle{Color: c, Width: 1.5}
	if dashed {
		l.LineStyle.Dashes = []vg.Length{5, 3}
	}
	add(p, l)
	if name != "" {
		p.Legend.Add(name, l)
	}
	return nil
}

// Band is a stretch of the X axis, shaded across the whole plot height
// and named at its top, e.g. one level of a load run.
type Band struct {
	From, To float64
	Label    string
}

// Bands shade stretches of the X axis in two alternating tints, behind
// the data; they are added first so every line draws over them.
type Bands struct{ Items []Band }

// AddBands shades each band of items on p; no legend entry (each band is
// named where it stands).
func AddBands(p *plot.Plot, items []Band) {
	if len(items) > 0 {
		add(p, &Bands{Items: items})
	}
}

var bandTints = [2]color.RGBA{rgb(0xee, 0xf2, 0xf8), rgb(0xf8, 0xf1, 0xe6)}

func (b *Bands) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	sty := p.Legend.TextStyle
	sty.Color = Chunk
	for i, it := range b.Items {
		x0, x1 := trX(it.From), trX(it.To)
		if x1-x0 < 2 {
			x1 = x0 + 2
		}
		box := []vg.Point{{X: x0, Y: c.Min.Y}, {X: x1, Y: c.Min.Y}, {X: x1, Y: c.Max.Y}, {X: x0, Y: c.Max.Y}}
		c.FillPolygon(bandTints[i%2], c.ClipPolygonXY(box))
		if it.Label != "" {
			c.FillText(sty, vg.Point{X: x0 + 3, Y: c.Max.Y - sty.Font.Size}, it.Label)
		}
	}
}

func (b *Bands) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax = math.Inf(1), math.Inf(-1)
	for _, it := range b.Items {
		xmin, xmax = math.Min(xmin, it.From), math.Max(xmax, it.To)
	}
	return xmin, xmax, math.Inf(1), math.Inf(-1)
}
