package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"ttftlab/internal/artifact"
	"ttftlab/internal/figures"
	"ttftlab/internal/interval"
	"ttftlab/internal/rundir"
)

// headline is one figure of the strip that opens a page: what it is in
// words, its value with its unit, and what it is measured over.
type headline struct {
	Label, Value, Note string
	// Class is "bad" for a figure that failed its objective.
	Class string
}

func hl(label, value, note string) headline { return headline{Label: label, Value: value, Note: note} }

// ms writes a time for a reader: a tenth of a millisecond below a
// second, hundredths of a second above.
func ms(v float64) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return "–"
	case math.Abs(v) >= 1000:
		return fmt.Sprintf("%.2f s", v/1000)
	case math.Abs(v) >= 100:
		return fmt.Sprintf("%.0f ms", v)
	case math.Abs(v) >= 10:
		return fmt.Sprintf("%.1f ms", v)
	}
	return fmt.Sprintf("%.2f ms", v)
}

// labHeadline: the figures a voice engineer acts on, from the lab's files;
// a step the run did not write is left out.
func labHeadline(l *rundir.Lab) []headline {
	var out []headline
	if t := l.TTFT; t != nil && len(t.Runs) > 0 {
		var vs []float64
		for _, r := range t.Runs {
			vs = append(vs, r.TTFTMs)
		}
		f := figures.FigureOf(figures.Sample{Name: "ttft_ms", Unit: "ms"}, [][]float64{vs})
		mean := ""
		if f.Mean != nil && f.MeanCI != nil {
			mean = fmt.Sprintf("; mean %s [%s, %s]", ms(*f.Mean), ms(f.MeanCI[0]), ms(f.MeanCI[1]))
		}
		median := "median"
		if f.P50CI == nil {
			median = "median (" + tooFew + " for its interval)"
		}
		out = append(out, hl("Time to first token", ms(t.TTFTP50),
			fmt.Sprintf("%s of %d runs, prompt cache off%s; the whole answer %s", median, len(t.Runs), mean, ms(t.TotalP50))))
	}
	if s := l.Sentence; s != nil && s.FirstSentenceMs > 0 {
		var first, ttft, total []float64
		for _, r := range s.Repetitions() {
			first, ttft, total = append(first, r.FirstSentenceMs), append(ttft, r.TTFTMs), append(total, r.TotalMs)
		}
		out = append(out, hl("First sentence ready to speak", ms(medianOf(first)),
			fmt.Sprintf("after the request; first token at %s, answer ended at %s%s", ms(medianOf(ttft)), ms(medianOf(total)),
				ofRuns("medians", len(first)))))
	}
	if c := l.Cache; c != nil && c.First.TTFTMs > 0 {
		first, second, over := cacheMedians(c)
		out = append(out, hl("The prompt cache saves", ms(first-second)+" of TTFT",
			fmt.Sprintf("%s cold, %s with %s of %s prompt tokens reused%s", ms(first), ms(second),
				num(c.Second.Cached()), num(c.Second.Cached()+c.Second.PromptN), over)))
	}
	if c := l.Cancel; c != nil {
		h := headline{Label: "Slot idle after a hang-up"}
		var idle []float64
		for _, r := range c.Repetitions() {
			if r.SlotIdleAfterMs != nil {
				idle = append(idle, *r.SlotIdleAfterMs)
			}
		}
		if len(idle) > 0 {
			h.Value = ms(medianOf(idle))
			h.Note = "after the client closed the stream, as " + evidenceText(c.Evidence) + " showed" + ofRuns("median", len(idle))
		} else {
			h.Value, h.Note = "not measured", "the server shows no slot state: "+c.NoEvidence
		}
		out = append(out, h)
	}
	if b := l.Bargein; b != nil {
		r := b.Resumed
		var resumed, cold []float64
		for _, x := range b.Repetitions() {
			resumed, cold = append(resumed, x.Resumed.TTFTMs), append(cold, x.Cold.TTFTMs)
		}
		out = append(out, hl("A barge-in keeps", fmt.Sprintf("%s of %s tokens", num(r.Cached()), num(r.Cached()+r.PromptN)),
			fmt.Sprintf("of the next turn's prompt in the cache: its TTFT %s, against %s cold%s", ms(medianOf(resumed)), ms(medianOf(cold)),
				ofRuns("medians", len(resumed)))))
	}
	return out
}

// medianOf is the median of a step's repetitions, as report.json takes it.
func medianOf(xs []float64) float64 {
	return interval.PercentileOf(slices.Sorted(slices.Values(xs)), 50)
}

