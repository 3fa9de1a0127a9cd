package check

import (
	"fmt"
	"reflect"
	"strings"

	"ttftlab/internal/artifact"
)

// The cache and prefix steps repeat their measurement (runs, repeat): a
// rule about one measurement holds for every repetition and names the
// one that breaks it; a folder from before the steps repeated has one
// measurement, its top level.

// everyRep runs one repetition's rule on each of n and lists what fails,
// each prefixed "repetition K: " when the file has runs.
func everyRep(n int, hasRuns bool, rule func(i int) string) []string {
	var bad []string
	for i := range n {
		msg := rule(i)
		if msg == "" {
			continue
		}
		if hasRuns {
			msg = fmt.Sprintf("repetition %d: %s", i+1, msg)
		}
		bad = append(bad, msg)
	}
	return bad
}

// failEvery fails with what everyRep found and the hint.
func failEvery(bad []string, hint string) error {
	if hint == "" {
		return fmt.Errorf("%s", strings.Join(bad, "; "))
	}
	return fmt.Errorf("%s; %s", strings.Join(bad, "; "), hint)
}

// passEvery is a pass line: the first repetition's values, and that the
// others hold too.
func (l *lab) passEvery(n int, hasRuns bool, format string, args ...any) error {
	if hasRuns && n > 1 {
		return l.pass(format+"; and in each of %d runs", append(args, n)...)
	}
	return l.pass(format, args...)
}

// checkRuns: a file that records repeat holds that many runs, the first
// of them at its top level; one without either is one measurement.
func (l *lab) checkRuns(file string, repeat, runs int, topIsFirst bool) error {
	switch {
	case repeat == 0 && runs == 0:
		return l.pass("one measurement, at the top level (written before the step repeated)")
	case runs != repeat:
		return fmt.Errorf("%s has %d runs, want %d (its repeat)", file, runs, repeat)
	case !topIsFirst:
		return fmt.Errorf("%s's top level is not its first run: it holds repetition 1, for readers of one measurement", file)
	}
	return l.pass("%d runs", runs)
}

func checkCacheRuns(l *lab) error {
	c := l.cache
	top := artifact.CacheRun{First: c.First, Second: c.Second, ChangedPrefix: c.ChangedPrefix}
	return l.checkRuns("cache.json", c.Repeat, len(c.Runs), len(c.Runs) == 0 || reflect.DeepEqual(top, c.Runs[0]))
}

func checkCacheSecondReuses(l *lab) error {
	reps := l.cache.Repetitions()
	bad := everyRep(len(reps), l.cache.Runs != nil, func(i int) string {
		f, s := reps[i].First.PromptN, reps[i].Second.PromptN
		if s*10 <= f {
			return ""
		}
		return fmt.Sprintf("second.prompt_n %s is above 10%% of first.prompt_n %s", num(s), num(f))
	})
	if len(bad) > 0 {
		return failEvery(bad, "the repeated prompt should come from the cache (cache_prompt true, same slot, --cache-ram 0)")
	}
	return l.passEvery(len(reps), l.cache.Runs != nil, "prompt_n %s, then %s", num(reps[0].First.PromptN), num(reps[0].Second.PromptN))
}

func checkCacheSecondFaster(l *lab) error {
	reps := l.cache.Repetitions()
	bad := everyRep(len(reps), l.cache.Runs != nil, func(i int) string {
		f, s := reps[i].First.TTFTMs, reps[i].Second.TTFTMs
		if s < f {
			return ""
		}
		return fmt.Sprintf("second.ttft_ms %s is not below first.ttft_ms %s", num(s), num(f))
	})
	if len(bad) > 0 {
		return failEvery(bad, "")
	}
	return l.passEvery(len(reps), l.cache.Runs != nil, "ttft %s ms, then %s ms", num(reps[0].First.TTFTMs), num(reps[0].Second.TTFTMs))
}

func checkCacheSecondCached(l *lab) error {
	reps := l.cache.Repetitions()
	for _, r := range reps {
		if r.Second.CacheN == nil {
			return skip("cache.json second has no cache_n")
		}
	}
	bad := everyRep(len(reps), l.cache.Runs != nil, func(i int) string {
		if c := *reps[i].Second.CacheN; !(c > 0) {
			return fmt.Sprintf("second.cache_n is %s, want > 0", num(c))
		}
		return ""
	})
	if len(bad) > 0 {
		return failEvery(bad, "the server reused nothing")
	}
	return l.passEvery(len(reps), l.cache.Runs != nil, "cache_n %s", num(*reps[0].Second.CacheN))
}

