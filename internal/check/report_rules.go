package check

import (
	"fmt"
	"strings"

	"ttftlab/internal/synth"
)

// reportRules check that report.json copies its numbers from the step files
// unchanged (exact float64 equality: a copy must not be rounded).
var reportRules = []rule{
	{"report copies sources",
		[]string{"report.json", "ttft.json", "prefill.json", "cache.json", "sentence.json", "cancel.json", "bargein.json", "prefix.json"},
		checkReport},
	{"report model matches props", []string{"report.json", "props.json"}, checkReportModel},
	{"report server matches props", []string{"report.json", "props.json"}, checkReportServer},
}

// checkReportServer: the report's server block states the context and
// slots /props reported.
func checkReportServer(l *lab) error {
	s := l.reportServer
	if s == nil {
		return skip("report.json has no server block")
	}
	var bad []string
	if s.nCtx != nil && *s.nCtx != l.props.nCtx {
		bad = append(bad, fmt.Sprintf("server.n_ctx is %s but props.json n_ctx is %s", num(*s.nCtx), num(l.props.nCtx)))
	}
	if s.slots != nil && *s.slots != l.props.slots {
		bad = append(bad, fmt.Sprintf("server.slots is %s but props.json total_slots is %s", num(*s.slots), num(l.props.slots)))
	}
	if len(bad) > 0 {
		return fmt.Errorf("%s", strings.Join(bad, "; "))
	}
	return l.pass("n_ctx %s, %s slots", num(l.props.nCtx), num(l.props.slots))
}

// checkReportModel: the report names the model /props named, and calls it
// synthetic exactly when its chat template carries the synthetic model's
// marker.
func checkReportModel(l *lab) error {
	m, pr := l.reportModel, l.props
	var bad []string
	if !sameStr(m.path, pr.modelPath) {
		bad = append(bad, fmt.Sprintf("model.path is %s but props.json model_path is %s", strOrNull(m.path), strOrNull(pr.modelPath)))
	}
	name := synth.NameFromTemplate(pr.chatTemplate)
	switch {
	case m.synthetic && name == "":
		bad = append(bad, "model.synthetic is true but props.json's chat template lacks the synthetic model's marker")
	case !m.synthetic && name != "":
		bad = append(bad, fmt.Sprintf("model.synthetic is false but props.json's chat template names the synthetic model %q", name))
	case name != "" && !sameStr(m.name, &name):
		bad = append(bad, fmt.Sprintf("model.name is %s but the synthetic model calls itself %q", strOrNull(m.name), name))
	}
	if len(bad) > 0 {
		return fmt.Errorf("%s", strings.Join(bad, "; "))
	}
	return l.pass("%s, synthetic %v", strOrNull(m.name), m.synthetic)
}

func sameStr(a, b *string) bool {
	return (a == nil && b == nil) || (a != nil && b != nil && *a == *b)
}

func strOrNull(s *string) string {
	if s == nil {
		return "null"
	}
	return excerpt(*s, 60)
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
		{"bargein_resumed_ttft_ms", "bargein.json resumed.ttft_ms", l.bargein.resumed.ttftMs},
		{"bargein_cold_ttft_ms", "bargein.json cold.ttft_ms", l.bargein.cold.ttftMs},
		{"prefix_front_prompt_n", "prefix.json positions[1].prompt_n", l.prefix[0].cost.promptN},
		{"prefix_last_prompt_n", "prefix.json's last position's prompt_n", l.prefix[len(l.prefix)-1].cost.promptN},
	}
	if p := l.sentence.pacing; p != nil {
		sources = append(sources, struct {
			field, from string
			want        float64
		}{"speech_stall_ms", "sentence.json pacing.stall_ms", p.stallMs})
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
	return l.pass("%d fields", len(sources))
}
