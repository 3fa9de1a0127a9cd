package check

import (
	"strings"
	"testing"
)

// sentenceRun is one repetition of the sentence step; run 2 of
// sentenceRunsJSON differs from run 1 in its first sentence's time (50
// against 40) and its stall (100 against 0).
const sentenceRun = `{"ttft_ms":12.5,"first_sentence_ms":40,"total_ms":90,
 "first_sentence":"We open at 8 a.m. on Saturday.","text":"We open at 8 a.m. on Saturday. Bring ID.",
 "pacing":{"chars_per_s":15,"tts_ms":0,"start_ms":40,"end_ms":2706.7,"stall_ms":0,"stalls":0,"first_clause_ms":null,
  "sentences":[{"text":"We open at 8 a.m. on Saturday.","ready_ms":40,"start_ms":40,"end_ms":2040},
   {"text":"Bring ID.","ready_ms":90,"start_ms":2040,"end_ms":2640}]}}`

const sentenceRun2 = `{"ttft_ms":13.5,"first_sentence_ms":50,"total_ms":95,
 "first_sentence":"We open at 9 a.m.","text":"We open at 9 a.m. Bring ID.",
 "pacing":{"chars_per_s":15,"tts_ms":0,"start_ms":50,"end_ms":2906.7,"stall_ms":100,"stalls":1,"first_clause_ms":null,
  "sentences":[{"text":"We open at 9 a.m.","ready_ms":50,"start_ms":50,"end_ms":1200},
   {"text":"Bring ID.","ready_ms":1300,"start_ms":1300,"end_ms":1900}]}}`

// sentenceRunsJSON is sentence.json of two repetitions: the first at the
// top level, with its chunks.
var sentenceRunsJSON = repeatedJSON([]string{sentenceRun, sentenceRun2},
	`"chunks":[{"t_ms":12.5,"text":"We open at 8 a.m. on Saturday."},{"t_ms":90,"text":" Bring ID."}]`,
	`[{"repetition":2,"reason":"whole answer arrived in one read"}]`)

// prefillRunsJSON is prefill.json of two repetitions; in the second the 12
// docs took 230 ms.
const prefillRunsJSON = `[
  {"docs":0,"prompt_n":40,"prompt_ms":8.5,"ttft_ms":10,"repeat":2,
   "runs":[{"prompt_n":40,"prompt_ms":8.5,"ttft_ms":10},{"prompt_n":40,"prompt_ms":9.5,"ttft_ms":11}]},
  {"docs":4,"prompt_n":400,"prompt_ms":60,"ttft_ms":70,"repeat":2,
   "runs":[{"prompt_n":400,"prompt_ms":60,"ttft_ms":70},{"prompt_n":400,"prompt_ms":61,"ttft_ms":72}]},
  {"docs":12,"prompt_n":1200,"prompt_ms":200.25,"ttft_ms":215.75,"repeat":2,
   "runs":[{"prompt_n":1200,"prompt_ms":200.25,"ttft_ms":215.75},{"prompt_n":1200,"prompt_ms":220,"ttft_ms":230}]}]`

// repeatedSentenceFiles are validFiles with the sentence and prefill steps
// repeated twice, and report.json holding the medians over their runs.
func repeatedSentenceFiles() map[string]string {
	return filesWith(map[string]string{"sentence.json": sentenceRunsJSON, "prefill.json": prefillRunsJSON},
		[2]string{`"ttft_12docs_ms":215.75`, `"ttft_12docs_ms":222.875`},
		[2]string{`"first_sentence_ms":40`, `"first_sentence_ms":45`}, [2]string{`"speech_stall_ms":0`, `"speech_stall_ms":50`})
}

