package check

import (
	"fmt"
	"math"
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
		want := l.ttft.Repeat
		if want == 0 {
			want = oldRuns
		}
		if n := len(l.ttft.Runs); n != want {
			return fmt.Errorf("ttft.json has %d runs, want %d (its repeat)", n, want)
		}
		return l.pass("%d runs", want)
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
		err := eachPrefill(l, func(rows []artifact.PrefillRow) error {
			for i := 1; i < len(rows); i++ {
				a, b := rows[i-1], rows[i]
				if !(b.PromptN > a.PromptN) {
					return fmt.Errorf("prompt_n %s with %s docs is not above %s with %s docs; %s",
						num(b.PromptN), num(b.Docs), num(a.PromptN), num(a.Docs), prefillHint(rows))
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		return l.pass("prompt_n %s%s", prefillSeries(l.prefill, func(r artifact.PrefillRow) float64 { return r.PromptN }), prefillOver(l))
	}},
	{"prefill ttft grows", []string{"prefill.json"}, func(l *lab) error {
		if _, ok := prefillRowFor(l.prefill, 0); !ok {
			return fmt.Errorf("prefill.json needs rows for docs 0 and 12")
		}
		if _, ok := prefillRowFor(l.prefill, 12); !ok {
			return fmt.Errorf("prefill.json needs rows for docs 0 and 12")
		}
		err := eachPrefill(l, func(rows []artifact.PrefillRow) error {
			zero, _ := prefillRowFor(rows, 0)
			twelve, _ := prefillRowFor(rows, 12)
			if !(twelve.TTFTMs > zero.TTFTMs) {
				hint := ""
				if !(twelve.PromptN > zero.PromptN) {
					hint = "; " + prefillHint(rows)
				}
				return fmt.Errorf("ttft_ms with 12 docs (%s) is not above ttft_ms with 0 docs (%s)%s", num(twelve.TTFTMs), num(zero.TTFTMs), hint)
			}
			return nil
		})
		if err != nil {
			return err
		}
		zero, _ := prefillRowFor(l.prefill, 0)
		twelve, _ := prefillRowFor(l.prefill, 12)
		return l.pass("ttft %s ms with 0 docs < %s ms with 12%s", num(zero.TTFTMs), num(twelve.TTFTMs), prefillOver(l))
	}},
	{"prefill ttft >= prompt_ms", []string{"prefill.json"}, func(l *lab) error {
		var known []artifact.PrefillRow
		for _, r := range l.prefill {
			if r.PromptMs != nil {
				known = append(known, r)
			}
		}
		if len(known) == 0 {
			return skip("prefill.json has no prompt_ms: the server gives no server-side prefill time (ttft only)")
		}
		err := eachPrefill(l, func(rows []artifact.PrefillRow) error {
			var bad []string
			for _, r := range rows {
				if r.PromptMs != nil && r.TTFTMs < *r.PromptMs {
					bad = append(bad, fmt.Sprintf("docs %s: ttft_ms %s < prompt_ms %s", num(r.Docs), num(r.TTFTMs), num(*r.PromptMs)))
				}
			}
			return problems(bad, "the client cannot see the first token before the server finished the prompt; is the clock started after the request was sent?")
		})
		if err != nil {
			return err
		}
		return l.pass("ttft - prompt_ms %s ms%s", prefillSeries(known, func(r artifact.PrefillRow) float64 { return r.TTFTMs - *r.PromptMs }), prefillOver(l))
	}},
	{"cache runs", []string{"cache.json"}, checkCacheRuns},
	{"cache second reuses prefix", []string{"cache.json"}, checkCacheSecondReuses},
	{"cache second faster", []string{"cache.json"}, checkCacheSecondFaster},
	{"cache second cache_n > 0", []string{"cache.json"}, checkCacheSecondCached},
	{"cache changed prefix recomputes", []string{"cache.json"}, checkCacheChangedRecomputes},
	{"sentence runs", []string{"sentence.json"}, func(l *lab) error {
		s := l.sentence
		if s.Repeat == 0 && len(s.Runs) == 0 {
			return l.pass("one measurement (written before the step repeated)")
		}
		if n := len(s.Runs); n != s.Repeat {
			return fmt.Errorf("sentence.json has %d runs, want %d (its repeat)", n, s.Repeat)
		}
		if r := s.Runs[0]; r.TTFTMs != s.TTFTMs || r.FirstSentenceMs != s.FirstSentenceMs || r.TotalMs != s.TotalMs || r.Text != s.Text {
			return fmt.Errorf("the top level (ttft_ms %s, first_sentence_ms %s, total_ms %s) is not runs[0] (%s, %s, %s): it holds the first repetition",
				num(s.TTFTMs), num(s.FirstSentenceMs), num(s.TotalMs), num(r.TTFTMs), num(r.FirstSentenceMs), num(r.TotalMs))
		}
		return l.pass("%d runs%s", s.Repeat, discardedNote(len(s.Discarded)))
	}},
	{"sentence timing order", []string{"sentence.json"}, func(l *lab) error {
		runs := l.sentence.Repetitions()
		for i, s := range runs {
			if !(s.TTFTMs <= s.FirstSentenceMs && s.FirstSentenceMs <= s.TotalMs && s.TTFTMs < s.TotalMs) {
				return fmt.Errorf("%swant ttft_ms <= first_sentence_ms <= total_ms and ttft_ms < total_ms, got %s, %s, %s",
					repetition(i, len(runs)), num(s.TTFTMs), num(s.FirstSentenceMs), num(s.TotalMs))
			}
		}
		s := runs[0]
		return l.pass("ttft %s <= first sentence %s <= total %s ms%s", num(s.TTFTMs), num(s.FirstSentenceMs), num(s.TotalMs), everyRun(len(runs)))
	}},
	{"sentence prefix of text", []string{"sentence.json"}, func(l *lab) error {
		runs := l.sentence.Repetitions()
		for i, s := range runs {
			if s.FirstSentence == "" {
				return fmt.Errorf("%sfirst_sentence is empty (text is %s)", repetition(i, len(runs)), excerpt(s.Text, 60))
			}
			if !strings.HasPrefix(s.Text, s.FirstSentence) {
				return fmt.Errorf("%sfirst_sentence %s is not the start of text %s", repetition(i, len(runs)), excerpt(s.FirstSentence, 60), excerpt(s.Text, 60))
			}
		}
		return l.pass("%s%s", excerpt(runs[0].FirstSentence, 60), everyRun(len(runs)))
	}},
}

// repetition names repetition i (from 0) of n at the start of a failure;
// nothing when the file holds one measurement.
func repetition(i, n int) string {
	if n <= 1 {
		return ""
	}
	return fmt.Sprintf("repetition %d of %d: ", i+1, n)
}

// everyRun says, after a passing rule's values (the first repetition's),
// that the rule held in every repetition.
func everyRun(n int) string {
	if n <= 1 {
		return ""
	}
	return fmt.Sprintf(" (run 1; holds in all %d)", n)
}

// discardedNote says how many repetitions were set aside.
func discardedNote(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(", %d set aside", n)
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

// eachPrefill holds every repetition of prefill.json to check, which sees
// the rows as that repetition measured them; the failure names the
// repetition.
func eachPrefill(l *lab, check func([]artifact.PrefillRow) error) error {
	reps := artifact.PrefillRepetitions(l.prefill)
	for i, rows := range reps {
		if err := check(rows); err != nil {
			return fmt.Errorf("%s%w", repetition(i, len(reps)), err)
		}
	}
	return nil
}

// prefillOver says over how many repetitions a prefill rule held.
func prefillOver(l *lab) string {
	return everyRun(len(artifact.PrefillRepetitions(l.prefill)))
}

// checkPrefillRuns: every row holds repeat runs, its top-level values
// the first's.
func checkPrefillRuns(l *lab) error {
	if len(l.prefill) == 0 {
		return fmt.Errorf("prefill.json has no rows")
	}
	want := l.prefill[0].Repeat
	for _, r := range l.prefill {
		if r.Repeat != want {
			return fmt.Errorf("the row of %s docs has repeat %d, the row of %s docs %d: one repetition measures every row",
				num(r.Docs), r.Repeat, num(l.prefill[0].Docs), want)
		}
		if want == 0 && len(r.Runs) == 0 {
			continue
		}
		if len(r.Runs) != want {
			return fmt.Errorf("the row of %s docs has %d runs, want %d (its repeat)", num(r.Docs), len(r.Runs), want)
		}
		if f := r.Runs[0]; f.TTFTMs != r.TTFTMs || f.PromptN != r.PromptN {
			return fmt.Errorf("the row of %s docs has ttft_ms %s, prompt_n %s, but its runs[0] %s, %s: the row holds the first repetition",
				num(r.Docs), num(r.TTFTMs), num(r.PromptN), num(f.TTFTMs), num(f.PromptN))
		}
	}
	if want == 0 {
		return l.pass("one measurement (written before the step repeated)")
	}
	return l.pass("%d runs in each of %d rows%s", want, len(l.prefill), discardedNote(len(l.prefill[0].Discarded)))
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
