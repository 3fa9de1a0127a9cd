package report

import (
	"fmt"
	"image/color"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"

	"ttftlab/internal/artifact"
	"ttftlab/internal/chart"
	"ttftlab/internal/rundir"
)

// percentileMetrics are drawn by level, in this order, when the run has
// them.
var percentileMetrics = []string{"ttft_ms", "first_sentence_ms", "first_audio_ms", "underrun_ms", "mouth_to_ear_ms", "stt_final_ms", "total_ms", "queue_ms"}

var metricTitle = map[string]string{
	"ttft_ms": "TTFT", "first_sentence_ms": "First sentence", "total_ms": "Total time", "queue_ms": "Queue wait",
	"first_audio_ms": "First audio (when the caller first hears the answer)", "underrun_ms": "Silence while speaking (underrun)",
	"mouth_to_ear_ms": "Mouth to ear (the caller's speech end to the answer's first audio)",
	"stt_final_ms":    "Final transcript (after the caller's speech end)",
}

// percentileLines are the percentiles drawn, with their colours.
var percentileLines = []struct {
	name  string
	color color.Color
}{{"p50", chart.P50}, {"p95", chart.P95}, {"p99", chart.P99}}

func percentileSection(l *rundir.Load) section {
	var builders []func() (figure, error)
	for _, m := range percentileMetrics {
		if hasMetric(l, m) {
			builders = append(builders, func() (figure, error) { return percentileFigure(l, m) })
		}
	}
	return sectionOf("percentiles", "Percentiles by level",
		"p50, p95 and p99 of each level against the SLO limit, each over the requests that have the figure (its table says which, n how many); the capacity is the highest level that met every SLO.",
		builders...)
}

func hasMetric(l *rundir.Load, m string) bool {
	for _, lv := range l.Levels {
		if d, _ := lv.Summary.Metric(m); d.P50 != nil {
			return true
		}
	}
	return false
}

// quantiles are a distribution's members by name.
func quantile(d artifact.Dist, q string) *float64 {
	switch q {
	case "p50":
		return d.P50
	case "p90":
		return d.P90
	case "p95":
		return d.P95
	case "p99":
		return d.P99
	case "mean":
		return d.Mean
	case "max":
		return d.Max
	}
	return nil
}

// overOf is what a metric's distributions are over, as the run says.
func overOf(l *rundir.Load, m string) string {
	for _, lv := range l.Levels {
		if d, _ := lv.Summary.Metric(m); d.Over != "" {
			return d.Over
		}
	}
	return ""
}

// axisTitle names the X axis of a by-level chart.
func axisTitle(l *rundir.Load) string {
	switch l.Settings.Mode {
	case "rate":
		return "request rate (requests/s)"
	case "trace":
		return "trace speed (times the trace's own)"
	}
	return "concurrency (calls at once)"
}

