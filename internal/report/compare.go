package report

import (
	"fmt"
	"image/color"
	"maps"
	"math"
	"slices"
	"strings"

	"ttftlab/internal/artifact"
	"ttftlab/internal/chart"
	"ttftlab/internal/interval"
	"ttftlab/internal/rundir"
)

// numbersSection is every number both runs have, with B/A, without an
// interval: the files' values, not only the timed figures.
func numbersSection(a, b run) section {
	s := section{ID: "ratios", Title: "Every number, B against A",
		Intro: "Every number both runs wrote (of a folder of repeated runs, its last run's), with B/A: below 1 B is smaller (for times: faster), above 1 larger. These are single values without an interval; the verdicts above are the ones to act on."}
	s.Tables = append(s.Tables, ratioTable(a.figures(), b.figures()).folded(false))
	return s
}

// comparePage puts run A and run B side by side: the verdict on every
// figure both have first (B/A with its interval, c), then every number of
// both with B/A, then each section's charts in two columns. Of a folder of
// repeated runs, the numbers and sections are its last run's.
func comparePage(meta Meta, a, b run, c *artifact.Compare) *page {
	p := &page{Title: fmt.Sprintf("ttftlab %s runs compared: %s against %s", a.kind, b.model(), a.model()), Columns: 2}
	p.Runs = []runHead{
		{Label: "A", Dir: absDir(a.dir()), Model: a.model() + runsNote(a) + ", finished " + stamp(a.finished())},
		{Label: "B", Dir: absDir(b.dir()), Model: b.model() + runsNote(b) + ", finished " + stamp(b.finished())},
	}
	p.Headline = append(verdictStrip(c), compareStrip(a.strip(), b.strip())...)
	p.Sections = append([]section{verdictSection(c)}, numbersSection(a, b))
	// Each side's own table of intervals is left to its own page: the
	// verdicts above hold both sides' figures.
	p.Sections = append(p.Sections, pairSections(without(a.sections(), "intervals", "pooled"), without(b.sections(), "intervals", "pooled"))...)
	p.Footer = "Drawn by ttftlab " + meta.Version + ". Self-contained: no script, font or image is loaded from anywhere."
	return p
}

// without is secs but those of the given ids.
func without(secs []section, ids ...string) []section {
	var out []section
	for _, s := range secs {
		if !slices.Contains(ids, s.ID) {
			out = append(out, s)
		}
	}
	return out
}

// runsNote names the runs of a folder of repeated runs.
func runsNote(r run) string {
	if r.repeated == nil {
		return ""
	}
	return fmt.Sprintf(" (%d runs; sections of the last)", len(r.repeated))
}

// verdictStrip opens a comparison with its answer: how many figures B
// made slower or faster, and whether the drift between A's and B's runs
// is covered.
func verdictStrip(c *artifact.Compare) []headline {
	h := hl("Verdicts, B against A", counts(c), overText(c))
	for _, f := range c.Figures {
		if f.Verdict == string(interval.Slower) {
			h.Class = "bad"
		}
	}
	out := []headline{h}
	if c.Warning != "" {
		out = append(out, headline{Label: "Warning", Value: "drift not covered", Note: c.Warning, Class: "mixed"})
	}
	for _, d := range c.Differ {
		out = append(out, headline{Label: "A and B differ", Value: d, Note: "the verdicts compare the two set-ups, not one change", Class: "mixed"})
	}
	return out
}

// verdictSection is the verdict table and the chart of B/A with its
// interval, figure by figure.
func verdictSection(c *artifact.Compare) section {
	s := section{ID: "verdicts", Title: "Verdicts: B against A",
		Intro: "For every timed figure both have: B/A of its median (and, for a load level, of the percentiles its SLOs are set on, p95 when none) over the pooled samples, " +
			"with its bootstrap interval (" + overText(c) + "). The verdict is corrected for comparing many figures at once (Holm), and each interval is the one its verdict was made with, " +
			"at the level of its Holm step (95 % or more, the level column): faster or slower exactly where it lies clear of 1; no difference detected at this sample size where it holds 1; too few samples where a side has too few samples " +
			"or the statistic falls on a failed request. The last column is the runs per variant that would detect a 5 % difference. compare.json beside this page holds every number."}
	if c.Warning != "" {
		s.Quotes = append(s.Quotes, quote{Label: "warning", Text: c.Warning + ". Runs of one machine drift 10-30 % over minutes."})
	}
	if len(c.OnlyA)+len(c.OnlyB) > 0 {
		s.Quotes = append(s.Quotes, quote{Label: "not compared", Text: onlyText(c)})
	}
	f, err := verdictFigure(c)
	if err != nil {
		s.Quotes = append(s.Quotes, quote{Label: "chart not drawn", Text: err.Error()})
		s.Tables = append(s.Tables, verdictTable(c))
		return s
	}
	s.Figures = append(s.Figures, f)
	return s
}

