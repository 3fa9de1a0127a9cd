package loadtext

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"ttftlab/internal/artifact"
)

// A run of `ttftlab load` on the console, in order: RunLines, Header,
// then for each level DueLine and LateStartLine (a shard), the level's
// lines (Table.Level), OverSaturatedLine or AllFailedLine where they
// apply, and at the end EndLines.

// RunLines are the run's heading: what it runs ("ttftlab load: server
// ..."), its SLOs, the speech-to-text side when the callers speak (its
// engine, or a user's server), and for a shard of a sharded run which calls it runs
// and when its first level is due.
func RunLines(set artifact.LoadSettings) []string {
	levels := make([]string, len(set.Levels))
	for i, l := range set.Levels {
		levels[i] = num(l)
	}
	levelsText := strings.Join(levels, ",")
	switch {
	case set.SearchMax > 0 && set.Mode == "rate":
		levelsText = fmt.Sprintf("searched from %s up to %d calls/s", g(set.SearchStart), set.SearchMax)
	case set.SearchMax > 0:
		levelsText = fmt.Sprintf("searched in 1..%d", set.SearchMax)
	}
	turns := "s"
	if set.Turns == 1 {
		turns = ""
	}
	lines := []string{
		fmt.Sprintf("ttftlab load: server %s, %s levels %s, per level %d calls of %d turn%s each (%d requests), %d docs, max_tokens %d",
			set.Server, set.Mode, levelsText, set.Calls, set.Turns, turns, set.Calls*set.Turns, set.Docs, set.MaxTokens),
		sloLine(set.SLO),
	}
	if rt := set.Realtime; rt != nil {
		// A speech-to-speech session is a call: its turns are the rows.
		lines[0] = fmt.Sprintf("ttftlab load: realtime sessions with %s, %s levels %s, per level %d sessions of %d turn%s each (%d turns)",
			rt.Server, set.Mode, levelsText, set.Calls, set.Turns, turns, set.Calls*set.Turns)
		if rt.BargeAfterMs != nil {
			lines[0] += fmt.Sprintf(", each turn but the last barged into %s ms after its first audio", g(*rt.BargeAfterMs))
		}
	}
	if tr := set.Trace; tr != nil {
		// A Mooncake line is its own prompt of token ids and gives its
		// answer's length; a call log's turns are asked as a call's are.
		lines[0] = fmt.Sprintf("ttftlab load: server %s, %s", set.Server, TraceText(tr))
		if tr.Format != "mooncake" {
			lines[0] += fmt.Sprintf(", %d docs, max_tokens %d where a turn gives no output length", set.Docs, set.MaxTokens)
		}
	}
	if r := set.Ramp; r != nil {
		kept := "left out of its figures (--ramp-keep keeps them)"
		if r.Keep {
			kept = "kept in its figures (--ramp-keep)"
		}
		lines = append(lines, fmt.Sprintf("ramp: each level grows over its first %s s (%s), the requests due meanwhile marked ramp and %s",
			g(r.DurationMs/1000), r.Shape, kept))
	}
	if set.SteadyStart {
		lines = append(lines, "steady start: the first calls begin at staggered turns, their earlier turns in the prompt as history "+
			"(history_turns in requests.jsonl), as if they had been running")
	}
	if st := set.STT; st != nil {
		engine := "a server of the user's"
		if st.Engine != "" {
			engine = st.Engine
		}
		voice := "by espeak-ng"
		if st.CallerAudio != "" {
			voice = "from the WAV files of " + st.CallerAudio
		}
		lines = append(lines, fmt.Sprintf("callers speak: every turn's question spoken %s to speech-to-text %s at %s (%s), its transcript asked, the answer spoken",
			voice, engine, st.URL, st.API))
	}
	if sh := set.Shard; sh != nil && set.Trace != nil {
		lines = append(lines, fmt.Sprintf("shard %d of %d of run %s on %s: calls %d, %d, ... of the trace's %d, each at its time from %s",
			sh.Index, sh.Count, set.RunID, sh.Host, sh.Index+1, sh.Index+1+sh.Count, set.Calls, UTC(set.StartAtUnixMs)))
	} else if sh != nil {
		lines = append(lines, fmt.Sprintf("shard %d of %d of run %s on %s: calls %d, %d, ... of each level's %d; %d level(s), "+
			"the first due at %s, each %s s then a %s s gap", sh.Index, sh.Count, set.RunID, sh.Host, sh.Index+1, sh.Index+1+sh.Count,
			set.Calls, len(set.Levels), UTC(set.StartAtUnixMs), g(set.DurationMs/1000), g(set.LevelGapMs/1000)))
	}
	return lines
}

