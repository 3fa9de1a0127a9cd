package check

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"ttftlab/internal/artifact"
)

// oldRuns is the ttft step's run count before --repeat was recorded.
const oldRuns = 5

// timingRules check what the measurements must show: TTFT before the end,
// longer prompts taking longer, the prompt cache saving work.
var timingRules = []rule{
	{"ttft runs", []string{"ttft.json"}, func(l *lab) error {
		t := l.ttft
		return l.checkRuns(len(t.Discarded), runsOf{name: "ttft.json", repeat: t.Repeat, runs: len(t.Runs), legacy: oldRuns})
	}},
	{"ttft < total per run", []string{"ttft.json"}, func(l *lab) error {
		var bad []string
		for i, r := range l.ttft.Runs {
			if !(r.TTFTMs < r.TotalMs) {
				bad = append(bad, fmt.Sprintf("runs[%d] ttft_ms %s >= total_ms %s", i, num(r.TTFTMs), num(r.TotalMs)))
			}
		}
		if len(bad) > 0 {
			return problems(bad, "the first token must arrive before the stream ends")
		}
		return l.pass("max ttft %s ms < min total %s ms", num(maxOf(l.ttft.Runs, func(r artifact.TTFTRun) float64 { return r.TTFTMs })),
			num(minOf(l.ttft.Runs, func(r artifact.TTFTRun) float64 { return r.TotalMs })))
	}},
	{"ttft tokens > 0", []string{"ttft.json"}, func(l *lab) error {
		var bad []string
		for i, r := range l.ttft.Runs {
			if !(r.Tokens > 0) {
				bad = append(bad, fmt.Sprintf("runs[%d] tokens is %s", i, num(r.Tokens)))
			}
		}
		if len(bad) > 0 {
			return problems(bad, "every run should stream at least one token")
		}
		return l.pass("at least %s tokens a run", num(minOf(l.ttft.Runs, func(r artifact.TTFTRun) float64 { return r.Tokens })))
	}},
	{"ttft_p50 is median", []string{"ttft.json"}, func(l *lab) error {
		return l.median("ttft_p50", l.ttft.TTFTP50, l.ttft.Runs, func(r artifact.TTFTRun) float64 { return r.TTFTMs })
	}},
	{"total_p50 is median", []string{"ttft.json"}, func(l *lab) error {
		return l.median("total_p50", l.ttft.TotalP50, l.ttft.Runs, func(r artifact.TTFTRun) float64 { return r.TotalMs })
	}},
	{"prefill docs 0,4,12", []string{"prefill.json"}, checkPrefillDocs},
	{"prefill runs", []string{"prefill.json"}, checkPrefillRuns},
	{"prefill prompt_n grows", []string{"prefill.json"}, func(l *lab) error {
		return eachRepetition(l, artifact.PrefillRepetitions(l.prefill), func(rows []artifact.PrefillRow) (string, error) {
			for i := 1; i < len(rows); i++ {
				a, b := rows[i-1], rows[i]
				if !(b.PromptN > a.PromptN) {
					return "", fmt.Errorf("prompt_n %s with %s docs is not above %s with %s docs; %s",
						num(b.PromptN), num(b.Docs), num(a.PromptN), num(a.Docs), prefillHint(rows))
				}
			}
			return "prompt_n " + prefillSeries(rows, func(r artifact.PrefillRow) float64 { return r.PromptN }), nil
		})
	}},
	{"prefill ttft grows", []string{"prefill.json"}, func(l *lab) error {
		if _, ok := prefillRowFor(l.prefill, 0); !ok {
			return fmt.Errorf("prefill.json needs rows for docs 0 and 12")
		}
		if _, ok := prefillRowFor(l.prefill, 12); !ok {
			return fmt.Errorf("prefill.json needs rows for docs 0 and 12")
		}
		return eachRepetition(l, artifact.PrefillRepetitions(l.prefill), func(rows []artifact.PrefillRow) (string, error) {
			zero, _ := prefillRowFor(rows, 0)
			twelve, _ := prefillRowFor(rows, 12)
			if !(twelve.TTFTMs > zero.TTFTMs) {
				hint := ""
				if !(twelve.PromptN > zero.PromptN) {
					hint = "; " + prefillHint(rows)
				}
				return "", fmt.Errorf("ttft_ms with 12 docs (%s) is not above ttft_ms with 0 docs (%s)%s", num(twelve.TTFTMs), num(zero.TTFTMs), hint)
			}
			return fmt.Sprintf("ttft %s ms with 0 docs < %s ms with 12", num(zero.TTFTMs), num(twelve.TTFTMs)), nil
		})
	}},
	{"prefill ttft >= prompt_ms", []string{"prefill.json"}, func(l *lab) error {
		if !slices.ContainsFunc(l.prefill, func(r artifact.PrefillRow) bool { return r.PromptMs != nil }) {
			return skip("prefill.json has no prompt_ms: the server gives no server-side prefill time (ttft only)")
		}
		return eachRepetition(l, artifact.PrefillRepetitions(l.prefill), func(rows []artifact.PrefillRow) (string, error) {
			var bad []string
			known := slices.DeleteFunc(slices.Clone(rows), func(r artifact.PrefillRow) bool { return r.PromptMs == nil })
			for _, r := range known {
				if r.TTFTMs < *r.PromptMs {
					bad = append(bad, fmt.Sprintf("docs %s: ttft_ms %s < prompt_ms %s", num(r.Docs), num(r.TTFTMs), num(*r.PromptMs)))
				}
			}
			if err := problems(bad, "the client cannot see the first token before the server finished the prompt; is the clock started after the request was sent?"); err != nil {
				return "", err
			}
			return fmt.Sprintf("ttft - prompt_ms %s ms", prefillSeries(known, func(r artifact.PrefillRow) float64 { return r.TTFTMs - *r.PromptMs })), nil
		})
	}},
	{"cache runs", []string{"cache.json"}, checkCacheRuns},
	{"cache second reuses prefix", []string{"cache.json"}, checkCacheSecondReuses},
	{"cache second faster", []string{"cache.json"}, checkCacheSecondFaster},
	{"cache second cache_n > 0", []string{"cache.json"}, checkCacheSecondCached},
	{"cache changed prefix recomputes", []string{"cache.json"}, checkCacheChangedRecomputes},
	{"sentence runs", []string{"sentence.json"}, func(l *lab) error {
		s := l.sentence
		return l.checkRuns(len(s.Discarded), runsOf{name: "sentence.json", repeat: s.Repeat, runs: len(s.Runs), top: s, first: firstRun(s.Runs)})
	}},
	{"sentence timing order", []string{"sentence.json"}, func(l *lab) error {
		return eachRepetition(l, l.sentence.Repetitions(), func(s artifact.SentenceRun) (string, error) {
			if !(s.TTFTMs <= s.FirstSentenceMs && s.FirstSentenceMs <= s.TotalMs && s.TTFTMs < s.TotalMs) {
				return "", fmt.Errorf("want ttft_ms <= first_sentence_ms <= total_ms and ttft_ms < total_ms, got %s, %s, %s",
					num(s.TTFTMs), num(s.FirstSentenceMs), num(s.TotalMs))
			}
			return fmt.Sprintf("ttft %s <= first sentence %s <= total %s ms", num(s.TTFTMs), num(s.FirstSentenceMs), num(s.TotalMs)), nil
		})
	}},
	{"sentence prefix of text", []string{"sentence.json"}, func(l *lab) error {
		return eachRepetition(l, l.sentence.Repetitions(), func(s artifact.SentenceRun) (string, error) {
			if s.FirstSentence == "" {
				return "", fmt.Errorf("first_sentence is empty (text is %s)", excerpt(s.Text, 60))
			}
			if !strings.HasPrefix(s.Text, s.FirstSentence) {
				return "", fmt.Errorf("first_sentence %s is not the start of text %s", excerpt(s.FirstSentence, 60), excerpt(s.Text, 60))
			}
			return excerpt(s.FirstSentence, 60), nil
		})
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
func (l *lab) median(field string, got float64, runs []artifact.TTFTRun, pick func(artifact.TTFTRun) float64) error {
	if len(runs) == 0 {
		return fmt.Errorf("ttft.json has no runs to take the median of")
	}
	xs := make([]float64, len(runs))
	vals := make([]string, len(runs))
	for i, r := range runs {
		xs[i] = pick(r)
		vals[i] = num(xs[i])
	}
	// The median is written to the microsecond, as every time is: of an
	// even count it may be half a microsecond off the mean of the two.
	if want := median(xs); !near(got, want) {
		return fmt.Errorf("%s is %s, but the median of [%s] is %s", field, num(got), strings.Join(vals, ", "), num(want))
	}
	return l.pass("%s ms of [%s]", num(got), strings.Join(vals, ", "))
}

func minOf(runs []artifact.TTFTRun, pick func(artifact.TTFTRun) float64) float64 {
	if len(runs) == 0 {
		return math.NaN()
	}
	m := pick(runs[0])
	for _, r := range runs[1:] {
		m = min(m, pick(r))
	}
	return m
}

func maxOf(runs []artifact.TTFTRun, pick func(artifact.TTFTRun) float64) float64 {
	if len(runs) == 0 {
		return math.NaN()
	}
	m := pick(runs[0])
	for _, r := range runs[1:] {
		m = max(m, pick(r))
	}
	return m
}

// prefillHint names the likely cause of prompt_n that did not grow with
// the documents. The lab puts the documents in the system message, so a
// prompt_n the same for every count means the server never saw them: its
// chat template drops the system message (some Ollama models' do). A
// prompt_n that grew somewhere but fell or stood still elsewhere is more
// likely the prompt cache serving part of a prompt.
func prefillHint(rows []artifact.PrefillRow) string {
	same := len(rows) > 1
	for i := 1; i < len(rows); i++ {
		same = same && rows[i].PromptN == rows[0].PromptN
	}
	if same {
		return "the prompt did not grow with the documents: does the server's template drop the system message? " +
			"(the documents go in the system message; try the model with a template that keeps it)"
	}
	return "more docs must mean more evaluated tokens (if the prompt cache served part of the prompt, send cache_prompt false)"
}

// prefillSeries lists a value per prefill row: "41, 212, 505".
func prefillSeries(rows []artifact.PrefillRow, pick func(artifact.PrefillRow) float64) string {
	parts := make([]string, len(rows))
	for i, r := range rows {
		parts[i] = num(pick(r))
	}
	return strings.Join(parts, ", ")
}

func prefillRowFor(rows []artifact.PrefillRow, docs float64) (artifact.PrefillRow, bool) {
	for _, r := range rows {
		if r.Docs == docs {
			return r, true
		}
	}
	return artifact.PrefillRow{}, false
}

// checkPrefillRuns: every row holds the rule of "<step> runs", with one
// repeat: one repetition measures every row.
func checkPrefillRuns(l *lab) error {
	if len(l.prefill) == 0 {
		return fmt.Errorf("prefill.json has no rows")
	}
	var rows []runsOf
	for _, r := range l.prefill {
		if r0 := l.prefill[0]; r.Repeat != r0.Repeat {
			return fmt.Errorf("the row of %s docs has repeat %d, the row of %s docs %d: one repetition measures every row",
				num(r.Docs), r.Repeat, num(r0.Docs), r0.Repeat)
		}
		rows = append(rows, runsOf{name: "prefill.json's row of " + num(r.Docs) + " docs", repeat: r.Repeat, runs: len(r.Runs), top: r, first: firstRun(r.Runs)})
	}
	return l.checkRuns(len(l.prefill[0].Discarded), rows...)
}

// checkPrefillDocs wants docs strictly increasing and containing 0, 4 and
// 12; extra steps in between are fine.
func checkPrefillDocs(l *lab) error {
	docs := make([]string, len(l.prefill))
	for i, r := range l.prefill {
		docs[i] = num(r.Docs)
		if i > 0 && !(r.Docs > l.prefill[i-1].Docs) {
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
