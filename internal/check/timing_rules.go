package check

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

const wantRuns = 5

// timingRules check what the measurements must show: TTFT before the end,
// longer prompts taking longer, the prompt cache saving work.
var timingRules = []rule{
	{"ttft 5 runs", []string{"ttft.json"}, func(l *lab) error {
		if n := len(l.ttft.runs); n != wantRuns {
			return fmt.Errorf("ttft.json has %d runs, want %d", n, wantRuns)
		}
		return l.pass("%d runs", wantRuns)
	}},
	{"ttft < total per run", []string{"ttft.json"}, func(l *lab) error {
		var bad []string
		for i, r := range l.ttft.runs {
			if !(r.ttftMs < r.totalMs) {
				bad = append(bad, fmt.Sprintf("runs[%d] ttft_ms %s >= total_ms %s", i, num(r.ttftMs), num(r.totalMs)))
			}
		}
		if len(bad) > 0 {
			return problems(bad, "the first token must arrive before the stream ends")
		}
		return l.pass("max ttft %s ms < min total %s ms", num(maxOf(l.ttft.runs, func(r run) float64 { return r.ttftMs })),
			num(minOf(l.ttft.runs, func(r run) float64 { return r.totalMs })))
	}},
	{"ttft tokens > 0", []string{"ttft.json"}, func(l *lab) error {
		var bad []string
		for i, r := range l.ttft.runs {
			if !(r.tokens > 0) {
				bad = append(bad, fmt.Sprintf("runs[%d] tokens is %s", i, num(r.tokens)))
			}
		}
		if len(bad) > 0 {
			return problems(bad, "every run should stream at least one token")
		}
		return l.pass("at least %s tokens a run", num(minOf(l.ttft.runs, func(r run) float64 { return r.tokens })))
	}},
	{"ttft_p50 is median", []string{"ttft.json"}, func(l *lab) error {
		return l.median("ttft_p50", l.ttft.ttftP50, l.ttft.runs, func(r run) float64 { return r.ttftMs })
	}},
	{"total_p50 is median", []string{"ttft.json"}, func(l *lab) error {
		return l.median("total_p50", l.ttft.totalP50, l.ttft.runs, func(r run) float64 { return r.totalMs })
	}},
	{"prefill docs 0,4,12", []string{"prefill.json"}, checkPrefillDocs},
	{"prefill prompt_n grows", []string{"prefill.json"}, func(l *lab) error {
		for i := 1; i < len(l.prefill); i++ {
			a, b := l.prefill[i-1], l.prefill[i]
			if !(b.promptN > a.promptN) {
				return fmt.Errorf("prompt_n %s with %s docs is not above %s with %s docs; more docs must mean more evaluated tokens (if the prompt cache served part of the prompt, send cache_prompt false)",
					num(b.promptN), num(b.docs), num(a.promptN), num(a.docs))
			}
		}
		return l.pass("prompt_n %s", prefillSeries(l.prefill, func(r prefillRow) float64 { return r.promptN }))
	}},
	{"prefill ttft grows", []string{"prefill.json"}, func(l *lab) error {
		zero, okZero := prefillRowFor(l.prefill, 0)
		twelve, okTwelve := prefillRowFor(l.prefill, 12)
		if !okZero || !okTwelve {
			return fmt.Errorf("prefill.json needs rows for docs 0 and 12")
		}
		if !(twelve.ttftMs > zero.ttftMs) {
			return fmt.Errorf("ttft_ms with 12 docs (%s) is not above ttft_ms with 0 docs (%s)", num(twelve.ttftMs), num(zero.ttftMs))
		}
		return l.pass("ttft %s ms with 0 docs < %s ms with 12", num(zero.ttftMs), num(twelve.ttftMs))
	}},
	{"prefill ttft >= prompt_ms", []string{"prefill.json"}, func(l *lab) error {
		var bad []string
		for _, r := range l.prefill {
			if r.ttftMs < r.promptMs {
				bad = append(bad, fmt.Sprintf("docs %s: ttft_ms %s < prompt_ms %s", num(r.docs), num(r.ttftMs), num(r.promptMs)))
			}
		}
		if len(bad) > 0 {
			return problems(bad, "the client cannot see the first token before the server finished the prompt; is the clock started after the request was sent?")
		}
		return l.pass("ttft - prompt_ms %s ms", prefillSeries(l.prefill, func(r prefillRow) float64 { return r.ttftMs - r.promptMs }))
	}},
	{"cache second reuses prefix", []string{"cache.json"}, func(l *lab) error {
		f, s := l.cache.first.promptN, l.cache.second.promptN
		if !(s*10 <= f) {
			return fmt.Errorf("second.prompt_n %s is above 10%% of first.prompt_n %s; the repeated prompt should come from the cache (cache_prompt true, same slot, --cache-ram 0)", num(s), num(f))
		}
		return l.pass("prompt_n %s, then %s", num(f), num(s))
	}},
	{"cache second faster", []string{"cache.json"}, func(l *lab) error {
		f, s := l.cache.first.ttftMs, l.cache.second.ttftMs
		if !(s < f) {
			return fmt.Errorf("second.ttft_ms %s is not below first.ttft_ms %s", num(s), num(f))
		}
		return l.pass("ttft %s ms, then %s ms", num(f), num(s))
	}},
	{"cache second cache_n > 0", []string{"cache.json"}, func(l *lab) error {
		c := l.cache.second.cacheN
		if c == nil {
			return skip("cache.json second has no cache_n")
		}
		if !(*c > 0) {
			return fmt.Errorf("second.cache_n is %s, want > 0: the server reused nothing", num(*c))
		}
		return l.pass("cache_n %s", num(*c))
	}},
	{"cache changed prefix recomputes", []string{"cache.json"}, func(l *lab) error {
		f, c := l.cache.first.promptN, l.cache.changedPrefix.promptN
		if !(c*10 >= f*9) {
			return fmt.Errorf("changed_prefix.prompt_n %s is below 90%% of first.prompt_n %s; a changed first line should force nearly the whole prompt to be evaluated again", num(c), num(f))
		}
		return l.pass("prompt_n %s of %s", num(c), num(f))
	}},
	{"sentence timing order", []string{"sentence.json"}, func(l *lab) error {
		s := l.sentence
		if !(s.ttftMs <= s.firstSentenceMs && s.firstSentenceMs <= s.totalMs && s.ttftMs < s.totalMs) {
			return fmt.Errorf("want ttft_ms <= first_sentence_ms <= total_ms and ttft_ms < total_ms, got %s, %s, %s",
				num(s.ttftMs), num(s.firstSentenceMs), num(s.totalMs))
		}
		return l.pass("ttft %s <= first sentence %s <= total %s ms", num(s.ttftMs), num(s.firstSentenceMs), num(s.totalMs))
	}},
	{"sentence prefix of text", []string{"sentence.json"}, func(l *lab) error {
		s := l.sentence
		if s.firstSentence == "" {
			return fmt.Errorf("first_sentence is empty (text is %s)", excerpt(s.text, 60))
		}
		if !strings.HasPrefix(s.text, s.firstSentence) {
			return fmt.Errorf("first_sentence %s is not the start of text %s", excerpt(s.firstSentence, 60), excerpt(s.text, 60))
		}
		return l.pass("%s", excerpt(s.firstSentence, 60))
	}},
}

