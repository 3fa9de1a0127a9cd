package report

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"ttftlab/internal/artifact"
	"ttftlab/internal/rundir"
)

func loadModel(l *rundir.Load) string {
	name, synthetic := "", false
	for _, f := range l.Fields {
		switch f.Path {
		case "model.name":
			name, _ = f.Value.(string)
		case "model.synthetic":
			synthetic, _ = f.Value.(bool)
		}
	}
	if name != "" && synthetic {
		name += " (synthetic)"
	}
	return name
}

// loadSections are a load run's sections: the summary, the percentiles
// by level against the SLOs, the requests' timelines and the server's
// series.
func loadSections(l *rundir.Load, version string) []section {
	var out []section
	if len(l.Levels) > 0 {
		p := percentileSection(l)
		p.Warnings = behindWarnings(l)
		out = append(out, p)
	}
	if s := traceSection(l); s != nil {
		out = append(out, *s)
	}
	if s := searchSection(l); s != nil {
		out = append(out, *s)
	}
	if len(l.Server) > 0 {
		out = append(out, sectionOf("server", "The server under load",
			"The server's own state over the whole run, sampled about every 250 ms: slots busy and requests waiting for a slot, each level a shaded band.",
			func() (figure, error) { return serverFigure(l) }))
	}
	if turns := turnSection(l); turns != nil {
		out = append(out, *turns)
	}
	if len(l.Requests) > 0 {
		out = append(out, requestsSection(l))
	}
	return append(out, loadSummary(l, version))
}

func loadSummary(l *rundir.Load, version string) section {
	s := section{ID: "summary", Title: "Levels and run details"}
	s.Intro = capacityText(l) + rampText(l) + steadyStartText(l)
	if sh := l.Settings.Shard; sh != nil {
		s.Intro = fmt.Sprintf("Shard %d of %d of run %s, on %s: its figures are over its own calls alone; `ttftlab merge` of the %d shard folders gives the run's. ",
			sh.Index, sh.Count, l.Settings.RunID, sh.Host, sh.Count) + s.Intro
	}
	s.Tables = append(s.Tables, levelsTable(l))
	if f := failuresTable(l); f != nil {
		s.Tables = append(s.Tables, *f)
	}
	if len(l.Levels) > 0 && len(l.Levels[0].SLO) > 0 {
		s.Tables = append(s.Tables, sloTable(l))
	}
	if t := shardsTable(l); t != nil {
		s.Tables = append(s.Tables, *t)
	}
	if t := lateTable(l); t != nil {
		s.Tables = append(s.Tables, *t)
	}
	if t := steadyTable(l); t != nil {
		s.Tables = append(s.Tables, *t)
	}
	if t := clientTable(l); t != nil {
		s.Tables = append(s.Tables, *t)
	}
	s.Tables = append(s.Tables, runTable(l.Dir, l.Finished, version),
		fieldTable("load.json (settings, model, server, capacity)", l.Fields).folded(true))
	if len(l.Problems) > 0 {
		s.Tables = append(s.Tables, problemsTable(l.Problems))
	}
	return s
}

// capacityText says the run's answer in one sentence.
func capacityText(l *rundir.Load) string {
	var slos []string
	for _, o := range l.Settings.SLO {
		slos = append(slos, fmt.Sprintf("%s p%s ≤ %s ms", o.Metric, num(o.Percentile), num(o.LimitMs)))
	}
	goal := "no SLO was set"
	if len(slos) > 0 {
		goal = "SLO: " + strings.Join(slos, " and ")
	}
	if l.Settings.Mode == "trace" {
		return fmt.Sprintf("A replayed trace: one level, the trace's own arrivals at its speed, with SLO verdicts but no capacity (%s).", goal)
	}
	v := capacityOf(l)
	switch v.Kind {
	case capUnknown:
		return fmt.Sprintf("Capacity: unknown: the run was stopped in %s, before any level ended (%s); its figures are over the requests that ended before the stop.", v.Stopped, goal)
	case capNone:
		if v.Stopped != "" {
			return fmt.Sprintf("Capacity: no level that ended met every objective (%s); the run was stopped in %s.", goal, v.Stopped)
		}
		return fmt.Sprintf("Capacity: no level met every objective (%s).", goal)
	case capBetween:
		return fmt.Sprintf("Capacity: between %s and %s, undecided (%s): an interval still held the limit when %s was spent.",
			l.LevelName(v.Lo), l.LevelName(v.Hi), goal, spentBudget(l))
	case capAtLeast:
		return fmt.Sprintf("Capacity: at least %s (%s): %s.", l.LevelName(l.Capacity.Level), goal, lowerBound(l))
	}
	if v.Stopped != "" {
		return fmt.Sprintf("Capacity: %s, the highest level that ended and met every objective (%s); the run was stopped in %s.",
			l.LevelName(l.Capacity.Level), goal, v.Stopped)
	}
	return fmt.Sprintf("Capacity: %s, the highest level that met every objective (%s); %s did not.",
		l.LevelName(l.Capacity.Level), goal, l.LevelName(l.Capacity.Next.Level))
}