// TraceText is a replayed trace as the heading names it: "replaying
// FILE (mooncake): N calls, M requests over S s at x1 speed, the whole
// trace, no cap on calls at once".
func TraceText(tr *artifact.LoadTrace) string {
	window := "the whole trace"
	switch from, to := tr.FromMs, tr.ToMs; {
	case from != nil && to != nil:
		window = fmt.Sprintf("window %s s to %s s of its clock", g(*from/1000), g(*to/1000))
	case from != nil:
		window = fmt.Sprintf("window from %s s of its clock", g(*from/1000))
	case to != nil:
		window = fmt.Sprintf("window up to %s s of its clock", g(*to/1000))
	}
	limit := "no cap on calls at once"
	switch {
	case tr.Max == 1:
		limit = "at most 1 call at once"
	case tr.Max > 1:
		limit = fmt.Sprintf("at most %d calls at once", tr.Max)
	}
	kind := tr.Format
	if tr.SharedShare != nil {
		kind += fmt.Sprintf(", blocks of %d tokens, %.0f%% of input tokens shared", tr.Block, 100**tr.SharedShare)
	}
	return fmt.Sprintf("replaying %s (%s): %d calls, %d requests over %s s at x%s speed, %s, %s", tr.File, kind, tr.Calls, tr.Requests,
		g(math.Round(tr.SpanMs)/1000), g(tr.Speed), window, limit)
}

// UTC is a wall-clock time (ms since the Unix epoch) to the millisecond:
// "2026-03-01 12:00:05.250 UTC".
func UTC(unixMs float64) string {
	sec := math.Floor(unixMs / 1000)
	frac := unixMs - math.Floor(unixMs/1000)*1000
	return time.Unix(int64(sec), 0).UTC().Format("2006-01-02 15:04:05") + fmt.Sprintf(".%03d UTC", int64(math.Floor(frac)))
}

// Label is a level's label in the table: "4", or "4 #2" for a search's
// second round of it.
func Label(level float64, round int) string {
	if round > 1 {
		return g(level) + " #" + itoa(round)
	}
	return g(level)
}

// DueLine is, in a shard, when a level is due on the wall clock, before
// it starts.
func DueLine(level, dueUnixMs float64) string {
	return fmt.Sprintf("level %s due at %s", g(level), UTC(dueUnixMs))
}

// LateStartLine says a shard's level (the k-th, from 0) started lateMs
// after it was due, and why: the first because the shard was ready only
// after --start-at, a later one because the levels before it still
// caught up with that (fromStart: they started late since the first),
// else because the level before ran past --level-gap.
func LateStartLine(lateMs float64, k int, fromStart bool) string {
	why := "the level before ran past --level-gap"
	switch {
	case k == 0:
		why = "the shard was ready only after --start-at"
	case fromStart:
		why = "the levels before it started late, the first because the shard was ready only after --start-at"
	}
	return fmt.Sprintf("  started %.0f ms after it was due: %s; the merge shows the spread", lateMs, why)
}

// AllFailedLine ends a sweep at a level where every request failed.
func AllFailedLine() string {
	return "  every request at this level failed: the sweep stops here"
}

// OverSaturatedLine says an open loop's level stopped starting calls:
// its lateness kept rising (the level's over_saturated trend) once ended
// of its calls had ended.
func OverSaturatedLine(over artifact.LevelTrend, ended, calls int) string {
	return fmt.Sprintf("  over-saturated: %s kept rising (%s); no new call started after %d of %d had ended", over.Metric,
		ThirdsText(over), ended, calls)
}

