package report

import (
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"

	"ttftlab/internal/artifact"
	"ttftlab/internal/chart"
	"ttftlab/internal/figures"
	"ttftlab/internal/rundir"
)

// A folder of repeated runs (--runs N) gets one page: the figures pooled
// over its runs with their intervals, the spread of the runs (each run's
// mean, so a drift shows), then the sections of its last run.

// runsSections are the pooled figures and the spread of the runs.
func (r run) runsSections() []section {
	fs := figures.Pool(r.perRun)
	last := filepath.Base(r.repeated[len(r.repeated)-1])
	pool := intervalsSection(fs, len(r.repeated))
	pool.ID, pool.Title = "pooled", fmt.Sprintf("Every figure pooled over the %d runs", len(r.repeated))
	pool.Intro = fmt.Sprintf("The runs %s of this folder, each a whole %s run. ", strings.Join(baseNames(r.repeated), ", "), r.kind) + pool.Intro +
		fmt.Sprintf(" The sections after the spread are %s's, the last run; each run's own page: ttftlab report %s.", last, filepath.Join(r.top, last))
	spread := section{ID: "spread", Title: "The spread of the runs",
		Intro: "Each run's mean of each figure, in the order the runs ran: a drift of the machine over the runs shows as a trend. The chart draws the headline figures relative to their mean across the runs, with its 95 % interval (t, across the runs) at the right."}
	if f, err := spreadFigure(r.headlineFigures(fs), len(r.repeated)); err == nil {
		spread.Figures = append(spread.Figures, f)
	} else {
		spread.Quotes = append(spread.Quotes, quote{Label: "chart not drawn", Text: err.Error()})
	}
	spread.Tables = append(spread.Tables, spreadTable(fs, len(r.repeated)).folded(false))
	return []section{pool, spread}
}

func baseNames(dirs []string) []string {
	out := make([]string, len(dirs))
	for i, d := range dirs {
		out[i] = filepath.Base(d)
	}
	return out
}

// headlineFigures are the figures worth a line on the spread chart: a
// lab's TTFT, total and first sentence; a load run's TTFT and first
// sentence at each level (at most 8 lines).
func (r run) headlineFigures(fs []artifact.Figure) []artifact.Figure {
	var out []artifact.Figure
	for _, f := range fs {
		keep := false
		if r.kind == rundir.KindLab {
			keep = f.Name == "ttft_ms" || f.Name == "total_ms" || f.Name == "first_sentence_ms"
		} else {
			keep = strings.HasSuffix(f.Name, " ttft_ms") || strings.HasSuffix(f.Name, " first_sentence_ms")
		}
		if keep && len(out) < len(spreadColors) {
			out = append(out, f)
		}
	}
	return out
}

var spreadColors = []color.RGBA{chart.TTFT, chart.Total, chart.FirstSentence, chart.Prompt, chart.Queue, chart.P99, chart.Idle, chart.P50}

// spreadFigure draws each run's mean of each figure relative to the mean
// across the runs, and that mean's interval at the right.
func spreadFigure(fs []artifact.Figure, runs int) (figure, error) {
	p := chart.New("Each run's mean, relative to the mean across the runs", "run", "run mean / mean across runs (×)")
	tab := table{Head: []string{"figure", "runs' means (ms)", "mean across runs, 95 % interval (ms)"}}
	meanAt := float64(runs + 1)
	drawn := 0
	for i, f := range fs {
		if f.Mean == nil || *f.Mean <= 0 || f.MeanOver != "runs" {
			continue
		}
		c := spreadColors[i%len(spreadColors)]
		var xys plotter.XYs
		var means []string
		for k, m := range f.RunMeans {
			if m == nil {
				means = append(means, "–")
				continue
			}
			xys = append(xys, plotter.XY{X: float64(k + 1), Y: *m / *f.Mean})
			means = append(means, num(*m))
		}
		if len(xys) == 0 {
			continue
		}
		if err := chart.LinePoints(p, f.Name, xys, c); err != nil {
			return figure{}, err
		}
		if f.MeanCI != nil {
			off := 0.25 * (float64(i)/float64(max(1, len(fs)-1)) - 0.5)
			chart.AddErrorBars(p, "", []chart.Interval{{At: meanAt + off, Lo: f.MeanCI[0] / *f.Mean, Hi: f.MeanCI[1] / *f.Mean}}, c, false)
		}
		tab.add(f.Name, strings.Join(means, ", "), withCI(f.Mean, f.MeanCI))
		drawn++
	}
	if drawn == 0 {
		return figure{}, fmt.Errorf("no headline figure has a mean in two runs or more")
	}
	chart.AddRule(p, "the mean across runs (1×)", 1, false, chart.Chunk, true)
	ticks := []plot.Tick{{Value: meanAt, Label: "mean"}}
	ticks = append(ticks, (chart.IntegerTicks{}).Ticks(1, float64(runs))...)
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.X.Min, p.X.Max = 0.5, meanAt+0.5
	chart.Headroom(p, 0.06)
	return draw(p, chart.Height, *tab.numericFrom(1))
}

