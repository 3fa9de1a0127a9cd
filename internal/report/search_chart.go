package report

import (
	"fmt"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"

	"ttftlab/internal/artifact"
	"ttftlab/internal/chart"
	"ttftlab/internal/rundir"
)

// searchSection draws a capacity search's path: each round in the order
// it ran, the level tried, whether it held, the first SLO's percentile
// over every request of that level so far with its 95 % interval,
// against the limit. Nil for a run without a search.
func searchSection(l *rundir.Load) *section {
	if len(l.Search) == 0 || len(l.Settings.SLO) == 0 {
		return nil
	}
	s := sectionOf("search", "Capacity search", searchIntro(l), func() (figure, error) { return searchFigure(l) })
	return &s
}

// searchIntro says the search's answer and how to read its chart.
func searchIntro(l *rundir.Load) string {
	answer := "No level held."
	if c := l.Capacity; c != nil {
		switch {
		case c.Decided != nil && !*c.Decided && len(c.Between) == 2:
			answer = fmt.Sprintf("The capacity lies between %s and %s, undecided: an interval still held the limit when the budget (%d calls a level) was spent.",
				l.LevelName(c.Between[0]), l.LevelName(c.Between[1]), l.Settings.SearchBudget)
		case c.Decided != nil && *c.Decided:
			answer = fmt.Sprintf("Capacity %s, decided: its intervals lie below the limits and the next level's above.", l.LevelName(c.Level))
		default:
			answer = fmt.Sprintf("Capacity %s.", l.LevelName(c.Level))
		}
	}
	return answer + " Each round of the search in the order it ran (doubling, bisection, then rounds that confirm the boundary): " +
		"the level tried, the first SLO's percentile over every request of that level so far, with its 95 % interval " +
		"(a bar; dashed where no finite value bounds it), against the SLO's limit."
}

// searchFigure is the path as a chart and a table.
func searchFigure(l *rundir.Load) (figure, error) {
	slo := l.Settings.SLO[0]
	metric := slo.Metric
	title := metricTitle[metric]
	if title == "" {
		title = metric
	}
	p := chart.New(fmt.Sprintf("Search path: %s p%s by round", title, num(slo.Percentile)), "round (level tried)", metric+" (ms)")
	tab := table{Caption: fmt.Sprintf("p%s of %s over every request of the level so far (a failed one above every value), its 95 %% interval, against %s ms",
		num(slo.Percentile), metric, num(slo.LimitMs)),
		Head: []string{"round", "level", "of level", "calls", "requests", "value", "95 % interval", "verdict"}}

	// top is where an unbounded interval or a missing value is drawn.
	top := slo.LimitMs
	for _, st := range l.Search {
		for _, v := range []*float64{st.ValueMs, ciBound(st, 0), ciBound(st, 1)} {
			if v != nil && !math.IsInf(*v, 0) {
				top = math.Max(top, *v)
			}
		}
	}
	top *= 1.15

	var held, missed, late plotter.XYs
	ticks := make([]plot.Tick, len(l.Search))
	for i, st := range l.Search {
		x := float64(i)
		label := num(st.Level)
		if st.Round > 1 {
			label += " #" + strconv.Itoa(st.Round)
		}
		ticks[i] = plot.Tick{Value: x, Label: label}
		lo, hi := ciBound(st, 0), ciBound(st, 1)
		if st.CIMs != nil {
			from, to := 0.0, top
			if lo != nil {
				from = *lo
			}
			if hi != nil {
				to = *hi
			}
			if err := chart.Line(p, "", plotter.XYs{{X: x, Y: from}, {X: x, Y: to}}, chart.Chunk, lo == nil || hi == nil); err != nil {
				return figure{}, err
			}
		}
		switch {
		case st.ValueMs == nil:
			late = append(late, plotter.XY{X: x, Y: top})
		case st.Met:
			held = append(held, plotter.XY{X: x, Y: *st.ValueMs})
		default:
			missed = append(missed, plotter.XY{X: x, Y: *st.ValueMs})
		}
		tab.add(strconv.Itoa(i+1), num(st.Level), roundText(st.Round), countText(st.Calls), countText(st.Requests),
			numP(st.ValueMs), intervalText(st), verdictText(st))
	}
	for _, m := range []struct {
		name string
		xys  plotter.XYs
		ring bool
	}{{"held", held, false}, {"missed", missed, false}, {"no value (late requests)", late, true}} {
		if len(m.xys) == 0 {
			continue
		}
		var err error
		if m.ring {
			err = chart.Rings(p, m.name, m.xys, chart.Cut)
		} else if m.name == "held" {
			err = chart.Points(p, m.name, m.xys, chart.Capacity)
		} else {
			err = chart.Points(p, m.name, m.xys, chart.Cut)
		}
		if err != nil {
			return figure{}, err
		}
	}
	chart.AddRule(p, fmt.Sprintf("SLO: p%s ≤ %s ms", num(slo.Percentile), num(slo.LimitMs)), slo.LimitMs, false, chart.Limit, true)
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.X.Min, p.X.Max = -0.5, float64(len(ticks))-0.5
	chart.FromZero(p)
	chart.Headroom(p, 0.06)
	return draw(p, chart.Height, *tab.numericFrom(1))
}

// ciBound is one bound of a step's interval, nil when it has none.
func ciBound(st artifact.SearchStep, i int) *float64 {
	if st.CIMs == nil {
		return nil
	}
	return st.CIMs[i]
}

func intervalText(st artifact.SearchStep) string {
	if st.CIMs == nil {
		return "–"
	}
	b := func(p *float64) string {
		if p == nil {
			return "∞"
		}
		return num(*p)
	}
	return fmt.Sprintf("[%s, %s]", b(st.CIMs[0]), b(st.CIMs[1]))
}

// verdictText is the step's verdict and whether its interval decides it.
func verdictText(st artifact.SearchStep) string {
	v := "missed"
	switch {
	case st.OverSaturated:
		v = "over-saturated"
	case st.Met:
		v = "held"
	}
	switch st.Side {
	case "below":
		return v + " (interval below the limit)"
	case "above":
		return v + " (interval above the limit)"
	case "straddles":
		return v + " (interval holds the limit: undecided)"
	}
	return v
}

func roundText(r int) string {
	if r <= 1 {
		return "first"
	}
	return "round " + strconv.Itoa(r)
}

func countText(n int) string {
	if n == 0 {
		return "–"
	}
	return strconv.Itoa(n)
}