// levelsTable is one row per level: counts, rates, goodput, SLO.
func levelsTable(l *rundir.Load) table {
	t := table{Caption: "levels (warm-up requests left out): a call is one caller, a request one turn of a call",
		Head: []string{"level", "calls", "requests", "ok", "failed", "requests/s", "tokens/s", "goodput", "SLO met"}}
	for _, lv := range l.Levels {
		if lv.Pooled != nil {
			t.Caption += "; with the search, a level's figures are its first round's, its SLO verdict is over every round of it"
			break
		}
	}
	for _, lv := range l.Levels {
		s := lv.Summary
		met, verdict := sloVerdict(lv)
		class := ""
		if !met {
			class = "bad"
		}
		t.addClass(class, num(lv.Level), strconv.Itoa(lv.Summary.Calls), strconv.Itoa(s.Requests), strconv.Itoa(s.OK), failedText(s.ManySummary),
			numP(s.RequestsPerS), numP(s.TokensPerS), numP(lv.Goodput), verdict)
	}
	t.numericFrom(1)
	delete(t.Numeric, 4)
	return t
}

// clientTable is what each level cost the machine that ran the client
// (summary.client), nil when no level says: the process's share of the
// machine, and the reading threads' CPU and wait for a CPU. While those
// threads wait, chunks of a stream that come are read together and share
// the later one's stamp; the console warns under a level where that may
// have moved the figures.
func clientTable(l *rundir.Load) *table {
	t := table{Caption: "the client's own machine by level: the ttftlab process's CPU and its share of the machine, and the threads that read the sockets " +
		"and take the stamps: their CPU and how long they waited, runnable, for a CPU (in all, and a time on average); chunks that came while they waited " +
		"share a read and the later one's stamp",
		Head: []string{"level", "cores", "CPU ms", "share of the machine", "reader CPU ms", "reader wait ms", "wait a time ms"}}
	for _, lv := range l.Levels {
		c := lv.Summary.Client
		if c == nil {
			continue
		}
		wait, each := "–", "–"
		if c.ReaderWaitMs != nil {
			wait = num(*c.ReaderWaitMs)
			if c.ReaderRuns != nil && *c.ReaderRuns > 0 {
				each = num(*c.ReaderWaitMs / *c.ReaderRuns)
			}
		}
		t.add(num(lv.Level), strconv.Itoa(c.Cores), num(c.CPUMs), fmt.Sprintf("%.0f %%", c.Busy*100), num(c.ReaderCPUMs), wait, each)
	}
	if len(t.Rows) == 0 {
		return nil
	}
	t.numericFrom(0)
	return &t
}

// sloVerdict is a level's "SLO met" cell: with a capacity search, the
// verdict over every round the search ran of it (the one the capacity
// rests on), its rounds and whether their intervals decided it; else
// its one run's. A level's other columns are its first round's.
func sloVerdict(lv artifact.LoadLevel) (met bool, text string) {
	p := lv.Pooled
	if p == nil {
		return lv.SLOMet, value(lv.SLOMet)
	}
	text = value(p.Met)
	switch {
	case p.Rounds > 1 && !p.Decided:
		text += fmt.Sprintf(" (%d rounds, undecided)", p.Rounds)
	case p.Rounds > 1:
		text += fmt.Sprintf(" (%d rounds)", p.Rounds)
	case !p.Decided:
		text += " (undecided)"
	}
	return p.Met, text
}

