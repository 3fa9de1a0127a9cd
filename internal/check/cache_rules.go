package check

import (
	"fmt"

	"ttftlab/internal/artifact"
)

// The cache and prefix steps' rules (timingRules and voiceRules list
// them).

func checkCacheRuns(l *lab) error {
	c := l.cache
	return l.checkRuns(len(c.Discarded), runsOf{name: "cache.json", repeat: c.Repeat, runs: len(c.Runs), top: c, first: firstRun(c.Runs)})
}

func checkCacheSecondReuses(l *lab) error {
	return eachRepetition(l, l.cache.Repetitions(), func(r artifact.CacheRun) (string, error) {
		f, s := r.First.PromptN, r.Second.PromptN
		if s*10 > f {
			return "", fmt.Errorf("second.prompt_n %s is above 10%% of first.prompt_n %s; the repeated prompt should come from the cache (cache_prompt true, same slot, --cache-ram 0)", num(s), num(f))
		}
		return fmt.Sprintf("prompt_n %s, then %s", num(f), num(s)), nil
	})
}

func checkCacheSecondFaster(l *lab) error {
	return eachRepetition(l, l.cache.Repetitions(), func(r artifact.CacheRun) (string, error) {
		f, s := r.First.TTFTMs, r.Second.TTFTMs
		if !(s < f) {
			return "", fmt.Errorf("second.ttft_ms %s is not below first.ttft_ms %s", num(s), num(f))
		}
		return fmt.Sprintf("ttft %s ms, then %s ms", num(f), num(s)), nil
	})
}

func checkCacheSecondCached(l *lab) error {
	reps := l.cache.Repetitions()
	for _, r := range reps {
		if r.Second.CacheN == nil {
			return skip("cache.json second has no cache_n")
		}
	}
	return eachRepetition(l, reps, func(r artifact.CacheRun) (string, error) {
		if c := *r.Second.CacheN; !(c > 0) {
			return "", fmt.Errorf("second.cache_n is %s, want > 0; the server reused nothing", num(c))
		}
		return fmt.Sprintf("cache_n %s", num(*r.Second.CacheN)), nil
	})
}

func checkCacheChangedRecomputes(l *lab) error {
	return eachRepetition(l, l.cache.Repetitions(), func(r artifact.CacheRun) (string, error) {
		f, c := r.First.PromptN, r.ChangedPrefix.PromptN
		if c*10 < f*9 {
			return "", fmt.Errorf("changed_prefix.prompt_n %s is below 90%% of first.prompt_n %s; a changed first line should force nearly the whole prompt to be evaluated again", num(c), num(f))
		}
		return fmt.Sprintf("prompt_n %s of %s", num(c), num(f)), nil
	})
}

func checkPrefixRuns(l *lab) error {
	p := l.prefix
	return l.checkRuns(len(p.Discarded), runsOf{name: "prefix.json", repeat: p.Repeat, runs: len(p.Runs), top: p, first: firstRun(p.Runs)})
}

func checkPrefixGrowsLater(l *lab) error {
	return eachRepetition(l, l.prefix.Repetitions(), func(r artifact.PrefixRun) (string, error) {
		rows := r.Positions
		for j := 1; j < len(rows); j++ {
			if rows[j].Tokens().Cached() < rows[j-1].Tokens().Cached() {
				return "", fmt.Errorf("cache_n %s with the line %s is below %s with it %s; the later the changing line, the more the cache keeps",
					num(rows[j].Tokens().Cached()), rows[j].Position, num(rows[j-1].Tokens().Cached()), rows[j-1].Position)
			}
		}
		first, last := rows[0], rows[len(rows)-1]
		if !(last.Tokens().Cached() > first.Tokens().Cached()) {
			return "", fmt.Errorf("cache_n %s %s is not above %s %s; the later the changing line, the more the cache keeps",
				num(last.Tokens().Cached()), last.Position, num(first.Tokens().Cached()), first.Position)
		}
		return fmt.Sprintf("cache_n %s %s to %s %s", num(first.Tokens().Cached()), first.Position, num(last.Tokens().Cached()), last.Position), nil
	})
}

func checkPrefixFirstDifference(l *lab) error {
	reps := l.prefix.Repetitions()
	known := 0
	for _, r := range reps {
		for _, p := range r.Positions {
			if p.FirstDifference != nil {
				known++
			}
		}
	}
	if known == 0 {
		return skip("prefix.json has no first_difference (the server has no /apply-template or /tokenize)")
	}
	return eachRepetition(l, reps, func(r artifact.PrefixRun) (string, error) {
		n := 0
		for _, p := range r.Positions {
			if p.FirstDifference == nil {
				continue
			}
			n++
			if c, d := p.Tokens().Cached(), *p.FirstDifference; c != d {
				return "", fmt.Errorf("with the line %s cache_n is %s but the prompts share %s tokens (first_difference): the server reused %s than its tokenizer allows",
					p.Position, num(c), num(d), map[bool]string{true: "more", false: "less"}[c > d])
			}
		}
		return fmt.Sprintf("equal at %d places", n), nil
	})
}