func onlyText(c *artifact.Compare) string {
	var parts []string
	if len(c.OnlyA) > 0 {
		parts = append(parts, "only in A: "+strings.Join(c.OnlyA, ", "))
	}
	if len(c.OnlyB) > 0 {
		parts = append(parts, "only in B: "+strings.Join(c.OnlyB, ", "))
	}
	return strings.Join(parts, "; ")
}

// verdictTable is one row per figure and statistic.
func verdictTable(c *artifact.Compare) table {
	t := table{Caption: "B/A of every figure both have, with the interval its verdict was made with, its level and the verdict",
		Head: []string{"figure", "stat", "A", "B", "n (A, B)", "B/A", "interval", "level", "verdict", "runs for 5 %"}}
	for _, f := range c.Figures {
		r, ci, level := ratioCIText(f)
		class := ""
		if f.Verdict == string(interval.Slower) {
			class = "bad"
		}
		t.addClass(class, f.Name+" ("+f.Unit+")", f.Stat, numP(f.A), numP(f.B), fmt.Sprintf("%d, %d", f.NA, f.NB), r, ci, level, f.Verdict, runsText(f))
	}
	t.Numeric = map[int]bool{2: true, 3: true, 4: true, 5: true, 6: true, 7: true, 9: true}
	return t
}

// verdictChartTitle is the title of the chart of every B/A.
const verdictChartTitle = "B/A of every figure, with the interval its verdict was made with"

// verdictFigure draws B/A of each figure as a bar from 1, coloured by its
// verdict, with the interval its verdict was made with as an error bar.
func verdictFigure(c *artifact.Compare) (figure, error) {
	var names []string
	groups := map[string][]chart.Span{}
	var cis []chart.Interval
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, f := range c.Figures {
		if f.Ratio == nil {
			continue
		}
		row := float64(len(names))
		names = append(names, f.Name+" "+f.Stat)
		groups[f.Verdict] = append(groups[f.Verdict], chart.Span{Row: row, From: 1, To: *f.Ratio})
		lo, hi = math.Min(lo, *f.Ratio), math.Max(hi, *f.Ratio)
		if f.RatioCI != nil {
			cis = append(cis, chart.Interval{At: row, Lo: f.RatioCI[0], Hi: f.RatioCI[1]})
			lo, hi = math.Min(lo, f.RatioCI[0]), math.Max(hi, f.RatioCI[1])
		}
	}
	if len(names) == 0 {
		return figure{}, fmt.Errorf("no figure has a ratio: the runs share no timed figure with a value")
	}
	p := chart.New(verdictChartTitle, "B/A, logarithmic (1×: the same; below: B faster)", "")
	h := rowsLayout(p, names, 6)
	for _, g := range []struct {
		v interval.Verdict
		c color.Color
	}{{interval.Slower, chart.Cut}, {interval.Faster, chart.Prompt}, {interval.NoDifference, chart.Cached}, {interval.Undecided, chart.Grid}} {
		chart.AddSpans(p, string(g.v), groups[string(g.v)], g.c, 10)
	}
	chart.AddErrorBars(p, "interval at the verdict's level", cis, chart.Chunk, true)
	chart.AddRule(p, "A (1×)", 1, true, chart.TTFT, true)
	chart.RatioAxis(p, lo, hi)
	return draw(p, h, verdictTable(c))
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
	if c := l.Call; c != nil {
		add("call mouth_to_ear_p50", "ms", c.MouthToEarP50)
		add("call stt_final_p50", "ms", c.SttFinalP50)
		add("call wer_max", "", c.WERMax)
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
		for _, m := range s.Metrics() {
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
	for _, w := range a.Warnings {
		s.Warnings = append(s.Warnings, "A: "+w)
	}
	for _, w := range b.Warnings {
		s.Warnings = append(s.Warnings, "B: "+w)
	}
	for _, f := range a.Findings {
		s.Findings = append(s.Findings, "A: "+f)
	}
	for _, f := range b.Findings {
		s.Findings = append(s.Findings, "B: "+f)
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