// shardsTable is, for a merge of a sharded run (ttftlab merge), each
// level's shards: when each began on its wall clock, its requests and
// failures, and the spread of the starts; nil for another run.
func shardsTable(l *rundir.Load) *table {
	if l.Settings.Shards == 0 {
		return nil
	}
	t := table{Caption: fmt.Sprintf("the %d shards of run %s, merged: each level's rows are every shard's, its figures recomputed over them; "+
		"the start spread is the latest shard's start less the earliest's, each by its own clock", l.Settings.Shards, l.Settings.RunID),
		Head: []string{"level", "shard", "host", "began (UTC)", "requests", "failed", "start spread ms"}, Numeric: map[int]bool{0: true, 1: true, 4: true, 5: true, 6: true}}
	for _, lv := range l.Levels {
		for i, sh := range lv.Shards {
			began, spread := "unknown", ""
			if sh.StartedUnixMs != nil {
				began = time.UnixMicro(int64(*sh.StartedUnixMs * 1000)).UTC().Format("15:04:05.000")
			}
			if i == 0 && lv.StartSpreadMs != nil {
				spread = num(*lv.StartSpreadMs)
			}
			t.add(num(lv.Level), strconv.Itoa(sh.Shard), sh.Host, began, strconv.Itoa(sh.Requests), strconv.Itoa(sh.Failed), spread)
		}
	}
	return &t
}

// failedText is the count of failed requests with their kinds.
func failedText(s artifact.ManySummary) string {
	if s.Failed == 0 {
		return "0"
	}
	var parts []string
	for _, f := range s.Failures {
		parts = append(parts, fmt.Sprintf("%s: %d", f.Label(), f.N))
	}
	return fmt.Sprintf("%d (%s)", s.Failed, strings.Join(parts, ", "))
}

// failuresTable lists each level's failure kinds with a message of one
// of its requests; nil when nothing failed.
func failuresTable(l *rundir.Load) *table {
	t := table{Caption: "failures by kind, with the message of one request (requests.jsonl has every one)",
		Head: []string{"level", "kind", "requests", "example"}, Numeric: map[int]bool{0: true, 2: true}}
	for _, lv := range l.Levels {
		for _, f := range lv.Summary.Failures {
			ex := f.Example
			if ex == "" {
				ex = "(not recorded by this run)"
			}
			t.addClass("bad", num(lv.Level), f.Label(), strconv.Itoa(f.N), ex)
		}
	}
	if len(t.Rows) == 0 {
		return nil
	}
	return &t
}

// sloTable is each level's SLO verdicts: the percentile over every
// request of the level, a failed request (or one without the figure)
// counting as infinitely late.
func sloTable(l *rundir.Load) table {
	t := table{Caption: "SLOs by level: the percentile over every request, a failed one (or one without the figure) infinitely late",
		Head: []string{"level", "SLO", "value (ms)", "requests", "failed", "without the figure", "met"}}
	for _, lv := range l.Levels {
		for _, v := range lv.SLO {
			val := numP(v.ValueMs)
			if v.ValueMs == nil {
				val = "none: falls on a failed request"
				if v.Failed == 0 {
					val = "none: falls on a request without it"
				}
			}
			class := ""
			if !v.Met {
				class = "bad"
			}
			t.addClass(class, num(lv.Level), fmt.Sprintf("%s p%s ≤ %s ms", v.Metric, num(v.Percentile), num(v.LimitMs)), val,
				strconv.Itoa(v.N), strconv.Itoa(v.Failed), strconv.Itoa(v.Missing), value(v.Met))
		}
	}
	t.Numeric = map[int]bool{0: true, 2: true, 3: true, 4: true, 5: true}
	return t
}

// rampText says, where the settings are told, how each level ramped up
// (settings.ramp) and how many of its requests were due in the ramp
// (summary.ramp), left out of its figures or kept; "" without a ramp.
func rampText(l *rundir.Load) string {
	r := l.Settings.Ramp
	if r == nil {
		return ""
	}
	var per []string
	for _, lv := range l.Levels {
		per = append(per, fmt.Sprintf("%s: %d", num(lv.Level), lv.Summary.Ramp))
	}
	fate := "left out of the level's figures as warm-up is"
	if r.Keep {
		fate = "kept in the level's figures (--ramp-keep)"
	}
	return fmt.Sprintf(" Each level ramped up over its first %s ms (%s, --ramp): the requests due in the ramp were %s (%s).",
		num(r.DurationMs), r.Shape, fate, strings.Join(per, ", "))
}

// steadyStartText says, where the settings are told, that the calls
// started in steady state (settings.steady_start), and how many requests
// carried earlier turns as history; "" otherwise.
func steadyStartText(l *rundir.Load) string {
	if !l.Settings.SteadyStart {
		return ""
	}
	n := 0
	for _, r := range l.Requests {
		if r.HistoryTurns > 0 {
			n++
		}
	}
	return fmt.Sprintf(" Calls started in steady state (--steady-start): at staggered turns, their earlier turns in the prompt as history, as if they had been running (%d requests began a call so).", n)
}