// ofRuns says over how many repetitions a headline's median (or medians,
// the word) was taken; nothing for one.
func ofRuns(word string, n int) string {
	if n < 2 {
		return ""
	}
	return fmt.Sprintf(" (%s of %d runs)", word, n)
}

func evidenceText(e string) string {
	switch e {
	case "slots":
		return "/slots"
	case "metrics":
		return "the running-requests gauge"
	case "":
		return "the server"
	}
	return e
}

// loadHeadline: the capacity found, each SLO's figure at every level,
// and the failures.
func loadHeadline(l *rundir.Load) []headline {
	var out []headline
	c := headline{Label: "Capacity"}
	v := capacityOf(l)
	switch {
	case l.Settings.Mode == "trace":
		c = traceHeadline(l)
	case len(l.Settings.SLO) == 0:
		c.Value, c.Note = "no SLO set", "pass --slo to find the highest level that meets it"
	case v.Kind == capUnknown:
		c.Value, c.Note, c.Class = "unknown", "the run was stopped in "+v.Stopped+", before any level ended", "mixed"
	case v.Kind == capNone && v.Stopped != "":
		c.Value, c.Note, c.Class = "none", "no level that ended met every SLO", "bad"
	case v.Kind == capNone:
		c.Value, c.Note, c.Class = "none", "no level met every SLO", "bad"
	case v.Kind == capAtLeast:
		c.Value, c.Note = "at least "+l.LevelName(l.Capacity.Level), lowerBound(l)
	case v.Kind == capBetween:
		c.Value, c.Note, c.Class = "between "+l.LevelName(v.Lo)+" and "+l.LevelName(v.Hi), "undecided: an interval still held the limit when "+spentBudget(l)+" was spent", "mixed"
	default:
		c.Value = l.LevelName(l.Capacity.Level)
		c.Note = "the highest level that met every SLO"
		if l.Capacity.Next != nil {
			c.Note += "; " + l.LevelName(l.Capacity.Next.Level) + " did not"
		}
	}
	if v.Stopped != "" && v.Ended > 0 {
		c.Note += "; the run was stopped in " + v.Stopped
	}
	out = append(out, c)
	for _, o := range l.Settings.SLO {
		var parts []string
		met, thin, noCI := true, false, false
		for _, lv := range l.Levels {
			for _, v := range lv.SLO {
				if v.Metric != o.Metric || v.Percentile != o.Percentile {
					continue
				}
				val := "failed"
				if v.ValueMs != nil {
					val = ms(*v.ValueMs)
					// Starred as the console stars it: too few requests
					// for this percentile (the largest value or near it),
					// or given but not bounded (the level's table says too
					// few samples and its chart draws no point).
					if lv.Summary.Unsupported(v) {
						val += "*"
						if artifact.ThinTail(o.Percentile, v.N) {
							thin = true
						} else {
							noCI = true
						}
					}
				}
				mark := "✓"
				if !v.Met {
					mark, met = "✗", false
				}
				if lv.Interrupted {
					mark = "(interrupted)"
				}
				parts = append(parts, fmt.Sprintf("%s: %s %s", num(lv.Level), val, mark))
			}
		}
		h := headline{Label: fmt.Sprintf("%s p%s by level (SLO ≤ %s)", metricWords(o.Metric), num(o.Percentile), ms(o.LimitMs)),
			Value: strings.Join(parts, " · "), Note: "at each " + levelWord(l) + "; ✗ over the limit or on a failed request"}
		if thin {
			h.Note += fmt.Sprintf("; * fewer requests than a p%s needs (%d): the largest value or near it, not the tail it names",
				num(o.Percentile), artifact.TailNeeds(o.Percentile))
		}
		if noCI {
			h.Note += "; * too few samples to bound it (its table gives no 95 % interval)"
		}
		if !met {
			h.Class = "mixed"
		}
		out = append(out, h)
	}
	req, failed := 0, 0
	kinds := map[string]int{}
	var order []string
	for _, lv := range l.Levels {
		req += lv.Summary.Requests
		failed += lv.Summary.Failed
		for _, f := range lv.Summary.Failures {
			if kinds[f.Label()] == 0 {
				order = append(order, f.Label())
			}
			kinds[f.Label()] += f.N
		}
	}
	e := headline{Label: "Errors", Value: fmt.Sprintf("%d of %d requests", failed, req)}
	if failed > 0 {
		e.Class = "bad"
		var parts []string
		for _, k := range order {
			parts = append(parts, fmt.Sprintf("%s: %d", k, kinds[k]))
		}
		e.Note = strings.Join(parts, ", ")
	} else {
		e.Note = "every request answered (warm-up left out)"
	}
	out = append(out, e)
	return out
}

