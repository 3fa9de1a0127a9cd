package loadtext

import (
	"fmt"
	"strings"
	"time"

	"ttftlab/internal/artifact"
)

// A run until decided (settings.until_decided) prints one RoundLine a
// round, then the level's lines (Table.Level, over every round) and its
// DecisionLines; EndLines adds UndecidedEndLine.

// RoundLine is one round of a level run until decided: the requests its
// record is over so far and each SLO's value, interval and side.
func RoundLine(level float64, round int, l artifact.LoadLevel) string {
	parts := make([]string, len(l.SLO))
	for i, v := range l.SLO {
		parts[i] = sloSide(v)
	}
	return fmt.Sprintf("  %s round %d: %d requests so far: %s", g(level), round, l.Summary.Requests, strings.Join(parts, "; "))
}

// sloSide is "first_sentence_ms p95 612 ms [580, inf] holds 800 ms
// (undecided)": an SLO's value and interval against its limit.
func sloSide(v artifact.SLOVerdict) string {
	value := "none"
	if v.ValueMs != nil {
		value = artifact.ShowMs(*v.ValueMs) + " ms"
	}
	var ci [2]*float64
	if v.CIMs != nil {
		ci = *v.CIMs
	}
	side := "holds " + g(v.LimitMs) + " ms (undecided)"
	switch v.Side {
	case "below":
		side = "at or below " + g(v.LimitMs) + " ms (met)"
	case "above":
		side = "above " + g(v.LimitMs) + " ms (missed)"
	}
	return fmt.Sprintf("%s p%s %s %s %s", v.Metric, g(v.Percentile), value, Bounds(v.ValueMs, ci), side)
}

// BudgetText is a run's --budget: "--budget 200 requests" or "--budget
// 5m0s".
func BudgetText(u *artifact.UntilDecided) string {
	if u == nil {
		return ""
	}
	if u.BudgetRequests > 0 {
		return fmt.Sprintf("--budget %d requests", u.BudgetRequests)
	}
	return "--budget " + time.Duration(u.BudgetMs*float64(time.Millisecond)).String()
}

// DecisionLines say how a level run until decided ended, under its
// lines: decided after how many rounds and requests, or settled by a
// failure or over-saturation, or undecided when the budget ran out, with
// one line per SLO its interval left undecided and the requests that
// would decide it (MoreText).
func DecisionLines(set artifact.LoadSettings, l artifact.LoadLevel) []string {
	d := l.Decision
	if d == nil {
		return nil
	}
	spent := fmt.Sprintf("%d round%s, %d requests", d.Rounds, plural(d.Rounds), d.Requests)
	var lines []string
	switch d.Ended {
	case "decided":
		lines = append(lines, "  decided after "+spent)
	case "failed":
		lines = append(lines, "  settled after "+spent+": a request failed, so the level cannot hold whatever more rounds show")
	case "over-saturated":
		lines = append(lines, "  settled after "+spent+": over-saturated")
	case "budget":
		lines = append(lines, "  undecided after "+spent+": "+BudgetText(set.UntilDecided)+" leaves no further round")
	default:
		return nil
	}
	if d.Ended == "decided" {
		return lines // in a search, an SLO still in doubt does not move the level's verdict
	}
	for _, u := range d.Undecided {
		lines = append(lines, fmt.Sprintf("    %s p%s (n=%d): %s", u.Metric, g(u.Percentile), u.N, MoreText(u)))
	}
	return lines
}

// MoreText is what would decide an undecided SLO verdict: "about 340
// more requests would decide it", "at least 52 more requests (for an
// interval that bounds the p95)", or why no count would.
func MoreText(u artifact.UndecidedSLO) string {
	switch {
	case u.MoreRequests == nil:
		return "no number of requests is known to decide it: " + u.Why
	case u.AtLeast:
		return fmt.Sprintf("at least %d more requests would decide it (the fewest that bound the p%s on the limit's side)",
			*u.MoreRequests, g(u.Percentile))
	}
	return fmt.Sprintf("about %d more requests would decide it", *u.MoreRequests)
}

// UndecidedEndLine sums up a run until decided after its table: every
// level decided, or the levels the budget left undecided with their SLOs
// and the requests that would decide them; "" without --until-decided.
func UndecidedEndLine(doc artifact.Load) string {
	if doc.Settings.UntilDecided == nil {
		return ""
	}
	var parts []string
	for _, l := range doc.Levels {
		d := l.Decision
		if d == nil || d.Ended != "budget" {
			continue
		}
		var slos []string
		for _, u := range d.Undecided {
			more := "no count known"
			if u.MoreRequests != nil {
				more = fmt.Sprintf("about %d more requests", *u.MoreRequests)
				if u.AtLeast {
					more = fmt.Sprintf("at least %d more requests", *u.MoreRequests)
				}
			}
			slos = append(slos, fmt.Sprintf("%s p%s (%s)", u.Metric, g(u.Percentile), more))
		}
		parts = append(parts, "at "+g(l.Level)+": "+strings.Join(slos, ", "))
	}
	if len(parts) == 0 {
		return "until decided: every level's verdict decided"
	}
	return fmt.Sprintf("until decided: undecided after %s: %s", BudgetText(doc.Settings.UntilDecided), strings.Join(parts, "; "))
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
