package runtime

import (
	"fmt"
	"math"
	"strings"

	"ttftlab/internal/artifact"
	"ttftlab/internal/figures"
)

// runsSummary is what print(runs(...)) shows: one line per figure.
func runsSummary(n int, fs []artifact.Figure) string {
	var b strings.Builder
	fmt.Fprintf(&b, "runs: %d run%s, 95 %% intervals", n, plural(n))
	width := nameWidth(fs)
	for _, f := range fs {
		fmt.Fprintf(&b, "\n%-*s  %s", width, f.Name, figureLine(f))
	}
	return b.String()
}

func nameWidth(fs []artifact.Figure) int {
	w := 6
	for _, f := range fs {
		w = max(w, len(f.Name))
	}
	return w
}

// figureLine is a figure on one line, as the console prints it:
// "p50 812 ms [790, 838]   p95 too few samples   mean 815 ms [801, 829]
// over 8 runs   n 40".
func figureLine(f artifact.Figure) string {
	parts := []string{
		pctPart("p50", f.P50, f.P50CI, f.Unit),
		pctPart("p95", f.P95, f.P95CI, f.Unit),
	}
	switch {
	case f.Mean == nil && f.Failed > 0:
		parts = append(parts, "mean - (a failure)")
	case f.Mean == nil:
		parts = append(parts, "mean -")
	case f.MeanCI == nil:
		parts = append(parts, fmt.Sprintf("mean %s (no interval over 1 %s)", withUnit(*f.Mean, f.Unit), strings.TrimSuffix(f.MeanOver, "s")))
	default:
		over := fmt.Sprintf("over %d runs", f.Runs)
		if f.MeanOver == "samples" {
			over = fmt.Sprintf("over %d samples of 1 run", f.N)
		}
		parts = append(parts, fmt.Sprintf("mean %s [%s, %s] %s", withUnit(*f.Mean, f.Unit), fmtNum(f.MeanCI[0]), fmtNum(f.MeanCI[1]), over))
	}
	n := fmt.Sprintf("n %d", f.N)
	if f.Failed > 0 {
		n += fmt.Sprintf(" (%d failed)", f.Failed)
	}
	return strings.Join(append(parts, n), "   ")
}

// pctPart is "p50 812 ms [790, 838]", or "p95 too few samples" when the
// interval is unbounded at this n.
func pctPart(name string, v *float64, ci *[2]float64, unit string) string {
	if ci == nil {
		return name + " too few samples"
	}
	if v == nil {
		return name + " failed"
	}
	return fmt.Sprintf("%s %s [%s, %s]", name, withUnit(*v, unit), fmtNum(ci[0]), fmtNum(ci[1]))
}

func withUnit(x float64, unit string) string {
	if unit == "" {
		return fmtNum(x)
	}
	return fmtNum(x) + " " + unit
}

// fmtNum shows three or so significant digits without an exponent.
func fmtNum(x float64) string {
	switch a := math.Abs(x); {
	case math.IsInf(x, 1):
		return "failed"
	case a >= 100:
		return fmt.Sprintf("%.0f", x)
	case a >= 10:
		return fmt.Sprintf("%.1f", x)
	case a >= 1:
		return fmt.Sprintf("%.2f", x)
	default:
		return fmt.Sprintf("%.3g", x)
	}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// driftWarning goes with every verdict of a comparison of one run per
// variant.
const driftWarning = "one run of a variant: the intervals cover the noise between its requests, not the drift between runs; use runs >= 2"

// abSummary is the verdict table of an ab() result.
func abSummary(r figures.AB, runs int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "ab: B/A of the median, %d run%s of each in ABBA order, seed %d, %d resamples; verdicts corrected by Holm over %d figure%s\n",
		runs, plural(runs), r.Seed, r.Reps, compared(r), plural(compared(r)))
	width := 6
	for _, f := range r.Figures {
		width = max(width, len(f.Name))
	}
	fmt.Fprintf(&b, "%-*s  %-12s  %-12s  %-6s  %-16s  %-22s  %s", width, "figure", "A p50", "B p50", "B/A", "95 % interval", "verdict", "runs for 5 %")
	for _, f := range r.Figures {
		fmt.Fprintf(&b, "\n%-*s  ", width, f.Name)
		if f.OnlyIn != "" {
			fmt.Fprintf(&b, "only in %s", f.OnlyIn)
			continue
		}
		ratio, ci, runs5 := "-", "-", "-"
		if !math.IsNaN(f.Ratio.Ratio) && !math.IsInf(f.Ratio.Ratio, 0) {
			ratio = fmtRatio(f.Ratio.Ratio)
		}
		if !f.Ratio.Unbounded {
			ci = fmt.Sprintf("[%s, %s]", fmtRatio(f.Ratio.Lo), fmtRatio(f.Ratio.Hi))
		}
		if f.RunsFor5 > 0 {
			runs5 = fmt.Sprint(f.RunsFor5)
		}
		fmt.Fprintf(&b, "%-12s  %-12s  %-6s  %-16s  %-22s  %s", p50Of(f.A), p50Of(f.B), ratio, ci, f.Verdict, runs5)
	}
	if !r.DriftCovered {
		b.WriteString("\nwarning: " + driftWarning)
	}
	return b.String()
}

// fmtRatio shows a ratio with three decimals below 10, fewer above.
func fmtRatio(x float64) string {
	switch {
	case x >= 100:
		return fmt.Sprintf("%.0f", x)
	case x >= 10:
		return fmt.Sprintf("%.1f", x)
	}
	return fmt.Sprintf("%.3f", x)
}

func compared(r figures.AB) int {
	n := 0
	for _, f := range r.Figures {
		if f.OnlyIn == "" && !f.TooFew && !f.Ratio.Unbounded {
			n++
		}
	}
	return n
}

func p50Of(f *artifact.Figure) string {
	if f == nil || f.P50 == nil {
		return "failed"
	}
	return withUnit(*f.P50, f.Unit)
}
