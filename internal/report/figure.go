package report

import (
	"html/template"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"ttftlab/internal/chart"
)

// draw renders p at the default width and height h into a figure with
// its table.
func draw(p *plot.Plot, h vg.Length, t table) (figure, error) {
	chart.Fit(p)
	if onDraw != nil {
		onDraw(p)
	}
	svg, err := chart.SVG(p, chart.Width, h)
	if err != nil {
		return figure{}, err
	}
	// The SVG comes from gonum/plot with every text escaped by it.
	return figure{Title: p.Title.Text, SVG: template.HTML(svg), Table: t}, nil
}

// onDraw, when set (by a test), sees each plot as it will be drawn.
var onDraw func(p *plot.Plot)

// sectionOf is a section with figures made by the given builders; a
// builder that fails leaves a note in place of its figure, so one odd
// file does not cost the whole page.
func sectionOf(id, title, intro string, builders ...func() (figure, error)) section {
	s := section{ID: id, Title: title, Intro: intro}
	for _, b := range builders {
		f, err := b()
		if err != nil {
			s.Quotes = append(s.Quotes, quote{Label: "chart not drawn", Text: err.Error()})
			continue
		}
		s.Figures = append(s.Figures, f)
	}
	return s
}
