package loadtext

import (
	"fmt"
	"math"
	"strings"

	"ttftlab/internal/artifact"
)

// MergeLines are `ttftlab merge` on the console, as load prints a run:
// the run, its SLOs, the table of levels with their intervals and
// failures, under each level its shards and their start spread, then
// what the merge noted (notes), the capacity and where the artifacts are
// (out, the merged folder).
func MergeLines(doc artifact.Load, notes []string, out string) []string {
	set := doc.Settings
	levels := make([]string, len(set.Levels))
	for i, l := range set.Levels {
		levels[i] = g(l)
	}
	what := set.Mode + " levels " + strings.Join(levels, ",")
	if set.Trace != nil {
		what = TraceText(set.Trace)
	}
	lines := []string{
		fmt.Sprintf("ttftlab merge: run %s, %d shards, server %s, %s", set.RunID, set.Shards, set.Server, what),
		sloLine(set.SLO),
		Header(set.Mode),
	}
	t := &Table{Mode: set.Mode, Ramp: set.Ramp, Scope: "over every shard's requests"}
	for _, l := range doc.Levels {
		lines = append(lines, t.Level(g(l.Level), l)...)
		if l.OverSaturated != nil {
			lines = append(lines, fmt.Sprintf("  over-saturated: %s kept rising in a shard (%s, over that shard's requests), which then "+
				"started no new call: the level does not hold", l.OverSaturated.Metric, ThirdsText(*l.OverSaturated)))
		}
		parts := make([]string, len(l.Shards))
		for i, sh := range l.Shards {
			on, failed := "", ""
			if sh.Host != "" {
				on = " on " + sh.Host
			}
			if sh.Failed > 0 {
				failed = fmt.Sprintf(" (%d failed)", sh.Failed)
			}
			parts[i] = fmt.Sprintf("shard %d%s: %d requests%s", sh.Shard, on, sh.Requests, failed)
		}
		spread := "start spread unknown (a shard has no start on record)"
		if l.StartSpreadMs != nil {
			spread = "start spread " + artifact.ShowMs(*l.StartSpreadMs) + " ms"
		}
		lines = append(lines, "  "+strings.Join(parts, ", ")+"; "+spread)
	}
	lines = append(lines, t.Legend()...)
	for _, n := range notes {
		lines = append(lines, "note: "+n)
	}
	switch {
	case set.Mode == "trace":
		// A replay has no capacity (EndLines).
	case len(doc.Levels) == 0:
		lines = append(lines, "capacity: none: no level was merged")
	default:
		var capacity, above *artifact.LoadLevel
		if c := doc.Capacity; c != nil {
			capacity = levelOf(doc.Levels, c.Level)
			if c.Next != nil {
				above = levelOf(doc.Levels, c.Next.Level)
			}
		}
		lines = append(lines, CapacityLine(set.Mode, doc.Levels, capacity, above, math.NaN()))
	}
	return append(lines, fmt.Sprintf("artifacts in %s: load.json, requests.jsonl, requests.csv, server.jsonl; ttftlab report %s draws it",
		out, out))
}

// InterruptedLines are the lines of the level a stopped run was in (its
// record marked interrupted), as load prints a level, and the legend:
// the table's header and the levels before it are on the console
// already; set is the run's settings (its mode names the level, its
// ramp and speech engines are said as for every level). None for a level
// that was not interrupted.
func InterruptedLines(set artifact.LoadSettings, l artifact.LoadLevel) []string {
	if !l.Interrupted {
		return nil
	}
	t := NewTable(set)
	lines := append(t.Level(g(l.Level), l),
		"  interrupted: the figures are over the requests that ended before the stop; those it canceled count as failed (canceled)")
	return append(lines, t.Legend()...)
}

// sloLine is the run's SLOs as they were typed: "SLO: ttft_ms p95 <= 800ms".
func sloLine(slo []artifact.SLO) string {
	texts := make([]string, len(slo))
	for i, s := range slo {
		texts[i] = s.Text
	}
	return "SLO: " + strings.Join(texts, ", ")
}

// levelOf is the first level record of that level, nil when none is.
func levelOf(levels []artifact.LoadLevel, level float64) *artifact.LoadLevel {
	for i := range levels {
		if levels[i].Level == level {
			return &levels[i]
		}
	}
	return nil
}