// TestRepeatedSentenceAndPrefillChecks: the rules of one measurement hold
// in every repetition and name the one that fails; the runs are as many
// as the repeat, the top level is the first; report.json copies the
// medians over the runs.
func TestRepeatedSentenceAndPrefillChecks(t *testing.T) {
	got, _, _, out := runFolder(t, repeatedSentenceFiles(), true)
	wantOutcomes(t, got, "PASS", map[string]string{
		"sentence runs":             "2 runs, the first at the top level, 1 set aside",
		"sentence timing order":     "(run 1; holds in all 2)",
		"sentence prefix of text":   "(run 1; holds in all 2)",
		"sentence pacing":           "(run 1; holds in all 2)",
		"prefill runs":              "2 runs in each of 3 rows, the first at the top level",
		"prefill prompt_n grows":    "(run 1; holds in all 2)",
		"prefill ttft grows":        "(run 1; holds in all 2)",
		"prefill ttft >= prompt_ms": "(run 1; holds in all 2)",
		"report copies sources":     "",
	}, out)
	for _, c := range []struct {
		name, file, old, new, fail, msg string
	}{
		{"the second sentence run ends before its first sentence", "sentence.json", `"first_sentence_ms":50,"total_ms":95`, `"first_sentence_ms":50,"total_ms":45`,
			"sentence timing order", "repetition 2 of 2: want ttft_ms <= first_sentence_ms <= total_ms"},
		{"the second run's first sentence is not its text's start", "sentence.json", `"first_sentence":"We open at 9 a.m."`, `"first_sentence":"We close at 9 a.m."`,
			"sentence prefix of text", "repetition 2 of 2: first_sentence"},
		{"the second run speaks a sentence before it is ready", "sentence.json", `"ready_ms":1300,"start_ms":1300`, `"ready_ms":1300,"start_ms":1250`,
			"sentence pacing", "repetition 2 of 2: sentences[2]"},
		{"fewer sentence runs than its repeat", "sentence.json", `"repeat":2`, `"repeat":3`,
			"sentence runs", "sentence.json has 2 runs, want 3 (its repeat)"},
		{"a top level that is not the first run", "sentence.json", `"ttft_ms":12.5,"first_sentence_ms":40`, `"ttft_ms":13.5,"first_sentence_ms":50`,
			"sentence runs", "sentence.json's top level is not its first run, which it holds for readers of one measurement: first_sentence_ms 50, runs[0] 40; ttft_ms 13.5, runs[0] 12.5"},
		{"a report that copies the first run, not the median", "report.json", `"first_sentence_ms":45`, `"first_sentence_ms":40`,
			"report copies sources", "first_sentence_ms is 40 but the median of sentence.json first_sentence_ms over its 2 runs is 45"},
		{"a stall that is not the median", "report.json", `"speech_stall_ms":50`, `"speech_stall_ms":0`,
			"report copies sources", "speech_stall_ms is 0 but the median of sentence.json pacing.stall_ms over its 2 runs is 50"},
		{"the second prefill repetition's 12 docs faster than its 0", "prefill.json", `{"prompt_n":1200,"prompt_ms":220,"ttft_ms":230}`, `{"prompt_n":1200,"prompt_ms":5,"ttft_ms":9}`,
			"prefill ttft grows", "repetition 2 of 2: ttft_ms with 12 docs (9) is not above ttft_ms with 0 docs (11)"},
		{"the second prefill repetition's prompt not growing", "prefill.json", `{"prompt_n":400,"prompt_ms":61,"ttft_ms":72}`, `{"prompt_n":30,"prompt_ms":61,"ttft_ms":72}`,
			"prefill prompt_n grows", "repetition 2 of 2: prompt_n 30 with 4 docs is not above 40 with 0 docs"},
		{"the second prefill repetition's ttft below its prompt_ms", "prefill.json", `{"prompt_n":40,"prompt_ms":9.5,"ttft_ms":11}`, `{"prompt_n":40,"prompt_ms":9.5,"ttft_ms":9}`,
			"prefill ttft >= prompt_ms", "repetition 2 of 2: docs 0: ttft_ms 9 < prompt_ms 9.5"},
		{"a prefill row with fewer runs than its repeat", "prefill.json", `,{"prompt_n":400,"prompt_ms":61,"ttft_ms":72}`, ``,
			"prefill runs", "prefill.json's row of 4 docs has 1 runs, want 2 (its repeat)"},
		{"a report that copies the first prefill run, not the median", "report.json", `"ttft_12docs_ms":222.875`, `"ttft_12docs_ms":215.75`,
			"report copies sources", "ttft_12docs_ms is 215.75 but the median of prefill.json docs 12 ttft_ms over its 2 runs is 222.875"},
	} {
		f := repeatedSentenceFiles()
		was := f[c.file]
		f[c.file] = strings.Replace(was, c.old, c.new, 1)
		if f[c.file] == was {
			t.Fatalf("%s: %q not in %s", c.name, c.old, c.file)
		}
		got, _, _, out := runFolder(t, f, true)
		if o := got[c.fail]; o.status != "FAIL" || !strings.Contains(o.msg, c.msg) {
			t.Errorf("%s: %s is %+v, want FAIL naming %q\n%s", c.name, c.fail, o, c.msg, out)
		}
	}
}

// TestReportMedianOfAnEvenCountToTheMicrosecond: the median of two runs
// falls between two microseconds; report.json keeps the lab's median of
// the unrounded runs, rounded as every time is written, which may be a
// microsecond off the median of the rounded runs: check takes either, and
// nothing further off.
func TestReportMedianOfAnEvenCountToTheMicrosecond(t *testing.T) {
	f := repeatedSentenceFiles()
	f["sentence.json"] = strings.Replace(strings.Replace(f["sentence.json"], `"first_sentence_ms":50,`, `"first_sentence_ms":40.002,`, 1),
		`"first_sentence_ms":40,"total_ms":90`, `"first_sentence_ms":40.001,"total_ms":90`, 2)
	for report, status := range map[string]string{`"first_sentence_ms":40.002`: "PASS", `"first_sentence_ms":40.001`: "PASS", `"first_sentence_ms":40.01`: "FAIL"} {
		f["report.json"] = strings.Replace(repeatedSentenceFiles()["report.json"], `"first_sentence_ms":45`, report, 1)
		got, _, _, out := runFolder(t, f, true)
		if o := got["report copies sources"]; o.status != status {
			t.Errorf("report.json %s: %+v, want %s\n%s", report, o, status, out)
		}
	}
}