// EndLines are what follows a run's table: the legend (t, the table the
// levels were printed in), the capacity (a sweep's, or a search's with
// its intervals, also when it left it undecided), a search's path,
// where the artifacts are (out, the run's folder) and, in a shard, how
// to merge the shards.
func EndLines(doc artifact.Load, out string, t *Table) []string {
	set := doc.Settings
	lines := t.Legend()
	var capacity, above *artifact.LoadLevel
	if c := doc.Capacity; c != nil {
		capacity = levelOf(doc.Levels, c.Level)
		if c.Next != nil {
			above = levelOf(doc.Levels, c.Next.Level)
		}
	}
	search := set.SearchMax > 0 && doc.Capacity != nil
	switch {
	case search && doc.Capacity.Decided != nil && !*doc.Capacity.Decided:
		lines = append(lines, undecidedLine(doc))
	case search && capacity != nil:
		line := "capacity: " + g(capacity.Level) + Unit(set.Mode, capacity.Level) + " (" + pooledText(capacity) + ")"
		if above != nil {
			line += "; at " + g(above.Level) + ": " + pooledText(above)
		} else {
			line += "; every level held up to --search-max " + g(float64(set.SearchMax))
		}
		lines = append(lines, line)
	case search && above != nil && above.Pooled != nil:
		lines = append(lines, "capacity: none: already "+g(above.Level)+Unit(set.Mode, above.Level)+" misses: "+pooledText(above))
	case set.Mode == "trace":
		// A replay is the trace's own traffic: its SLO verdicts stand,
		// and there is no level above or below to call a capacity.
	default:
		lowest := math.NaN()
		if len(set.Levels) > 0 {
			lowest = set.Levels[0]
		}
		lines = append(lines, CapacityLine(set.Mode, doc.Levels, capacity, above, lowest))
	}
	if search {
		steps := make([]string, len(doc.Capacity.Search))
		for i, s := range doc.Capacity.Search {
			verdict := "missed"
			switch {
			case s.OverSaturated:
				verdict = "over-saturated"
			case s.Met:
				verdict = "held"
			}
			steps[i] = g(s.Level) + " " + verdict
			if s.Round > 1 {
				steps[i] += fmt.Sprintf(" (round %d, %d requests)", s.Round, s.Requests)
			}
		}
		lines = append(lines, "search: "+strings.Join(steps, ", "))
	}
	if line := UndecidedEndLine(doc); line != "" {
		lines = append(lines, line)
	}
	server := ""
	if (set.Shard == nil || set.Shard.Index == 0) && set.Realtime == nil {
		// A load of speech-to-speech sessions has no LLM server to watch.
		server = ", server.jsonl"
	}
	lines = append(lines, fmt.Sprintf("artifacts in %s: load.json, requests.jsonl, requests.csv%s", out, server))
	if sh := set.Shard; sh != nil {
		parent := "."
		if i := strings.LastIndexByte(out, '/'); i >= 0 && i < len(out)-1 {
			parent = out[:i]
		}
		lines = append(lines, fmt.Sprintf("shard %d of %d: these figures are over this shard's calls alone; once every shard has ended, "+
			"`ttftlab merge %s --out %s/merged` gives the run's", sh.Index, sh.Count, parent, parent))
	}
	return lines
}

// undecidedLine is a search's capacity left undecided: the two levels in
// question with their pooled intervals, or the largest level when every
// level held up to it.
func undecidedLine(doc artifact.Load) string {
	set, between := doc.Settings, doc.Capacity.Between
	var parts []string
	for _, l := range between {
		// The last record of the level, as a search keeps one a level.
		var row *artifact.LoadLevel
		for i := range doc.Levels {
			if doc.Levels[i].Level == l {
				row = &doc.Levels[i]
			}
		}
		if row != nil && row.Pooled != nil {
			parts = append(parts, "at "+g(l)+": "+pooledText(row))
		}
	}
	limits := make([]string, len(set.SLO))
	for i, s := range set.SLO {
		limits[i] = g(s.LimitMs) + " ms"
	}
	var lo float64
	if len(between) > 0 {
		lo = between[0]
	}
	budget := fmt.Sprintf("--search-budget %d calls", set.SearchBudget)
	if set.UntilDecided != nil {
		budget = BudgetText(set.UntilDecided)
	}
	if len(between) > 1 {
		hi := between[1]
		return fmt.Sprintf("capacity between %s and %s%s, undecided: %s (limit %s; an interval still holds it after %s)",
			g(lo), g(hi), Unit(set.Mode, hi), strings.Join(parts, "; "), strings.Join(limits, ", "), budget)
	}
	// Every level held up to --search-max, whose own interval still holds
	// the limit: nothing above it was tried.
	return fmt.Sprintf("capacity undecided at %s%s, the largest level (--search-max): %s (limit %s; an interval still holds it after "+
		"%s); nothing above it was tried: give a higher --search-max", g(lo), Unit(set.Mode, lo),
		strings.Join(parts, "; "), strings.Join(limits, ", "), budget)
}

// pooledText is a level's SLOs over every round a search ran of it:
// "ttft_ms p50 6.0 ms [5.0, 7.0] (n=40)", the value "none" when the
// percentile falls on a late request; then whether it was over-saturated
// and how many requests failed.
func pooledText(l *artifact.LoadLevel) string {
	pooled := l.Pooled
	if pooled == nil {
		pooled = &artifact.LevelPooled{}
	}
	var parts []string
	for _, e := range pooled.SLO {
		v := "none"
		if e.ValueMs != nil {
			v = artifact.ShowMs(*e.ValueMs) + " ms"
		}
		parts = append(parts, fmt.Sprintf("%s p%s %s %s (n=%d)", e.Metric, g(e.Percentile), v, Bounds(e.ValueMs, e.CIMs), e.N))
	}
	if l.OverSaturated != nil {
		parts = append(parts, "over-saturated")
	}
	if pooled.Failed > 0 {
		parts = append(parts, fmt.Sprintf("%d failed", pooled.Failed))
	}
	return strings.Join(parts, ", ")
}

// num is a number as Lua's tostring writes it ("%.14g"): how load.lua
// listed the levels.
func num(x float64) string {
	if x > -1e14 && x < 1e14 && x == math.Trunc(x) {
		return strconv.FormatInt(int64(x), 10)
	}
	return strconv.FormatFloat(x, 'g', 14, 64)
}
