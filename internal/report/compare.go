package report

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"ttftlab/internal/artifact"
	"ttftlab/internal/chart"
	"ttftlab/internal/rundir"
)

// comparePage puts run A and run B side by side: B/A for every figure
// both have, a chart of the headline ratios, then each section's charts
// in two columns.
func comparePage(meta Meta, a, b run) (*page, error) {
	if a.kind != b.kind {
		return nil, fmt.Errorf("cannot compare a %s run (%s) with a %s run (%s): pass two lab folders or two load folders",
			a.kind, a.dir(), b.kind, b.dir())
	}
	p := &page{Title: fmt.Sprintf("ttftlab %s runs compared: %s against %s", a.kind, b.model(), a.model()), Columns: 2}
	p.Runs = []runHead{
		{Label: "A", Dir: absDir(a.dir()), Model: a.model() + ", finished " + stamp(a.finished())},
		{Label: "B", Dir: absDir(b.dir()), Model: b.model() + ", finished " + stamp(b.finished())},
	}
	p.Headline = compareStrip(a.strip(), b.strip())
	fa, fb := a.figures(), b.figures()
	ratios := section{ID: "ratios", Title: "B against A",
		Intro: "Every figure both runs have, with B/A: below 1 B is smaller (for times: faster), above 1 larger."}
	if f, err := ratioFigure(a.headline(fa), fb); err == nil {
		ratios.Figures = append(ratios.Figures, f)
	} else {
		ratios.Quotes = append(ratios.Quotes, quote{Label: "chart not drawn", Text: err.Error()})
	}
	ratios.Tables = append(ratios.Tables, ratioTable(fa, fb).folded(false))
	p.Sections = append([]section{ratios}, pairSections(a.sections(), b.sections())...)
	p.Footer = "Drawn by ttftlab " + meta.Version + ". Self-contained: no script, font or image is loaded from anywhere."
	return p, nil
}

// measure is one figure of a run: a name, its unit and value.
type measure struct {
	name, unit string
	v          float64
}

// ratioTable lists every figure of A, then B's figures A lacks, with
// both values and B/A.
func ratioTable(fa, fb []measure) table {
	t := table{Caption: "every figure", Head: []string{"figure", "unit", "A", "B", "B/A"}, Numeric: map[int]bool{2: true, 3: true, 4: true}}
	inB := map[string]float64{}
	for _, m := range fb {
		inB[m.name] = m.v
	}
	inA := map[string]bool{}
	for _, m := range fa {
		inA[m.name] = true
		bv, ok := inB[m.name]
		if !ok {
			t.add(m.name, m.unit, num(m.v), "–", "–")
			continue
		}
		t.add(m.name, m.unit, num(m.v), num(bv), ratio(m.v, bv))
	}
	for _, m := range fb {
		if !inA[m.name] {
			t.add(m.name, m.unit, "–", num(m.v), "–")
		}
	}
	return t
}

// ratioFigure draws B/A of the headline figures as bars from 1.
func ratioFigure(head, fb []measure) (figure, error) {
	inB := map[string]float64{}
	for _, m := range fb {
		inB[m.name] = m.v
	}
	var names []string
	var bars []chart.Span
	tab := table{Head: []string{"figure", "B/A"}, Numeric: map[int]bool{1: true}}
	for _, m := range head {
		bv, ok := inB[m.name]
		if !ok || m.v <= 0 || bv <= 0 {
			continue
		}
		bars = append(bars, chart.Span{Row: float64(len(names)), From: 1, To: bv / m.v})
		names = append(names, m.name)
		tab.add(m.name, ratio(m.v, bv))
	}
	if len(names) == 0 {
		return figure{}, fmt.Errorf("the runs share no headline figure")
	}
	p := chart.New("B/A of the headline figures", "B/A, logarithmic (1×: the same; below: B smaller)", "")
	h := rowsLayout(p, names, 2)
	chart.AddSpans(p, "B/A", bars, chart.Total, 12)
	chart.AddRule(p, "A (1×)", 1, true, chart.TTFT, true)
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, b := range bars {
		lo, hi = math.Min(lo, b.To), math.Max(hi, b.To)
	}
	chart.RatioAxis(p, lo, hi)
	return draw(p, h, tab)
}

