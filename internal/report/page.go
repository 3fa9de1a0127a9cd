package report

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"time"
)

// page is one HTML report: a run's, or the comparison of two.
type page struct {
	Title    string
	Subtitle []string
	// Runs heads a comparison: A and B, each with its folder.
	Runs []runHead
	// Headline opens the page: the figures a reader acts on, before any
	// chart or table.
	Headline []headline
	Sections []section
	// Columns is 2 on a comparison page: each section shows A then B.
	Columns int
	Footer  string
	CSS     template.CSS
}

type runHead struct{ Label, Dir, Model string }

// section is a part of the page with its own heading and anchor. On a
// comparison page Sides holds A's and B's figures; else Figures.
type section struct {
	ID, Title string
	Intro     string
	Tables    []table
	Quotes    []quote
	// Warnings say where the section's figures mean less than they seem
	// (a garbled transcript), shown above them.
	Warnings []string
	// Findings say what the run found of the server that a reader should
	// see (the audio a server kept sending after a cancel): what it did,
	// not an error of the run.
	Findings []string
	Figures  []figure
	Sides    [][]figure
}

// figure is a chart and the numbers it draws.
type figure struct {
	// Label names the run on a comparison page ("A", "B").
	Label string
	Title string
	SVG   template.HTML
	Table table
	// More is a longer list behind a disclosure (e.g. every chunk).
	More *table
}

// table is a caption, a header row and rows of cells.
type table struct {
	Caption string
	Head    []string
	Rows    []row
	// Numeric marks the columns to right-align, by index.
	Numeric map[int]bool
	// Fold puts a long table behind a disclosure, its caption the summary;
	// Open shows it unfolded (e.g. a check list with a failure).
	Fold, Open bool
}

type row struct {
	Class string
	Cells []string
}

// quote is a text of the run shown as it is, e.g. the first sentence.
type quote struct{ Label, Text string }

func (t *table) add(cells ...string) { t.Rows = append(t.Rows, row{Cells: cells}) }

func (t *table) addClass(class string, cells ...string) {
	t.Rows = append(t.Rows, row{Class: class, Cells: cells})
}

// foldRows is the length above which a table of the run's details is
// folded.
const foldRows = 8

// folded folds t when it is longer than foldRows, or always.
func (t table) folded(always bool) table {
	t.Fold = always || len(t.Rows) > foldRows
	return t
}

// numericFrom marks columns from..len(Head)-1 as numbers.
func (t *table) numericFrom(from int) *table {
	t.Numeric = map[int]bool{}
	for i := from; i < len(t.Head); i++ {
		t.Numeric[i] = true
	}
	return t
}

//go:embed page.html
var pageHTML string

//go:embed style.css
var styleCSS string

var pageTemplate = template.Must(template.New("page").Funcs(template.FuncMap{
	"isNum": func(t table, i int) bool { return t.Numeric[i] },
}).Parse(pageHTML))

// render writes the page's HTML.
func (p *page) render() ([]byte, error) {
	p.CSS = template.CSS(styleCSS)
	var b bytes.Buffer
	if err := pageTemplate.Execute(&b, p); err != nil {
		return nil, fmt.Errorf("writing the report page: %w", err)
	}
	return b.Bytes(), nil
}

// stamp is how the page shows a time: UTC to the second.
func stamp(t time.Time) string {
	if t.IsZero() {
		return "unknown"
	}
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}
