// Package loadtext is how a load reads on the console: the table of
// levels (`ttftlab load`, `ttftlab merge`, the level a stopped run ended
// in), its intervals, SLOs, failures and warnings, the legend and the
// capacity, made from the records load.json holds (internal/artifact).
// It formats numbers as the console always has: C's printf rules, a time
// to one decimal under 10 ms (MS), a level in its shortest form ("%g").
package loadtext

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"ttftlab/internal/artifact"
)

// g is a number as C's "%g" writes it (six significant digits): a level
// "0.5", a limit "800".
func g(x float64) string { return fmt.Sprintf("%.6g", x) }

// Header is the table's first line, after an empty one; mode is "rate",
// "concurrency" or "trace".
func Header(mode string) string {
	first := "at once"
	switch mode {
	case "rate":
		first = "rate/s"
	case "trace":
		first = "replay"
	}
	return fmt.Sprintf("\n%-*s %6s %12s  %-27s %-27s %9s %8s  %s", labelWidth(mode), first, "calls", "requests ok", "ttft p50/95/99",
		"1st sent p50/95/99", "tok/s", "goodput", "SLO")
}

// labelWidth is the width of the table's first column: a level's label,
// or a replay's name ("trace x1", "trace x0.25").
func labelWidth(mode string) int {
	if mode == "trace" {
		return 11
	}
	return 8
}

// LevelName names a level in a sentence: "concurrency 4", "rate 2
// calls/s", or a replayed trace's one level by its speed, "trace x1".
func LevelName(mode string, level float64) string {
	switch mode {
	case "rate":
		return "rate " + g(level) + " calls/s"
	case "trace":
		return "trace x" + g(level)
	}
	return "concurrency " + g(level)
}

// Unit names a level: " calls/s" in an open loop, " call(s) at once" in
// a closed one.
func Unit(mode string, level float64) string {
	switch {
	case mode == "rate":
		return " calls/s"
	case level == 1:
		return " call at once"
	}
	return " calls at once"
}

// Bounds is a percentile's 95 % interval as a record keeps it (each bound
// nil where no order statistic bounds that side): "[790, 838]". A missing
// upper bound is "inf" (beyond the largest value, or a late request); a
// missing lower bound under a finite value is "0", as no time is below
// it, and "inf" under a value that is itself late.
func Bounds(value *float64, ci [2]*float64) string {
	lo := orInf(ci[0])
	if ci[0] == nil && value != nil {
		lo = "0"
	}
	return fmt.Sprintf("[%s, %s]", lo, orInf(ci[1]))
}

// orInf is a time, "inf" when there is none (late).
func orInf(x *float64) string {
	if x == nil {
		return "inf"
	}
	return artifact.ShowMs(*x)
}

// ThirdsText is "p50 of each third 12 [10, 14] -> 80 [70, 95] -> 200
// [180, inf] ms" for a level's trend record (steady, over_saturated).
func ThirdsText(t artifact.LevelTrend) string {
	parts := make([]string, len(t.Thirds))
	for i, w := range t.Thirds {
		parts[i] = orInf(w.P50Ms) + " " + Bounds(w.P50Ms, w.CIMs)
	}
	return "p50 of each third " + strings.Join(parts, " -> ") + " ms"
}

// DriftLine is the warning under a level whose steady window still
// drifts (LevelTrend.Drift): which way, the rank correlation with its
// p-value, and the thirds.
func DriftLine(t artifact.LevelTrend) string {
	d := t.Drift
	way := "rose"
	if *d.Rho < 0 {
		way = "fell"
	}
	return fmt.Sprintf("  drifting: %s %s across the level's steady window (Spearman's rho %.2f of %d batch means of %d against time, p %.4f; %s): "+
		"its figures mix what came before and after", t.Metric, way, *d.Rho, d.Batches, d.Batch, *d.P, ThirdsText(t))
}