// spreadTable is every figure's mean in each run, the mean across the
// runs with its interval, and the largest run mean over the smallest.
func spreadTable(fs []artifact.Figure, runs int) table {
	head := []string{"figure"}
	for i := 1; i <= runs; i++ {
		head = append(head, rundir.RunPrefix+strconv.Itoa(i))
	}
	head = append(head, "mean across runs", "largest / smallest")
	t := table{Caption: "each run's mean of each figure (– a run without it, or with a failed sample)", Head: head}
	for _, f := range fs {
		cells := []string{f.Name + " (" + f.Unit + ")"}
		lo, hi := math.Inf(1), math.Inf(-1)
		for i := 0; i < runs; i++ {
			if i >= len(f.RunMeans) || f.RunMeans[i] == nil {
				cells = append(cells, "–")
				continue
			}
			v := *f.RunMeans[i]
			lo, hi = math.Min(lo, v), math.Max(hi, v)
			cells = append(cells, num(v))
		}
		spread := "–"
		if hi >= lo && lo > 0 && f.Runs > 1 {
			spread = ratio(lo, hi)
		}
		t.add(append(cells, meanText(f), spread)...)
	}
	t.numericFrom(1)
	return t
}

// runsHeadline opens a repeated run's page: how many runs, then the
// pooled headline figures with their intervals.
func (r run) runsHeadline() []headline {
	fs := figures.Pool(r.perRun)
	out := []headline{hl("Runs", strconv.Itoa(len(r.repeated)),
		fmt.Sprintf("each a whole %s run, pooled below; the sections are %s's", r.kind, filepath.Base(r.repeated[len(r.repeated)-1])))}
	if r.kind == rundir.KindLoad {
		var caps []string
		for _, c := range r.capacities {
			if c == nil {
				caps = append(caps, "none")
			} else {
				caps = append(caps, num(*c))
			}
		}
		c := hl("Capacity of each run", strings.Join(caps, " · "), "the highest level that met every SLO, run by run")
		if len(r.load.Settings.SLO) == 0 {
			c.Value, c.Note = "no SLO set", "pass --slo to find the highest level that meets it"
		}
		out = append(out, c)
	}
	for _, f := range r.headlineFigures(fs) {
		if r.kind == rundir.KindLoad && !strings.HasSuffix(f.Name, " first_sentence_ms") {
			continue
		}
		out = append(out, hl(f.Name, pooledText(f), fmt.Sprintf("over %d samples of %d runs", f.N, f.Runs)))
	}
	return out
}

// pooledText is a pooled figure in a few words: its median with the
// interval when n bounds it, else its mean across the runs with its
// interval, else the median with "too few samples".
func pooledText(f artifact.Figure) string {
	switch {
	case f.P50 != nil && f.P50CI != nil:
		return fmt.Sprintf("p50 %s [%s, %s]", ms(*f.P50), ms(f.P50CI[0]), ms(f.P50CI[1]))
	case f.Mean != nil && f.MeanCI != nil:
		return fmt.Sprintf("mean %s [%s, %s]", ms(*f.Mean), ms(f.MeanCI[0]), ms(f.MeanCI[1]))
	case f.P50 != nil:
		return "p50 " + ms(*f.P50) + ", " + tooFew
	}
	return "–"
}
