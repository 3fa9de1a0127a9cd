package chart

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/plot/plotter"
)

func TestSVGIsAnInlineElement(t *testing.T) {
	p := New("A & B <title>", "x (ms)", "y (tokens)")
	if err := Points(p, "pts", plotter.XYs{{X: 1, Y: 2}, {X: 2, Y: 3}}, TTFT); err != nil {
		t.Fatal(err)
	}
	AddRule(p, "limit", 2.5, false, Limit, true)
	svg, err := SVG(p, Width, Height)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(svg, `<svg class="chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 540 259.2" role="img" aria-label="A &amp; B &lt;title&gt;"><title>A &amp; B &lt;title&gt;</title>`) {
		t.Errorf("SVG starts %q", svg[:min(len(svg), 200)])
	}
	for _, bad := range []string{"<?xml", "<!--", `width="`} {
		if strings.Contains(svg, bad) {
			t.Errorf("SVG holds %q", bad)
		}
	}
	if !strings.HasSuffix(svg, "</svg>") || !strings.Contains(svg, ">x (ms)<") {
		t.Errorf("SVG is cut or lacks its axis label")
	}
}

func TestNiceTicks(t *testing.T) {
	var labels []string
	for _, tk := range (NiceTicks{}).Ticks(0.1, 0.9) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	if got := strings.Join(labels, " "); got != "0.2 0.4 0.6 0.8" {
		t.Errorf("ticks of 0.1..0.9: %s", got)
	}
	labels = nil
	for _, tk := range (RatioTicks{}).Ticks(0.03, 3) {
		labels = append(labels, tk.Label)
	}
	if got := strings.Join(labels, " "); got != "0.05× 0.1× 0.2× 0.5× 1× 2×" {
		t.Errorf("ratio ticks of 0.03..3: %s", got)
	}
}

// TestErrorBars: each finite interval is one stroked path in its colour
// (and one more for the legend); an interval with an unbounded end has
// no bar; the bars stay inside the axes.
func TestErrorBars(t *testing.T) {
	for _, horizontal := range []bool{false, true} {
		p := New("bars", "x (ms)", "y (ms)")
		AddErrorBars(p, "95 % interval", []Interval{{At: 1, Lo: 2, Hi: 4}, {At: 2, Lo: 3, Hi: 9}, {At: 3, Lo: 1, Hi: math.Inf(1)}}, P95, horizontal)
		if xmin, xmax, ymin, ymax := marksOf(p)[0].(*ErrorBars).DataRange(); horizontal && (xmin != 2 || xmax != 9 || ymin != 0.5 || ymax != 2.5) ||
			!horizontal && (xmin != 1 || xmax != 2 || ymin != 2 || ymax != 9) {
			t.Errorf("horizontal %v: data range %g..%g, %g..%g", horizontal, xmin, xmax, ymin, ymax)
		}
		svg, err := SVG(p, Width, Height)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(svg, "stroke:#E69F00"); n != 3 {
			t.Errorf("horizontal %v: %d paths in the bars' colour, want 2 bars and the legend's", horizontal, n)
		}
	}
	p := New("none", "x", "y")
	AddErrorBars(p, "95 % interval", []Interval{{At: 1, Lo: math.NaN(), Hi: 2}}, P95, false)
	if legendWidth(&p.Legend) != 0 || len(marksOf(p)) != 0 {
		t.Errorf("an interval without a finite bound drew a bar or a legend entry")
	}
}

// TestFromZeroAllZero: a chart whose every value is 0 gets an axis from
// 0 to 1, not gonum/plot's -1 to 1. Fails before this change.
func TestFromZeroAllZero(t *testing.T) {
	p := New("zeros", "x", "ms")
	if err := LinePoints(p, "zero", plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 0}}, P50); err != nil {
		t.Fatal(err)
	}
	FromZero(p)
	if p.Y.Min != 0 || p.Y.Max != 1 {
		t.Errorf("axis %g to %g, want 0 to 1", p.Y.Min, p.Y.Max)
	}
	svg, err := SVG(p, 300, 200)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(svg, ">-1<") || strings.Contains(svg, ">-0.5<") {
		t.Errorf("the axis goes below zero")
	}
}

// TestStepsWithoutPointsNamesNothing: a series with no point (a figure
// the server never gave) draws no line, so the legend does not name it;
// a legend entry with nothing drawn reads as a line hidden at 0. Fails
// before this change ("requests running" in the legend).
func TestStepsWithoutPointsNamesNothing(t *testing.T) {
	p := New("steps", "x (ms)", "count")
	if err := Steps(p, "slots busy", plotter.XYs{{X: 0, Y: 1}, {X: 1, Y: 0}}, TTFT, false); err != nil {
		t.Fatal(err)
	}
	if err := Steps(p, "requests running", nil, FirstSentence, false); err != nil {
		t.Fatal(err)
	}
	svg, err := SVG(p, Width, Height)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(svg, ">slots busy<") || strings.Contains(svg, ">requests running<") {
		t.Errorf("the legend should name the drawn series alone:\n%s", svg)
	}
}