// headline picks the figures worth a bar: report.json's numbers for a
// lab, the p95 of each SLO metric by level for a load run.
func (r run) headline(all []measure) []measure {
	var out []measure
	for _, m := range all {
		if m.unit == "ms" && (r.lab != nil && len(m.name) > 12 && m.name[:12] == "report.json " ||
			r.load != nil && isHeadlineLoad(m.name)) {
			out = append(out, m)
		}
	}
	return out
}

func isHeadlineLoad(name string) bool {
	var lv float64
	var metric string
	n, _ := fmt.Sscanf(name, "level %g %s p95", &lv, &metric)
	return n == 2 && (metric == "ttft_ms" || metric == "first_sentence_ms")
}

// figures are every number of the run a comparison shows.
func (r run) figures() []measure {
	if r.lab != nil {
		return labFigures(r.lab)
	}
	return loadFigures(r.load)
}

func fieldMeasures(prefix string, fields []rundir.Field) []measure {
	var out []measure
	for _, f := range fields {
		if v, ok := f.Number(); ok {
			out = append(out, measure{prefix + f.Path, unitOf(f.Path), v})
		}
	}
	return out
}

func labFigures(l *rundir.Lab) []measure {
	out := fieldMeasures("report.json ", l.Report)
	add := func(name, unit string, v float64) { out = append(out, measure{name, unit, v}) }
	if l.Props != nil {
		add("context per slot", "tokens", l.Props.Settings.NCtx)
		add("slots", "", l.Props.TotalSlots)
	}
	for _, r := range l.Prefill {
		d := num(r.Docs)
		add("prefill "+d+" docs prompt_n", "tokens", r.PromptN)
		add("prefill "+d+" docs prompt_ms", "ms", orNaN(r.PromptMs))
		add("prefill "+d+" docs ttft_ms", "ms", r.TTFTMs)
	}
	if len(l.Prefill) > 1 {
		var xs, ys []float64
		for _, r := range l.Prefill {
			if r.PromptMs != nil {
				xs, ys = append(xs, r.PromptN), append(ys, *r.PromptMs)
			}
		}
		if _, b, ok := fit(xs, ys); ok {
			add("prefill fit of prompt_ms", "ms/token", b)
		}
	}
	if c := l.Cache; c != nil {
		for _, t := range []namedTokens{{"first", c.First}, {"second", c.Second}, {"changed_prefix", c.ChangedPrefix}} {
			add("cache "+t.name+" ttft_ms", "ms", t.t.TTFTMs)
			add("cache "+t.name+" prompt_n", "tokens", t.t.PromptN)
		}
	}
	if s := l.Sentence; s != nil {
		add("sentence ttft_ms", "ms", s.TTFTMs)
		add("sentence first_sentence_ms", "ms", s.FirstSentenceMs)
		add("sentence total_ms", "ms", s.TotalMs)
	}
	if c := l.Cancel; c != nil {
		add("cancel received_tokens", "tokens", c.ReceivedTokens)
		add("cancel slot_idle_after_ms", "ms", orNaN(c.SlotIdleAfterMs))
	}
	if b := l.Bargein; b != nil {
		for _, t := range []namedTokens{{"resumed", b.Resumed}, {"cold", b.Cold}} {
			add("bargein "+t.name+" ttft_ms", "ms", t.t.TTFTMs)
		}
		add("bargein slot_idle_after_ms", "ms", b.SlotIdleAfterMs)
	}
	if x := l.Prefix; x != nil {
		for _, pos := range x.Positions {
			add("prefix at "+pos.Position+" ttft_ms", "ms", pos.TTFTMs)
			add("prefix at "+pos.Position+" cache_n", "tokens", pos.Tokens().Cached())
		}
	}
	for _, name := range slices.Sorted(maps.Keys(l.Extra)) {
		out = append(out, fieldMeasures(name+" ", l.Extra[name])...)
	}
	return out
}