// stoppedIn names the level a stopped run (Ctrl-C) was in, "" when the
// run was not stopped, with how many levels ended before it.
func stoppedIn(l *rundir.Load) (level string, ended int) {
	for _, lv := range l.Levels {
		if lv.Interrupted {
			level = l.LevelName(lv.Level)
		} else {
			ended++
		}
	}
	return level, ended
}

// capacityKind is what a run found of its capacity.
type capacityKind int

const (
	// capUnknown: the run was stopped before any level ended.
	capUnknown capacityKind = iota
	// capNone: no level (that ended, in a stopped run) met every SLO.
	capNone
	// capFound: the highest level that met every SLO (that ended, in a
	// stopped run); the capacity's next level, if any, did not.
	capFound
	// capBetween: a search left undecided between two levels (an
	// interval still held the limit when --search-budget was spent).
	capBetween
	// capAtLeast: a lower bound, no level above it having missed (none
	// tried, or a run not stopped whose every level held).
	capAtLeast
)

// capacityVerdict is the one decision of what a run's capacity is, which
// the tile, the page's opening sentence and the charts' rule put in
// words: its kind, the level a stopped run was in ("" when not stopped)
// with how many levels ended before it, and for capBetween the two
// levels in question.
type capacityVerdict struct {
	Kind    capacityKind
	Stopped string
	Ended   int
	Lo, Hi  float64
}

func capacityOf(l *rundir.Load) capacityVerdict {
	v := capacityVerdict{}
	v.Stopped, v.Ended = stoppedIn(l)
	c := l.Capacity
	switch {
	case c == nil && v.Stopped != "" && v.Ended == 0:
		v.Kind = capUnknown
	case c == nil:
		v.Kind = capNone
	case v.Stopped != "":
		v.Kind = capFound
	case c.Decided != nil && !*c.Decided && len(c.Between) == 2:
		v.Kind, v.Lo, v.Hi = capBetween, c.Between[0], c.Between[1]
	case c.Next != nil:
		v.Kind = capFound
	default:
		v.Kind = capAtLeast
	}
	return v
}

// lowerBound says why a capacity with no level above it that missed is
// a lower bound, as the console says it: every level held (try higher
// ones, or a higher --search-max), or the highest held though some below
// it did not.
func lowerBound(l *rundir.Load) string {
	if c := l.Capacity; l.Settings.SearchMax > 0 && c.Decided != nil && !*c.Decided {
		return fmt.Sprintf("undecided at --search-max %s, the highest level tried: give a higher --search-max to find the capacity", num(float64(l.Settings.SearchMax)))
	}
	if l.Settings.SearchMax > 0 {
		return fmt.Sprintf("every level held up to --search-max %s, the highest tried: give a higher --search-max to find the capacity", num(float64(l.Settings.SearchMax)))
	}
	var missed []string
	for _, lv := range l.Levels {
		if lv.Level < l.Capacity.Level && !lv.SLOMet {
			missed = append(missed, num(lv.Level))
		}
	}
	if len(missed) > 0 {
		return fmt.Sprintf("the highest level measured met every SLO, but %s below it did not; no level above it was tried: rerun, or try higher ones",
			strings.Join(missed, ", "))
	}
	return "every level measured met every SLO; no level above it was tried: try higher ones"
}

func metricWords(m string) string {
	if t := metricTitle[m]; t != "" {
		return t
	}
	return m
}

func levelWord(l *rundir.Load) string {
	switch l.Settings.Mode {
	case "rate":
		return "rate"
	case "trace":
		return "trace speed"
	}
	return "concurrency"
}

// spentBudget names the budget a search spends: --budget in a run until
// decided, else --search-budget.
func spentBudget(l *rundir.Load) string {
	if l.Settings.UntilDecided != nil {
		return "--budget"
	}
	return "--search-budget"
}

// cacheMedians are the medians over the cache step's runs of the cold and
// the cached TTFT, and what they are medians of ("" for one run).
func cacheMedians(c *rundir.Cache) (first, second float64, over string) {
	var fs, ss []float64
	for _, r := range c.Repetitions() {
		fs, ss = append(fs, r.First.TTFTMs), append(ss, r.Second.TTFTMs)
	}
	return medianOf(fs), medianOf(ss), ofRuns("medians", len(fs))
}
