// Package chart draws the report's charts with gonum.org/v1/plot and
// returns them as SVG ready to inline in an HTML page: the library lays
// out axes, ticks, labels and legends, and this package adds the few marks
// a streaming timeline needs (spans, ticks, markers) on the library's own
// canvas.
package chart

import (
	"bytes"
	"fmt"
	"html"
	"regexp"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Default sizes: wide enough for a timeline, small enough that two fit
// side by side on a comparison page.
const (
	Width  = 7.5 * vg.Inch
	Height = 3.6 * vg.Inch
)

// Text sizes in points: at the page's width a chart's text reads about
// as large as the tables beside it.
const (
	titleSize  = 12
	labelSize  = 10.5
	tickSize   = 9.5
	legendSize = 9.5
	// LegendLine is the height of one legend entry, for making room.
	LegendLine = legendSize + 3
)

// New is a plot in the report's style: sans-serif text, a light grid, the
// legend in the top left corner. Labels should name their unit, e.g.
// "time since the request (ms)".
func New(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.Padding = 6
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	for _, s := range []*draw.TextStyle{&p.Title.TextStyle, &p.X.Label.TextStyle, &p.Y.Label.TextStyle,
		&p.X.Tick.Label, &p.Y.Tick.Label, &p.Legend.TextStyle} {
		s.Font.Variant = "Sans"
	}
	p.Title.TextStyle.Font.Size = titleSize
	p.X.Label.TextStyle.Font.Size, p.Y.Label.TextStyle.Font.Size = labelSize, labelSize
	p.X.Tick.Label.Font.Size, p.Y.Tick.Label.Font.Size = tickSize, tickSize
	p.Legend.TextStyle.Font.Size = legendSize
	p.Legend.Padding = 3
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.XOffs, p.Legend.YOffs = 6, -4
	p.X.Tick.Marker, p.Y.Tick.Marker = NiceTicks{}, NiceTicks{}
	grid := plotter.NewGrid()
	grid.Vertical.Color, grid.Horizontal.Color = Grid, Grid
	p.Add(grid)
	return p
}

// SVG renders p at w×h and returns an <svg> element for an HTML page: no
// XML prolog, sized by the page's CSS (class "chart"), with the title as
// its accessible name.
//
// The legend stands in a column right of the plotting area, so it covers
// no mark; h grows when the legend needs more room. A mark that would run
// past the X axis's end widens the axis first (Fit).
func SVG(p *plot.Plot, w, h vg.Length) (string, error) {
	Fit(p)
	leg := p.Legend
	lw := legendWidth(&leg)
	if lw > 0 {
		h = max(h, legendHeight(&leg)+titleSize+40)
	}
	defer forget(p)
	c := vgsvg.New(w, h)
	dc := draw.New(c)
	if lw > 0 {
		// The plot draws without its entries; its text style stays, for
		// the labels marks write in it.
		p.Legend = plot.NewLegend()
		p.Legend.TextStyle = leg.TextStyle
		p.Draw(draw.Crop(dc, 0, -lw, 0, 0))
		p.Legend = leg
		leg.Top, leg.Left, leg.XOffs, leg.YOffs = true, true, 0, 0
		top := vg.Length(0)
		if p.Title.Text != "" {
			top = p.Title.TextStyle.Rectangle(p.Title.Text).Size().Y + p.Title.Padding + 4
		}
		leg.Draw(draw.Crop(dc, w-lw+legendGap, 0, 0, -top))
	} else {
		p.Draw(dc)
	}
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return "", fmt.Errorf("drawing the chart %q as SVG: %w", p.Title.Text, err)
	}
	return inline(b.String(), p.Title.Text)
}

var svgStart = regexp.MustCompile(`(?s)^.*?<svg width="[^"]*" height="[^"]*" (viewBox="[^"]*")[^>]*>`)

// inline swaps vgsvg's document header for an element header: the
// viewBox stays (it keeps the aspect ratio), the fixed size in points goes.
func inline(doc, title string) (string, error) {
	m := svgStart.FindStringSubmatchIndex(doc)
	if m == nil {
		return "", fmt.Errorf("drawing the chart %q: the SVG has no header of the expected form", title)
	}
	viewBox := doc[m[2]:m[3]]
	head := fmt.Sprintf(`<svg class="chart" xmlns="http://www.w3.org/2000/svg" %s role="img" aria-label="%s"><title>%s</title>`,
		viewBox, html.EscapeString(title), html.EscapeString(title))
	return head + strings.TrimSpace(doc[m[1]:]), nil
}

// legendGap is the space between the plotting area and the legend.
const legendGap = 12

// legendWidth is the width of the legend's column, gap included; 0 when
// the legend is empty.
func legendWidth(l *plot.Legend) vg.Length {
	r := l.Rectangle(draw.Canvas{})
	if r.Size().Y <= 0 {
		return 0
	}
	return r.Size().X + legendGap + 6
}

func legendHeight(l *plot.Legend) vg.Length { return l.Rectangle(draw.Canvas{}).Size().Y }