// heldButFailed says a level missed for its failed requests alone: every
// SLO held, yet a level holds only when no request failed.
func heldButFailed(l *artifact.LoadLevel) bool {
	if l.SLOMet || l.Interrupted || l.OverSaturated != nil || len(l.SLO) == 0 {
		return false
	}
	for _, v := range l.SLO {
		if !v.Met {
			return false
		}
	}
	return l.Summary.Failed > 0
}

// state is what else a level's row says of why it did not hold, for the
// capacity line: " (over-saturated: ...)" (its lateness kept rising and
// no new call started), " (interrupted: ...)" (the run was stopped in
// it), or "".
func state(l *artifact.LoadLevel) string {
	switch {
	case l.OverSaturated != nil:
		return " (over-saturated: its lateness kept rising)"
	case l.Interrupted:
		return " (interrupted: the run was stopped in it)"
	}
	return ""
}

// CapacityLine is a sweep's capacity (no search): the highest level
// whose SLOs held, what the first SLO was there and at the level above.
// levels are in order; capacity and above are levels of them or nil;
// lowest is the first level asked for, used when none ran (NaN when none
// was asked for either).
func CapacityLine(mode string, levels []artifact.LoadLevel, capacity, above *artifact.LoadLevel, lowest float64) string {
	if capacity != nil {
		line := "capacity: " + g(capacity.Level) + Unit(mode, capacity.Level)
		if len(capacity.SLO) > 0 {
			s := capacity.SLO[0]
			line += fmt.Sprintf(" (%s p%s %.0f ms <= %s ms)", s.Metric, g(s.Percentile), deref(s.ValueMs), g(s.LimitMs))
		}
		switch {
		case above != nil:
			line += "; at " + g(above.Level) + ": " + firstValue(above) + state(above)
			if heldButFailed(above) {
				line += fmt.Sprintf(", but %d of %d requests failed", above.Summary.Failed, above.Summary.Requests)
			}
		default:
			// The highest level held; one below it may not have (a
			// server that warmed up, a noisy level): say so rather
			// than "every".
			var missed []string
			for _, l := range levels {
				if l.Level < capacity.Level && !l.SLOMet {
					missed = append(missed, g(l.Level))
				}
			}
			switch len(missed) {
			case 0:
				line += "; every level held: try higher ones"
			case 1:
				line += "; the highest level held, but " + missed[0] + " below it did not: rerun it, or try higher ones"
			default:
				line += "; the highest level held, but " + strings.Join(missed, ", ") + " below it did not: rerun them, or try higher ones"
			}
		}
		return line
	}
	if len(levels) == 0 {
		if math.IsNaN(lowest) {
			return "capacity: none: no level ran"
		}
		return "capacity: none: already " + g(lowest) + Unit(mode, lowest) + " misses the SLO"
	}
	first := &levels[0]
	s := first.Summary
	why := "misses the SLO"
	switch {
	case s.Requests > 0 && s.Failed == s.Requests:
		why = "failed every request"
	case heldButFailed(first):
		why = fmt.Sprintf("has failed requests (%d of %d)", s.Failed, s.Requests)
	}
	return "capacity: none: already " + g(first.Level) + Unit(mode, first.Level) + " " + why + state(first)
}

// firstValue is the first SLO's value at a level that did not hold, or
// why it has none: "812 ms", "no value: 3 of 40 failed".
func firstValue(l *artifact.LoadLevel) string {
	if len(l.SLO) == 0 {
		return "no value"
	}
	a := l.SLO[0]
	if a.ValueMs != nil {
		return fmt.Sprintf("%.0f ms", *a.ValueMs)
	}
	if a.Failed > 0 {
		return fmt.Sprintf("no value: %d of %d failed", a.Failed, a.N)
	}
	return fmt.Sprintf("no value: %d of %d without the figure", a.Missing, a.N)
}

// deref is a value a record holds, 0 when it holds none.
func deref(x *float64) float64 {
	if x == nil {
		return 0
	}
	return *x
}

// itoa is an integer as the console writes it.
func itoa(n int) string { return strconv.Itoa(n) }
