package check

import (
	"fmt"
	"strings"
)

// reportRules check that report.json copies its numbers from the step files
// unchanged (exact float64 equality: a copy must not be rounded).
var reportRules = []rule{
	{"report copies sources",
		[]string{"report.json", "ttft.json", "prefill.json", "cache.json", "sentence.json", "cancel.json"},
		checkReport},
}

func checkReport(l *lab) error {
	row12, ok := prefillRowFor(l.prefill, 12)
	if !ok {
		return fmt.Errorf("prefill.json has no row with docs 12 to compare ttft_12docs_ms and prompt_n_12docs with")
	}
	sources := []struct {
		field, from string
		want        float64
	}{
		{"ttft_p50_ms", "ttft.json ttft_p50", l.ttft.ttftP50},
		{"total_p50_ms", "ttft.json total_p50", l.ttft.totalP50},
		{"ttft_12docs_ms", "prefill.json docs 12 ttft_ms", row12.ttftMs},
		{"prompt_n_12docs", "prefill.json docs 12 prompt_n", row12.promptN},
		{"cache_ttft_ms", "cache.json second.ttft_ms", l.cache.second.ttftMs},
		{"first_sentence_ms", "sentence.json first_sentence_ms", l.sentence.firstSentenceMs},
		{"cancel_idle_ms", "cancel.json slot_idle_after_ms", l.cancel.slotIdleAfterMs},
	}
	var bad []string
	for _, s := range sources {
		if got := l.report[s.field]; got != s.want {
			bad = append(bad, fmt.Sprintf("%s is %s but %s is %s", s.field, num(got), s.from, num(s.want)))
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("%s", strings.Join(bad, "; "))
	}
	return nil
}
