package chart

import (
	"regexp"
	"strconv"
	"testing"

	"gonum.org/v1/plot/plotter"
)

var textAt = regexp.MustCompile(`<text x="([0-9.]+)"[^>]*>([^<]*)</text>`)

// TestLegendBesideThePlot: the legend's entries stand right of the X
// axis's last tick, so they cover no mark.
func TestLegendBesideThePlot(t *testing.T) {
	p := New("legend", "x (ms)", "y (ms)")
	if err := Points(p, "the points", plotter.XYs{{X: 0, Y: 0}, {X: 10, Y: 10}}, TTFT); err != nil {
		t.Fatal(err)
	}
	AddRule(p, "a limit", 5, false, Limit, true)
	svg, err := SVG(p, Width, Height)
	if err != nil {
		t.Fatal(err)
	}
	xs := map[string]float64{}
	for _, m := range textAt.FindAllStringSubmatch(svg, -1) {
		xs[m[2]], _ = strconv.ParseFloat(m[1], 64)
	}
	lastTick, ok := xs["10"]
	if !ok {
		t.Fatalf("no tick labelled 10: %v", xs)
	}
	for _, entry := range []string{"the points", "a limit"} {
		if x, ok := xs[entry]; !ok || x <= lastTick {
			t.Errorf("legend entry %q at x %g, not right of the axis' end (%g)", entry, x, lastTick)
		}
	}
}

// TestFitKeepsMarksInside: a bar that ends at the axis' end, or past a
// range set by hand, widens the axis; Outside then finds nothing.
func TestFitKeepsMarksInside(t *testing.T) {
	p := New("fit", "x (ms)", "")
	AddSpans(p, "bar", []Span{{Row: 0, From: 0, To: 100}}, Cached, 10)
	AddTicks(p, "mark", []Tick{{Row: 0, At: 130}}, Chunk, 10, 1)
	p.X.Max = 100
	if Outside(p) == nil {
		t.Fatal("Outside finds no mark past the axis")
	}
	Fit(p)
	if err := Outside(p); err != nil {
		t.Error(err)
	}
	if p.X.Max <= 130 || p.X.Max > 140 {
		t.Errorf("axis ends at %g for a last mark at 130", p.X.Max)
	}
}