func loadFigures(l *rundir.Load) []measure {
	var out []measure
	if l.Capacity != nil {
		out = append(out, measure{"capacity level", "", l.Capacity.Level})
	}
	for _, lv := range l.Levels {
		prefix := "level " + num(lv.Level) + " "
		s := lv.Summary
		for _, c := range []struct {
			name string
			v    int
		}{{"requests", s.Requests}, {"ok", s.OK}, {"failed", s.Failed}, {"cut", s.Cut}} {
			out = append(out, measure{prefix + c.name, "", float64(c.v)})
		}
		out = append(out, measure{prefix + "duration_ms", "ms", s.DurationMs})
		if s.RequestsPerS != nil {
			out = append(out, measure{prefix + "requests_per_s", unitOf("requests_per_s"), *s.RequestsPerS})
		}
		if s.TokensPerS != nil {
			out = append(out, measure{prefix + "tokens_per_s", unitOf("tokens_per_s"), *s.TokensPerS})
		}
		if lv.Goodput != nil {
			out = append(out, measure{prefix + "goodput", "share of requests", *lv.Goodput})
		}
		for _, m := range artifact.Metrics {
			d, _ := s.Metric(m)
			for _, q := range []string{"p50", "p95", "p99"} {
				if v := quantile(d, q); v != nil {
					out = append(out, measure{prefix + m + " " + q, "ms", *v})
				}
			}
		}
	}
	return out
}

// pairSections lays A's and B's sections side by side, matched by id,
// in A's order then B's own.
func pairSections(as, bs []section) []section {
	byID := map[string]section{}
	for _, s := range bs {
		byID[s.ID] = s
	}
	var out []section
	seen := map[string]bool{}
	for _, s := range as {
		seen[s.ID] = true
		out = append(out, pair(s, byID[s.ID]))
	}
	for _, s := range bs {
		if !seen[s.ID] {
			out = append(out, pair(section{ID: s.ID, Title: s.Title}, s))
		}
	}
	return out
}

// pair is one section with A's figures and tables on the left, B's on
// the right, row by row.
func pair(a, b section) section {
	s := section{ID: a.ID, Title: a.Title, Intro: a.Intro}
	if s.Title == "" {
		s.Title, s.Intro = b.Title, b.Intro
	}
	fa, fb := asFigures("A", a), asFigures("B", b)
	for i := 0; i < max(len(fa), len(fb)); i++ {
		s.Sides = append(s.Sides, []figure{figureAt(fa, i, "A"), figureAt(fb, i, "B")})
	}
	return s
}

// asFigures is a section's tables (each a figure without a chart) and
// figures, each labelled with its run.
func asFigures(label string, s section) []figure {
	var out []figure
	for _, t := range s.Tables {
		out = append(out, figure{Label: label, Table: t})
	}
	for _, q := range s.Quotes {
		out = append(out, figure{Label: label, Table: table{Caption: q.Label, Rows: []row{{Cells: []string{q.Text}}}}})
	}
	for _, f := range s.Figures {
		f.Label = label
		out = append(out, f)
	}
	return out
}

func figureAt(fs []figure, i int, label string) figure {
	if i < len(fs) {
		return fs[i]
	}
	return figure{Label: label, Table: table{Rows: []row{{Cells: []string{"(not in this run)"}}}}}
}

// compareStrip is each headline figure of A beside B's, by its label; a
// figure one run lacks shows a dash.
func compareStrip(a, b []headline) []headline {
	inB := map[string]headline{}
	for _, h := range b {
		inB[h.Label] = h
	}
	seen := map[string]bool{}
	var out []headline
	for _, h := range a {
		seen[h.Label] = true
		bv := "–"
		if x, ok := inB[h.Label]; ok {
			bv = x.Value
		}
		out = append(out, headline{Label: h.Label, Value: h.Value + " → " + bv, Note: "A → B; A: " + h.Note})
	}
	for _, h := range b {
		if !seen[h.Label] {
			out = append(out, headline{Label: h.Label, Value: "– → " + h.Value, Note: "A → B; B: " + h.Note})
		}
	}
	return out
}
