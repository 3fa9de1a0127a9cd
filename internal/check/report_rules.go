package check

import (
	"fmt"
	"strings"

	"ttftlab/internal/artifact"
	"ttftlab/internal/synth"
)

// reportRules check that report.json copies its numbers from the step files
// unchanged (exact float64 equality: a copy must not be rounded), or the
// median of a step's repetitions (medianOfRuns).
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
// there (nil: null there too).
type reportField struct {
	field, from string
	got, want   *float64
}

// medianOfRuns says whether report.json's field is the median of its
// step's repetitions (the step's file has runs): the lab took it before
// writing it to the microsecond, so it equals the median of the written
// runs to within that.
func (l *lab) medianOfRuns(field string) bool {
	switch field {
	case "cancel_idle_ms":
		return len(l.cancel.Runs) > 0
	case "bargein_resumed_ttft_ms", "bargein_cold_ttft_ms":
		return len(l.bargein.Runs) > 0
	case "cache_ttft_ms":
		return len(l.cache.Runs) > 0
	case "prefix_front_prompt_n", "prefix_last_prompt_n":
		return len(l.prefix.Runs) > 0
	case "ttft_12docs_ms", "prompt_n_12docs":
		row, ok := prefillRowFor(l.prefill, 12)
		return ok && len(row.Runs) > 0
	case "first_sentence_ms", "speech_stall_ms":
		return len(l.sentence.Runs) > 0
	}
	return false
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

// reportFields are the numbers report.json copies from file, which has
// loaded.
func (l *lab) reportFields(file string) ([]reportField, error) {
	r := l.report
	v := func(x float64) *float64 { return &x }
	switch file {
	case "ttft.json":
		return []reportField{{"ttft_p50_ms", "ttft.json ttft_p50", r.TTFTP50Ms, v(l.ttft.TTFTP50)},
			{"total_p50_ms", "ttft.json total_p50", r.TotalP50Ms, v(l.ttft.TotalP50)}}, nil
	case "prefill.json":
		row12, ok := prefillRowFor(l.prefill, 12)
		if !ok {
			return nil, fmt.Errorf("prefill.json has no row with docs 12 to compare ttft_12docs_ms and prompt_n_12docs with")
		}
		var ttft, promptN []float64
		for _, run := range row12.Repetitions() {
			ttft, promptN = append(ttft, run.TTFTMs), append(promptN, run.PromptN)
		}
		return []reportField{{"ttft_12docs_ms", medianOf(len(row12.Runs), "prefill.json docs 12", "ttft_ms"), r.TTFT12DocsMs, artifact.Ms(median(ttft))},
			{"prompt_n_12docs", medianOf(len(row12.Runs), "prefill.json docs 12", "prompt_n"), r.PromptN12Docs, v(median(promptN))}}, nil
	case "cache.json":
		return []reportField{{"cache_ttft_ms", "the median of cache.json's second.ttft_ms", r.CacheTTFTMs, v(l.cacheMedian())}}, nil
	case "sentence.json":
		var first, stalls []float64
		for _, run := range l.sentence.Repetitions() {
			first = append(first, run.FirstSentenceMs)
			if p := run.Pacing; p != nil {
				stalls = append(stalls, p.StallMs)
			}
		}
		var stall *float64
		if len(stalls) > 0 {
			stall = artifact.Ms(median(stalls))
		}
		n := len(l.sentence.Runs)
		return []reportField{{"first_sentence_ms", medianOf(n, "sentence.json", "first_sentence_ms"), r.FirstSentenceMs, artifact.Ms(median(first))},
			{"speech_stall_ms", medianOf(n, "sentence.json", "pacing.stall_ms"), r.SpeechStallMs, stall}}, nil
	case "cancel.json":
		c := l.cancel
		if len(c.Runs) == 0 {
			return []reportField{{"cancel_idle_ms", "cancel.json slot_idle_after_ms", r.CancelIdleMs, c.SlotIdleAfterMs}}, nil
		}
		var idle []float64
		for _, run := range c.Runs {
			if run.SlotIdleAfterMs != nil {
				idle = append(idle, *run.SlotIdleAfterMs)
			}
		}
		var want *float64
		if len(idle) > 0 {
			want = v(median(idle))
		}
		return []reportField{{"cancel_idle_ms", "the median of cancel.json runs' slot_idle_after_ms", r.CancelIdleMs, want}}, nil
	case "bargein.json":
		b := l.bargein
		if len(b.Runs) == 0 {
			return []reportField{{"bargein_resumed_ttft_ms", "bargein.json resumed.ttft_ms", r.BargeinResumedTTFTMs, v(b.Resumed.TTFTMs)},
				{"bargein_cold_ttft_ms", "bargein.json cold.ttft_ms", r.BargeinColdTTFTMs, v(b.Cold.TTFTMs)}}, nil
		}
		var resumed, cold []float64
		for _, run := range b.Runs {
			resumed, cold = append(resumed, run.Resumed.TTFTMs), append(cold, run.Cold.TTFTMs)
		}
		return []reportField{{"bargein_resumed_ttft_ms", "the median of bargein.json runs' resumed.ttft_ms", r.BargeinResumedTTFTMs, v(median(resumed))},
			{"bargein_cold_ttft_ms", "the median of bargein.json runs' cold.ttft_ms", r.BargeinColdTTFTMs, v(median(cold))}}, nil
	case "audio.json":
		return []reportField{{"first_audio_p50_ms", "audio.json first_audio_p50", r.FirstAudioP50Ms, v(l.audio.FirstAudioP50)}}, nil
	case "prefix.json":
		front, last := l.prefixMedians()
		return []reportField{{"prefix_front_prompt_n", "the median of prefix.json's positions[1].prompt_n", r.PrefixFrontPromptN, v(front)},
			{"prefix_last_prompt_n", "the median of prefix.json's last position's prompt_n", r.PrefixLastPromptN, v(last)}}, nil
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
			case *f.got != *f.want && !(l.medianOfRuns(f.field) && near(*f.got, *f.want)):
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
