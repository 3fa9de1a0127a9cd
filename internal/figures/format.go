package figures

import (
	"fmt"
	"strconv"
	"strings"

	"ttftlab/internal/artifact"
)

// Line is one figure on the console: its name padded to width, then p50
// and p95 with their 95 % intervals, the mean with its interval and what
// it is over, n and the failed samples:
//
//	ttft_ms   p50 812 ms [790, 838]   p95 too few samples   mean 815 ms [801, 829] over 8 runs   n 40
//
// A percentile whose interval is unbounded at this n says "too few
// samples" instead of a number; one that falls on failed samples says
// "failed".
func Line(f artifact.Figure, width int) string { return line(f, width, false) }

// line is Line, or with bounded only the cells that hold an interval, a
// number or a failure (no "too few samples").
func line(f artifact.Figure, width int, bounded bool) string {
	unit := ""
	if f.Unit != "" {
		unit = " " + f.Unit
	}
	var cells []string
	for _, c := range []string{pctCell("p50", f.P50, f.P50CI, f.Failed, unit), pctCell("p95", f.P95, f.P95CI, f.Failed, unit)} {
		if !bounded || !strings.HasSuffix(c, " too few samples") {
			cells = append(cells, c)
		}
	}
	if !bounded || f.MeanCI != nil {
		cells = append(cells, meanCell(f, unit))
	}
	cells = append(cells, fmt.Sprintf("n %d", f.N))
	if f.Failed > 0 {
		cells = append(cells, fmt.Sprintf("%d failed", f.Failed))
	}
	return fmt.Sprintf("%-*s  %s", width, f.Name, strings.Join(cells, "   "))
}

func pctCell(name string, v *float64, ci *[2]float64, failed int, unit string) string {
	switch {
	case v == nil && failed > 0:
		return name + " failed"
	case v == nil || ci == nil && failed == 0:
		return name + " too few samples"
	case ci == nil:
		// The interval's upper end falls on a failed sample.
		return fmt.Sprintf("%s %s%s [up to a failure]", name, artifact.ShowMs(*v), unit)
	}
	return fmt.Sprintf("%s %s%s [%s, %s]", name, artifact.ShowMs(*v), unit, artifact.ShowMs(ci[0]), artifact.ShowMs(ci[1]))
}

func meanCell(f artifact.Figure, unit string) string {
	if f.Mean == nil {
		if f.Failed > 0 {
			return "mean none (a sample failed)"
		}
		return "mean none"
	}
	over := ""
	switch f.MeanOver {
	case "runs":
		over = fmt.Sprintf(" over %d runs", f.Runs)
	case "samples":
		over = fmt.Sprintf(" over %d sample%s", f.N, map[bool]string{true: "", false: "s"}[f.N == 1])
	}
	if f.MeanCI == nil {
		return fmt.Sprintf("mean %s%s [too few samples]%s", artifact.ShowMs(*f.Mean), unit, over)
	}
	return fmt.Sprintf("mean %s%s [%s, %s]%s", artifact.ShowMs(*f.Mean), unit, artifact.ShowMs(f.MeanCI[0]), artifact.ShowMs(f.MeanCI[1]), over)
}

// Table is the figures one per line (Line), their names in one column.
func Table(fs []artifact.Figure) string { return table(fs, false) }

func table(fs []artifact.Figure, bounded bool) string {
	width := 0
	for _, f := range fs {
		width = max(width, len(f.Name))
	}
	var b strings.Builder
	for _, f := range fs {
		b.WriteString(line(f, width, bounded))
		b.WriteByte('\n')
	}
	return b.String()
}

// Bounded is the figures that have at least one 95 % interval or a
// failed sample (a percentile that falls on one says "failed"), one per
// line as Line writes them but with only the cells that hold a number or a
// failure (no "too few samples"), and how many figures it left out because
// none of their intervals exists. One run of the lab bounds few of its
// figures; the console prints these and one line for the rest.
func Bounded(fs []artifact.Figure) (lines string, left int) {
	var kept []artifact.Figure
	for _, f := range fs {
		if f.P50CI != nil || f.P95CI != nil || f.MeanCI != nil || f.Failed > 0 {
			kept = append(kept, f)
		} else {
			left++
		}
	}
	return table(kept, true), left
}

// LevelText is a confidence level as the console and the pages show it
// beside an interval: a percentage with the decimals it needs, up to two
// unless fewer would round it to 100 ("95 %", "97.5 %", "98.33 %",
// "99.995 %").
func LevelText(level float64) string {
	s := ""
	for d := 2; d <= 6; d++ {
		s = strings.TrimRight(strings.TrimRight(strconv.FormatFloat(100*level, 'f', d, 64), "0"), ".")
		if s != "100" {
			break
		}
	}
	return s + " %"
}