// levelAxis labels the X axis with the levels, evenly spaced: 1, 2, 4, 8
// read better so than on a linear scale.
func levelAxis(p *plot.Plot, l *rundir.Load) {
	ticks := make([]plot.Tick, len(l.Levels))
	for i, lv := range l.Levels {
		ticks[i] = plot.Tick{Value: float64(i), Label: num(lv.Level)}
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.X.Min, p.X.Max = -0.3, float64(len(ticks))-0.7
}

// addCapacity marks the capacity level with a vertical rule, "at least"
// or "between ... undecided" as the headline says.
func addCapacity(p *plot.Plot, l *rundir.Load) {
	if l.Capacity == nil {
		return
	}
	name := "capacity: " + num(l.Capacity.Level)
	switch v := capacityOf(l); v.Kind {
	case capAtLeast:
		name = "capacity: at least " + num(l.Capacity.Level)
	case capBetween:
		name = "capacity: between " + num(v.Lo) + " and " + num(v.Hi) + ", undecided"
	}
	for i, lv := range l.Levels {
		if lv.Level == l.Capacity.Level {
			chart.AddRule(p, name, float64(i), true, chart.Capacity, false)
		}
	}
}

func percentileFigure(l *rundir.Load, metric string) (figure, error) {
	title := metricTitle[metric]
	if title == "" {
		title = metric
	}
	p := chart.New(title+" by level: p50, p95, p99", axisTitle(l), metric+" (ms)")
	levelAxis(p, l)
	tab := table{Head: []string{"level", "n", "p50", "p90", "p95", "p99", "max"}}
	if over := overOf(l, metric); over != "" {
		tab.Caption = "over " + over + " (n: how many)"
	}
	lines := map[string]plotter.XYs{}
	bars := map[string][]chart.Interval{}
	thin, unbounded := false, false
	for i, lv := range l.Levels {
		d, _ := lv.Summary.Metric(metric)
		cells := []string{num(lv.Level), strconv.Itoa(d.N)}
		for _, q := range []string{"p50", "p90", "p95", "p99", "max"} {
			v := quantile(d, q)
			cell := numP(v)
			if ci, has := quantileCI(d, q); has {
				// p50, p95, p99 with their 95 % intervals; "too few
				// samples" where the interval is unbounded.
				cell = withCI(v, ci)
				unbounded = unbounded || v != nil && ci == nil
				if ci != nil {
					bars[q] = append(bars[q], chart.Interval{At: float64(i) + barShift(q, p.X.Max-p.X.Min), Lo: ci[0], Hi: ci[1]})
				}
			} else if v != nil && !supported(q, d.N) {
				cell += " *"
				thin = true
			}
			cells = append(cells, cell)
			// Only what the table gives a number for is drawn: a
			// percentile it calls too few samples is no point.
			if ci, has := quantileCI(d, q); v != nil && (!has || ci != nil) {
				lines[q] = append(lines[q], plotter.XY{X: float64(i), Y: *v})
			}
		}
		tab.add(cells...)
	}
	for _, q := range percentileLines {
		if len(lines[q.name]) > 0 {
			if err := chart.LinePoints(p, q.name, lines[q.name], q.color); err != nil {
				return figure{}, err
			}
		}
		chart.AddErrorBars(p, q.name+", 95 % interval", bars[q.name], q.color, false)
	}
	for _, o := range l.Settings.SLO {
		if o.Metric == metric {
			chart.AddRule(p, fmt.Sprintf("SLO: p%s ≤ %s ms", num(o.Percentile), num(o.LimitMs)), o.LimitMs, false, chart.Limit, true)
			tab.add(fmt.Sprintf("SLO: p%s ≤", num(o.Percentile)), "", "", "", num(o.LimitMs), "", "")
		}
	}
	tab.Caption = strings.TrimPrefix(tab.Caption+"; p50, p95, p99 with their 95 % intervals (order statistics)", "; ")
	if unbounded {
		tab.Caption += ", " + tooFew + " where n cannot bound one (no point drawn)"
	}
	if thin {
		tab.Caption += "; * fewer requests than the percentile needs (p90 needs 10): it is the largest value, not a percentile"
	}
	addCapacity(p, l)
	chart.FromZero(p)
	chart.Headroom(p, 0.06)
	return draw(p, chart.Height, *tab.numericFrom(1))
}

// barOffset sets each percentile's error bar a little apart from the
// others' at the same level, so overlapping intervals stay readable: a
// share of the level axis's width, so the bars sit as near their points
// with one level (an axis 0.6 wide) as with many.
var barOffset = map[string]float64{"p50": -0.015, "p95": 0, "p99": 0.015}

// barShift is q's bar offset on an axis width wide, never beyond 0.1 of
// the space between two levels (with many levels a share of the width
// would set a bar nearer the next level's point than its own).
func barShift(q string, width float64) float64 {
	d := barOffset[q] * width
	return math.Max(-0.1, math.Min(0.1, d))
}

// quantileCI is the 95 % interval of a distribution's p50, p95 or p99
// (has is false for the other members, which carry none).
func quantileCI(d artifact.Dist, q string) (ci *[2]float64, has bool) {
	switch q {
	case "p50":
		return d.P50CI, true
	case "p95":
		return d.P95CI, true
	case "p99":
		return d.P99CI, true
	}
	return nil, false
}

// supported says whether n values can give the percentile q ("p99") a
// tail (artifact.ThinTail); "max" always.
func supported(q string, n int) bool {
	pct, err := strconv.ParseFloat(strings.TrimPrefix(q, "p"), 64)
	return err != nil || !artifact.ThinTail(pct, n)
}
