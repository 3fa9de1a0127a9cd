package report

import (
	"fmt"
	"strconv"

	"ttftlab/internal/artifact"
	"ttftlab/internal/figures"
)

// samples are the run's timed figures with the values each is over.
func (r run) samples() []figures.Sample {
	if r.lab != nil {
		return r.lab.Samples()
	}
	return r.load.Samples()
}

// withIntervals puts the table of every figure with its interval before
// the run's details (the last section).
func withIntervals(secs []section, iv section) []section {
	if len(secs) == 0 {
		return []section{iv}
	}
	out := append([]section(nil), secs[:len(secs)-1]...)
	return append(out, iv, secs[len(secs)-1])
}

// tooFew is what a figure whose 95 % interval is unbounded at its n says
// in place of a number (docs/statistics.md).
const tooFew = "too few samples"

// withCI shows a value with its 95 % interval, "812 [790, 838]", or
// tooFew when the interval is unbounded; a dash when there is no value.
// A narrow column breaks the line between the value and its interval,
// never inside the interval (a no-break space after its comma).
func withCI(v *float64, ci *[2]float64) string {
	switch {
	case v == nil:
		return "–"
	case ci == nil:
		return tooFew
	}
	return num(*v) + " " + ciOnly(v, ci)
}

// ciOnly is the interval alone, "[790, 838]", for a narrow table that
// shows the value on a row of its own; tooFew when it is unbounded.
func ciOnly(v *float64, ci *[2]float64) string {
	switch {
	case v == nil:
		return "–"
	case ci == nil:
		return tooFew
	}
	return "[" + num(ci[0]) + ",\u00a0" + num(ci[1]) + "]"
}

// meanText is a figure's mean with its interval and what it is over.
func meanText(f artifact.Figure) string {
	if f.Mean == nil {
		if f.Failed > 0 {
			return "– (a sample failed)"
		}
		return "–"
	}
	over := "over the samples"
	if f.MeanOver == "runs" {
		over = fmt.Sprintf("across %d runs", f.Runs)
	}
	if f.MeanCI == nil {
		return num(*f.Mean) + " (" + tooFew + ")"
	}
	return withCI(f.Mean, f.MeanCI) + " " + over
}

// intervalsTable lists every timed figure with its percentiles and mean,
// each with its 95 % interval or "too few samples".
func intervalsTable(fs []artifact.Figure, runs int) table {
	caption := "every timed figure of the run with its 95 % interval: percentiles by order statistics over its samples, the mean by a t-interval over them (one run: the drift between runs is not in it)"
	if runs > 1 {
		caption = fmt.Sprintf("every timed figure pooled over the %d runs with its 95 %% interval: percentiles by order statistics over the pooled samples, the mean by a t-interval across the runs' means", runs)
	}
	t := table{Caption: caption, Head: []string{"figure", "n", "runs", "failed", "p50", "p95", "p99", "mean"}}
	for _, f := range fs {
		t.add(f.Name+" ("+f.Unit+")", strconv.Itoa(f.N), strconv.Itoa(f.Runs), strconv.Itoa(f.Failed),
			withCI(f.P50, f.P50CI), withCI(f.P95, f.P95CI), withCI(f.P99, f.P99CI), meanText(f))
	}
	t.numericFrom(1)
	return t
}

// intervalsSection is the table of every timed figure with its interval.
func intervalsSection(fs []artifact.Figure, runs int) section {
	s := section{ID: "intervals", Title: "Every figure with its 95 % interval",
		Intro: "A percentile whose interval cannot be bounded at its number of samples (p50 needs 6, p95 72, p99 368) says " + tooFew +
			" instead of a number; a failed request counts above every time. See docs/statistics.md."}
	if len(fs) == 0 {
		s.Intro = "The run has no timed figure."
		return s
	}
	// A single run's table comes after its charts, folded when long; a
	// repeated run's is the page's answer, open.
	t := intervalsTable(fs, runs)
	if runs == 1 {
		t = t.folded(false)
	}
	s.Tables = append(s.Tables, t)
	return s
}
