package check

import (
	"fmt"

	"strings"

	"ttftlab/internal/synth"
)

// reportRules check that report.json copies its numbers from the step files
// unchanged (exact float64 equality: a copy must not be rounded).
var reportRules = []rule{
	{"server kind", []string{"server.json"}, checkServerKind},
	{"report copies sources",
		[]string{"report.json", "ttft.json", "prefill.json", "cache.json", "sentence.json", "cancel.json", "bargein.json", "prefix.json"},
		checkReport},
	{"report model matches props", []string{"report.json", "props.json"}, checkReportModel},
	{"report server matches props", []string{"report.json", "props.json"}, checkReportServer},
}

// checkServerKind: server.json names a kind ttftlab knows, and /props
// (props.json) is there exactly for llama.cpp, the kind that serves it.
func checkServerKind(l *lab) error {
	k := l.server.Kind
	switch k {
	case "llama.cpp", "vllm", "sglang", "ollama", "openai-compatible":
	default:
		return fmt.Errorf("kind %q is none of llama.cpp, vllm, sglang, ollama, openai-compatible", k)
	}
	if has := l.exists("props.json"); has != (k == "llama.cpp") {
		return fmt.Errorf("kind %s but props.json is %s: only llama.cpp serves /props", k, map[bool]string{true: "there", false: "missing"}[has])
	}
	if s := l.report.Server; l.loaded["report.json"] && s != nil && s.Kind != "" && s.Kind != k {
		return fmt.Errorf("report.json server.kind is %s but server.json says %s", s.Kind, k)
	}
	return l.pass("%s (%s)", k, l.server.Evidence)
}

// checkReportServer: the report's server block states the context and
// slots /props reported.
func checkReportServer(l *lab) error {
	s := l.report.Server
	if s == nil {
		return skip("report.json has no server block")
	}
	var bad []string
	if s.NCtx != nil && *s.NCtx != l.props.Settings.NCtx {
		bad = append(bad, fmt.Sprintf("server.n_ctx is %s but props.json n_ctx is %s", num(*s.NCtx), num(l.props.Settings.NCtx)))
	}
	if s.Slots != nil && *s.Slots != l.props.TotalSlots {
		bad = append(bad, fmt.Sprintf("server.slots is %s but props.json total_slots is %s", num(*s.Slots), num(l.props.TotalSlots)))
	}
	if len(bad) > 0 {
		return fmt.Errorf("%s", strings.Join(bad, "; "))
	}
	return l.pass("n_ctx %s, %s slots", num(l.props.Settings.NCtx), num(l.props.TotalSlots))
}

// checkReportModel: the report names the model /props named, and calls it
// synthetic exactly when its chat template carries the synthetic model's
// marker.
func checkReportModel(l *lab) error {
	m, pr := l.report.Model, l.props
	var bad []string
	if !sameStr(m.Path, pr.ModelPath) {
		bad = append(bad, fmt.Sprintf("model.path is %s but props.json model_path is %s", strOrNull(m.Path), strOrNull(pr.ModelPath)))
	}
	name := synth.NameFromTemplate(deref(pr.ChatTemplate))
	switch {
	case m.Synthetic && name == "":
		bad = append(bad, "model.synthetic is true but props.json's chat template lacks the synthetic model's marker")
	case !m.Synthetic && name != "":
		bad = append(bad, fmt.Sprintf("model.synthetic is false but props.json's chat template names the synthetic model %q", name))
	case name != "" && !sameStr(m.Name, &name):
		bad = append(bad, fmt.Sprintf("model.name is %s but the synthetic model calls itself %q", strOrNull(m.Name), name))
	}
	if len(bad) > 0 {
		return fmt.Errorf("%s", strings.Join(bad, "; "))
	}
	return l.pass("%s, synthetic %v", strOrNull(m.Name), m.Synthetic)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
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
	r := l.report
	first, last := l.prefix.Positions[0], l.prefix.Positions[len(l.prefix.Positions)-1]
	type source struct {
		field, from string
		got, want   float64
	}
	sources := []source{
		{"ttft_p50_ms", "ttft.json ttft_p50", r.TTFTP50Ms, l.ttft.TTFTP50},
		{"total_p50_ms", "ttft.json total_p50", r.TotalP50Ms, l.ttft.TotalP50},
		{"ttft_12docs_ms", "prefill.json docs 12 ttft_ms", r.TTFT12DocsMs, row12.TTFTMs},
		{"prompt_n_12docs", "prefill.json docs 12 prompt_n", r.PromptN12Docs, row12.PromptN},
		{"cache_ttft_ms", "cache.json second.ttft_ms", r.CacheTTFTMs, l.cache.Second.TTFTMs},
		{"first_sentence_ms", "sentence.json first_sentence_ms", r.FirstSentenceMs, l.sentence.FirstSentenceMs},
		{"bargein_resumed_ttft_ms", "bargein.json resumed.ttft_ms", r.BargeinResumedTTFTMs, l.bargein.Resumed.TTFTMs},
		{"bargein_cold_ttft_ms", "bargein.json cold.ttft_ms", r.BargeinColdTTFTMs, l.bargein.Cold.TTFTMs},
		{"prefix_front_prompt_n", "prefix.json positions[1].prompt_n", r.PrefixFrontPromptN, first.PromptN},
		{"prefix_last_prompt_n", "prefix.json's last position's prompt_n", r.PrefixLastPromptN, last.PromptN},
	}
	if v := l.cancel.SlotIdleAfterMs; v != nil { // null: the cancel rules say why
		sources = append(sources, source{"cancel_idle_ms", "cancel.json slot_idle_after_ms", r.CancelIdleMs, *v})
	}
	if p := l.sentence.Pacing; p != nil {
		sources = append(sources, source{"speech_stall_ms", "sentence.json pacing.stall_ms", r.SpeechStallMs, p.StallMs})
	}
	var bad []string
	for _, s := range sources {
		if s.got != s.want {
			// every digit: a copy must match exactly, so show where it does not
			bad = append(bad, fmt.Sprintf("%s is %s but %s is %s", s.field, exact(s.got), s.from, exact(s.want)))
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("%s", strings.Join(bad, "; "))
	}
	return l.pass("%d fields", len(sources))
}
