package runs

import (
	"fmt"
	"math"
	"strings"

	"ttftlab/internal/artifact"
	"ttftlab/internal/figures"
)

// runsSummary is what print(runs(...)) shows: one line per figure, as
// the console of lab --runs and load --runs prints it (figures.Table).
func runsSummary(n int, fs []artifact.Figure) string {
	return fmt.Sprintf("runs: %d run%s, 95 %% intervals\n%s", n, plural(n), strings.TrimSuffix(figures.Table(fs), "\n"))
}

func withUnit(x float64, unit string) string {
	if unit == "" {
		return artifact.ShowMs(x)
	}
	return artifact.ShowMs(x) + " " + unit
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
	fmt.Fprintf(&b, "ab: B/A of the median, %d run%s of each in ABBA order, seed %d, %d resamples; verdicts corrected by Holm over %d figure%s, each interval at its verdict's level\n",
		runs, plural(runs), r.Seed, r.Reps, compared(r), plural(compared(r)))
	width := 6
	for _, f := range r.Figures {
		width = max(width, len(f.Name))
	}
	fmt.Fprintf(&b, "%-*s  %-12s  %-12s  %-6s  %-16s  %-8s  %-22s  %s", width, "figure", "A p50", "B p50", "B/A", "interval", "level", "verdict", "runs for 5 %")
	for _, f := range r.Figures {
		fmt.Fprintf(&b, "\n%-*s  ", width, f.Name)
		if f.OnlyIn != "" {
			fmt.Fprintf(&b, "only in %s", f.OnlyIn)
			continue
		}
		ratio, ci, level, runs5 := "-", "-", "-", "-"
		if !math.IsNaN(f.Ratio.Ratio) && !math.IsInf(f.Ratio.Ratio, 0) {
			ratio = fmtRatio(f.Ratio.Ratio)
		}
		if !f.Ratio.Unbounded {
			ci = fmt.Sprintf("[%s, %s]", fmtRatio(f.Ratio.Lo), fmtRatio(f.Ratio.Hi))
			level = figures.LevelText(f.Ratio.Level)
		}
		if f.RunsFor5 > 0 {
			runs5 = fmt.Sprint(f.RunsFor5)
		}
		fmt.Fprintf(&b, "%-12s  %-12s  %-6s  %-16s  %-8s  %-22s  %s", p50Of(f.A), p50Of(f.B), ratio, ci, level, f.Verdict, runs5)
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

// compared is how many figures Holm's correction ran over: neither too
// few samples nor 0 on both sides (outside its family).
func compared(r figures.AB) int {
	n := 0
	for _, f := range r.Figures {
		if f.OnlyIn == "" && !f.TooFew && !f.Ratio.Unbounded && !f.AllZero {
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