// problems fails with the listed problems and a hint, or passes when none.
func problems(bad []string, hint string) error {
	if len(bad) == 0 {
		return nil
	}
	return fmt.Errorf("%s; %s", strings.Join(bad, "; "), hint)
}

// median is the middle of the sorted values (the mean of the two middle
// ones for an even count), as stats.median computes it.
func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// median checks that got is the median of the runs' values.
func (l *lab) median(field string, got float64, runs []run, pick func(run) float64) error {
	if len(runs) == 0 {
		return fmt.Errorf("ttft.json has no runs to take the median of")
	}
	xs := make([]float64, len(runs))
	vals := make([]string, len(runs))
	for i, r := range runs {
		xs[i] = pick(r)
		vals[i] = num(xs[i])
	}
	if want := median(xs); got != want {
		return fmt.Errorf("%s is %s, but the median of [%s] is %s", field, num(got), strings.Join(vals, ", "), num(want))
	}
	return l.pass("%s ms of [%s]", num(got), strings.Join(vals, ", "))
}

func minOf(runs []run, pick func(run) float64) float64 {
	if len(runs) == 0 {
		return math.NaN()
	}
	m := pick(runs[0])
	for _, r := range runs[1:] {
		m = min(m, pick(r))
	}
	return m
}

func maxOf(runs []run, pick func(run) float64) float64 {
	if len(runs) == 0 {
		return math.NaN()
	}
	m := pick(runs[0])
	for _, r := range runs[1:] {
		m = max(m, pick(r))
	}
	return m
}

// prefillSeries lists a value per prefill row: "41, 212, 505".
func prefillSeries(rows []prefillRow, pick func(prefillRow) float64) string {
	parts := make([]string, len(rows))
	for i, r := range rows {
		parts[i] = num(pick(r))
	}
	return strings.Join(parts, ", ")
}

func prefillRowFor(rows []prefillRow, docs float64) (prefillRow, bool) {
	for _, r := range rows {
		if r.docs == docs {
			return r, true
		}
	}
	return prefillRow{}, false
}

// checkPrefillDocs wants docs strictly increasing and containing 0, 4 and
// 12; extra steps in between are fine.
func checkPrefillDocs(l *lab) error {
	docs := make([]string, len(l.prefill))
	for i, r := range l.prefill {
		docs[i] = num(r.docs)
		if i > 0 && !(r.docs > l.prefill[i-1].docs) {
			return fmt.Errorf("docs are not in increasing order: [%s]", strings.Join(docs[:i+1], ", "))
		}
	}
	for _, want := range []float64{0, 4, 12} {
		if _, ok := prefillRowFor(l.prefill, want); !ok {
			return fmt.Errorf("no row with docs %s; have [%s], want 0, 4 and 12", num(want), strings.Join(docs, ", "))
		}
	}
	return l.pass("docs [%s]", strings.Join(docs, ", "))
}