func checkCacheChangedRecomputes(l *lab) error {
	reps := l.cache.Repetitions()
	bad := everyRep(len(reps), l.cache.Runs != nil, func(i int) string {
		f, c := reps[i].First.PromptN, reps[i].ChangedPrefix.PromptN
		if c*10 >= f*9 {
			return ""
		}
		return fmt.Sprintf("changed_prefix.prompt_n %s is below 90%% of first.prompt_n %s", num(c), num(f))
	})
	if len(bad) > 0 {
		return failEvery(bad, "a changed first line should force nearly the whole prompt to be evaluated again")
	}
	return l.passEvery(len(reps), l.cache.Runs != nil, "prompt_n %s of %s", num(reps[0].ChangedPrefix.PromptN), num(reps[0].First.PromptN))
}

func checkPrefixRuns(l *lab) error {
	p := l.prefix
	top := artifact.PrefixRun{ChangingLine: p.ChangingLine, Positions: p.Positions}
	return l.checkRuns("prefix.json", p.Repeat, len(p.Runs), len(p.Runs) == 0 || reflect.DeepEqual(top, p.Runs[0]))
}

func checkPrefixGrowsLater(l *lab) error {
	reps := l.prefix.Repetitions()
	bad := everyRep(len(reps), l.prefix.Runs != nil, func(i int) string {
		rows := reps[i].Positions
		for j := 1; j < len(rows); j++ {
			if rows[j].Tokens().Cached() < rows[j-1].Tokens().Cached() {
				return fmt.Sprintf("cache_n %s with the line %s is below %s with it %s",
					num(rows[j].Tokens().Cached()), rows[j].Position, num(rows[j-1].Tokens().Cached()), rows[j-1].Position)
			}
		}
		first, last := rows[0], rows[len(rows)-1]
		if !(last.Tokens().Cached() > first.Tokens().Cached()) {
			return fmt.Sprintf("cache_n %s %s is not above %s %s", num(last.Tokens().Cached()), last.Position, num(first.Tokens().Cached()), first.Position)
		}
		return ""
	})
	if len(bad) > 0 {
		return failEvery(bad, "the later the changing line, the more the cache keeps")
	}
	rows := reps[0].Positions
	first, last := rows[0], rows[len(rows)-1]
	return l.passEvery(len(reps), l.prefix.Runs != nil, "cache_n %s %s to %s %s", num(first.Tokens().Cached()), first.Position, num(last.Tokens().Cached()), last.Position)
}

func checkPrefixFirstDifference(l *lab) error {
	reps := l.prefix.Repetitions()
	n := 0
	bad := everyRep(len(reps), l.prefix.Runs != nil, func(i int) string {
		for _, r := range reps[i].Positions {
			if r.FirstDifference == nil {
				continue
			}
			n++
			if r.Tokens().Cached() != *r.FirstDifference {
				return fmt.Sprintf("with the line %s cache_n is %s but the prompts share %s tokens (first_difference): the server reused %s than its tokenizer allows",
					r.Position, num(r.Tokens().Cached()), num(*r.FirstDifference), map[bool]string{true: "more", false: "less"}[r.Tokens().Cached() > *r.FirstDifference])
			}
		}
		return ""
	})
	if len(bad) > 0 {
		return failEvery(bad, "")
	}
	if n == 0 {
		return skip("prefix.json has no first_difference (the server has no /apply-template or /tokenize)")
	}
	if l.prefix.Runs != nil && len(reps) > 1 {
		return l.pass("equal at %d places over %d runs", n, len(reps))
	}
	return l.pass("equal at %d places", n)
}

// cacheMedian is the median over cache.json's runs of second.ttft_ms,
// the figure report.json copies.
func (l *lab) cacheMedian() float64 {
	var xs []float64
	for _, r := range l.cache.Repetitions() {
		xs = append(xs, r.Second.TTFTMs)
	}
	return median(xs)
}

// prefixMedians are the medians over prefix.json's runs of the first and
// the last place's prompt_n, the figures report.json copies.
func (l *lab) prefixMedians() (front, last float64) {
	var fs, ls []float64
	for _, r := range l.prefix.Repetitions() {
		fs, ls = append(fs, r.Positions[0].PromptN), append(ls, r.Positions[len(r.Positions)-1].PromptN)
	}
	return median(fs), median(ls)
}
