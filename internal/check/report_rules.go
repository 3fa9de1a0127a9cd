package check

import (
	"fmt"
	"strings"

	"ttftlab/internal/artifact"
	"ttftlab/internal/synth"
)

// reportRules check that report.json copies its numbers from the step files
// unchanged (exact float64 equality: a copy must not be rounded), or the
// median of a step's repetitions (fromRuns).
var reportRules = []rule{
	{"server kind", []string{"server.json"}, checkServerKind},
	{"report copies sources", []string{"report.json"}, checkReport},
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

// reportSources are the files report.json copies its numbers from; each
// is written by the step of its name (ttft.json by step ttft).
var reportSources = []string{"ttft.json", "prefill.json", "cache.json", "sentence.json", "cancel.json", "bargein.json", "prefix.json", "audio.json"}

// reportField is one number report.json copies: where from, and its value
// there (nil: null there too). ofRuns: want is the median over a file's
// runs, which the lab took before writing it to the microsecond, so the
// copy equals it to within that.
type reportField struct {
	field, from string
	got, want   *float64
	ofRuns      bool
}

// medianOf names where report.json takes a number of a step that repeats:
// the median over the runs in where, or the member itself in a file
// written before the step repeated (no runs). The copy is the median as
// a file keeps it: a time to the microsecond.
func medianOf(runs int, where, member string) string {
	if runs == 0 {
		return where + " " + member
	}
	return fmt.Sprintf("the median of %s %s over its %d runs", where, member, runs)
}

// fromRuns is report.json's field copied from a member of a repeated
// step's repetitions (reps; runs of them in the file's runs): the median
// of those that have it, null where none does, named as medianOf names it.
func fromRuns[R any](field string, got *float64, reps []R, runs int, where, member string, pick func(R) *float64) reportField {
	var xs []float64
	for _, r := range reps {
		if x := pick(r); x != nil {
			xs = append(xs, *x)
		}
	}
	var want *float64
	if len(xs) > 0 {
		m := median(xs)
		want = &m
	}
	return reportField{field, medianOf(runs, where, member), got, want, runs > 0}
}

// reportFields are the numbers report.json copies from file, which has
// loaded.
func (l *lab) reportFields(file string) ([]reportField, error) {
	r := l.report
	v := func(x float64) *float64 { return &x }
	switch file {
	case "ttft.json":
		return []reportField{{"ttft_p50_ms", "ttft.json ttft_p50", r.TTFTP50Ms, v(l.ttft.TTFTP50), false},
			{"total_p50_ms", "ttft.json total_p50", r.TotalP50Ms, v(l.ttft.TotalP50), false}}, nil
	case "prefill.json":
		row12, ok := prefillRowFor(l.prefill, 12)
		if !ok {
			return nil, fmt.Errorf("prefill.json has no row with docs 12 to compare ttft_12docs_ms and prompt_n_12docs with")
		}
		reps, n := row12.Repetitions(), len(row12.Runs)
		return []reportField{
			fromRuns("ttft_12docs_ms", r.TTFT12DocsMs, reps, n, "prefill.json docs 12", "ttft_ms", func(x artifact.PrefillRun) *float64 { return &x.TTFTMs }),
			fromRuns("prompt_n_12docs", r.PromptN12Docs, reps, n, "prefill.json docs 12", "prompt_n", func(x artifact.PrefillRun) *float64 { return &x.PromptN }),
		}, nil
	case "cache.json":
		return []reportField{fromRuns("cache_ttft_ms", r.CacheTTFTMs, l.cache.Repetitions(), len(l.cache.Runs), "cache.json", "second.ttft_ms",
			func(x artifact.CacheRun) *float64 { return &x.Second.TTFTMs })}, nil
	case "sentence.json":
		reps, n := l.sentence.Repetitions(), len(l.sentence.Runs)
		return []reportField{
			fromRuns("first_sentence_ms", r.FirstSentenceMs, reps, n, "sentence.json", "first_sentence_ms", func(x artifact.SentenceRun) *float64 { return &x.FirstSentenceMs }),
			fromRuns("speech_stall_ms", r.SpeechStallMs, reps, n, "sentence.json", "pacing.stall_ms", func(x artifact.SentenceRun) *float64 {
				if x.Pacing == nil {
					return nil
				}
				return &x.Pacing.StallMs
			}),
		}, nil
	case "cancel.json":
		return []reportField{fromRuns("cancel_idle_ms", r.CancelIdleMs, l.cancel.Repetitions(), len(l.cancel.Runs), "cancel.json", "slot_idle_after_ms",
			func(x artifact.Cancel) *float64 { return x.SlotIdleAfterMs })}, nil
	case "bargein.json":
		reps, n := l.bargein.Repetitions(), len(l.bargein.Runs)
		return []reportField{
			fromRuns("bargein_resumed_ttft_ms", r.BargeinResumedTTFTMs, reps, n, "bargein.json", "resumed.ttft_ms", func(x artifact.Bargein) *float64 { return &x.Resumed.TTFTMs }),
			fromRuns("bargein_cold_ttft_ms", r.BargeinColdTTFTMs, reps, n, "bargein.json", "cold.ttft_ms", func(x artifact.Bargein) *float64 { return &x.Cold.TTFTMs }),
		}, nil
	case "audio.json":
		return []reportField{{"first_audio_p50_ms", "audio.json first_audio_p50", r.FirstAudioP50Ms, v(l.audio.FirstAudioP50), false}}, nil
	case "prefix.json":
		reps, n := l.prefix.Repetitions(), len(l.prefix.Runs)
		last := fmt.Sprintf("positions[%d].prompt_n", len(reps[0].Positions)-1)
		return []reportField{
			fromRuns("prefix_front_prompt_n", r.PrefixFrontPromptN, reps, n, "prefix.json", "positions[0].prompt_n", func(x artifact.PrefixRun) *float64 { return &x.Positions[0].PromptN }),
			fromRuns("prefix_last_prompt_n", r.PrefixLastPromptN, reps, n, "prefix.json", last, func(x artifact.PrefixRun) *float64 { return &x.Positions[len(x.Positions)-1].PromptN }),
		}, nil
	}
	panic("no report fields for " + file)
}

// unmeasured says whether the step that writes file did not measure in
// this run (whyNotMeasured): report.json must then leave its numbers null.
func (l *lab) unmeasured(file string) bool {
	why, _ := whyNotMeasured(l.steps, l.dir, file)
	return why != ""
}

// checkReport: report.json copies every number of a step that measured
// exactly, leaves those of a step that did not null, and names that step
// in not_measured.
func checkReport(l *lab) error {
	if l.steps != nil {
		if st, ok := l.steps.Of("report.json"); ok && st.Status != artifact.StepPassed && st.Status != artifact.StepNotRun {
			return skip("report.json is not this run's: step report %s", st.Status)
		}
	}
	// The copies are judged on files that loaded: a step that measured
	// must have one, and a file missing though its step passed (nothing
	// excuses it) failed its own check above.
	for _, file := range reportSources {
		why, missing := whyNotMeasured(l.steps, l.dir, file)
		_, excused := l.notWritten[file]
		if why == "" || (missing && !excused) {
			if err := l.unusable(file); err != nil {
				return err
			}
		}
	}
	var bad []string
	compared, absent := 0, []string{}
	for _, file := range reportSources {
		step := strings.TrimSuffix(file, ".json")
		if l.unmeasured(file) {
			absent = append(absent, step)
			if l.report.NotMeasured[step] == "" {
				bad = append(bad, fmt.Sprintf("not_measured does not name step %s, which did not measure", step))
			}
			if l.loaded[file] { // a failed step's file: never copied
				fields, err := l.reportFields(file)
				if err != nil {
					continue
				}
				for _, f := range fields {
					if f.got != nil {
						bad = append(bad, fmt.Sprintf("%s is %s but step %s did not measure: want null", f.field, exact(*f.got), step))
					}
				}
			}
			continue
		}
		if why := l.report.NotMeasured[step]; why != "" {
			bad = append(bad, fmt.Sprintf("not_measured names step %s (%s), which measured", step, why))
		}
		fields, err := l.reportFields(file)
		if err != nil {
			return err
		}
		for _, f := range fields {
			compared++
			switch {
			case f.got == nil && f.want == nil:
			case f.got == nil:
				bad = append(bad, fmt.Sprintf("%s is null but %s is %s", f.field, f.from, exact(*f.want)))
			case f.want == nil:
				bad = append(bad, fmt.Sprintf("%s is %s but %s is null", f.field, exact(*f.got), f.from))
			case *f.got != *f.want && !(f.ofRuns && near(*f.got, *f.want)):
				// every digit: a copy must match exactly, so show where it does not
				bad = append(bad, fmt.Sprintf("%s is %s but %s is %s", f.field, exact(*f.got), f.from, exact(*f.want)))
			}
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("%s", strings.Join(bad, "; "))
	}
	if len(absent) > 0 {
		return l.pass("%d fields; not measured: %s", compared, strings.Join(absent, ", "))
	}
	return l.pass("%d fields", compared)
}
