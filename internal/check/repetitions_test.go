package check

import "testing"

// repeatedCancelFiles is validFiles with cancel.json and bargein.json as the
// repeated steps write them: their repetitions in runs, the first also at
// the top level, and report.json holding their medians (cancel's of an
// even count: 3.65, half way between 3.1 and 4.2).
func repeatedCancelFiles() map[string]string {
	return filesWith(map[string]string{"cancel.json": `{"max_tokens":400,"received_tokens":25,"closed_at_ms":50.5,"slot_idle_after_ms":4.2,"evidence":"slots",
 "cut_after_ms":50,"done":false,"cut":true,"attempts":[{"max_tokens":400,"cut_after_ms":50,"received_tokens":25,"total_ms":51,"cut":true}],
 "log_cancel_task":true,"log_from":{"path":"server.log","offset":0,"inode":0},
 "repeat":4,"runs":[
  {"max_tokens":400,"received_tokens":25,"closed_at_ms":50.5,"slot_idle_after_ms":4.2,"evidence":"slots","done":false,"cut":true},
  {"max_tokens":400,"received_tokens":24,"closed_at_ms":50.25,"slot_idle_after_ms":2.5,"evidence":"slots","done":false,"cut":true},
  {"max_tokens":400,"received_tokens":26,"closed_at_ms":50.75,"slot_idle_after_ms":3.1,"evidence":"slots","done":false,"cut":true},
  {"max_tokens":400,"received_tokens":23,"closed_at_ms":50.125,"slot_idle_after_ms":6,"evidence":"slots","done":false,"cut":true}],
 "discarded":[{"repetition":3,"reason":"the server showed no state after the cut (/slots did not answer)"}]}`,
		"bargein.json": `{"question":"q","follow_up":"f","docs":6,"cut_after_chunks":16,"received_tokens":16,
 "closed_at_ms":250.5,"slot_idle_after_ms":6.5,"partial_text":"One, two",
 "resumed":{"prompt_n":75,"cache_n":1268,"ttft_ms":31.2},"cold":{"prompt_n":1332,"cache_n":11,"ttft_ms":252},
 "repeat":3,"runs":[
  {"received_tokens":16,"closed_at_ms":250.5,"slot_idle_after_ms":6.5,"partial_text":"One, two",
   "resumed":{"prompt_n":75,"cache_n":1268,"ttft_ms":31.2},"cold":{"prompt_n":1332,"cache_n":11,"ttft_ms":252}},
  {"received_tokens":16,"closed_at_ms":30.5,"slot_idle_after_ms":2,"partial_text":"One, two",
   "resumed":{"prompt_n":75,"cache_n":1268,"ttft_ms":28},"cold":{"prompt_n":1332,"cache_n":11,"ttft_ms":240}},
  {"received_tokens":16,"closed_at_ms":31,"slot_idle_after_ms":3,"partial_text":"One, two",
   "resumed":{"prompt_n":75,"cache_n":1268,"ttft_ms":35},"cold":{"prompt_n":1332,"cache_n":11,"ttft_ms":260}}]}`,
	}, [2]string{`"cancel_idle_ms":4.2`, `"cancel_idle_ms":3.65`})
}

// TestRepeatedStepsPass: the repeated cancel and barge-in files pass every
// check, each rule over every repetition.
func TestRepeatedStepsPass(t *testing.T) {
	got, _, failed, out := runFolder(t, repeatedCancelFiles(), true)
	if failed != 0 {
		t.Fatalf("%d checks failed on the repeated files:\n%s", failed, out)
	}
	wantOutcomes(t, got, "PASS", map[string]string{
		"cancel runs":                      "4 runs, the first at the top level, 1 set aside",
		"bargein runs":                     "3 runs, the first at the top level",
		"cancel cut short":                 "25 of 400 tokens (run 1; holds in all 4)",
		"bargein resumed answers sooner":   "(run 1; holds in all 3)",
		"report copies sources":            "fields",
		"bargein resumed reuses the cache": "(run 1; holds in all 3)",
	}, out)
}

// TestBadRepetitionFailsItsCheck: a repetition other than the first that
// breaks a rule fails it, and the failure names the repetition; so do a
// count of runs other than repeat, a top level that is not the first
// repetition, and a report that does not hold the runs' median.
func TestBadRepetitionFailsItsCheck(t *testing.T) {
	type change struct{ file, old, new string }
	cases := []struct {
		name    string
		changes []change
		fail    string
		msg     []string
	}{
		{name: "a later cut ran to the end", changes: []change{{"cancel.json", `"received_tokens":26`, `"received_tokens":400`}},
			fail: "cancel cut short", msg: []string{"repetition 3 of 4: ", "received_tokens 400 is not below max_tokens 400"}},
		{name: "a later cut was done", changes: []change{{"cancel.json", `"received_tokens":24,"closed_at_ms":50.25,"slot_idle_after_ms":2.5,"evidence":"slots","done":false`,
			`"received_tokens":24,"closed_at_ms":50.25,"slot_idle_after_ms":2.5,"evidence":"slots","done":true`}},
			fail: "cancel flags", msg: []string{"repetition 2 of 4: ", "done is true"}},
		{name: "a later close at zero", changes: []change{{"cancel.json", `"closed_at_ms":50.125`, `"closed_at_ms":0`}},
			fail: "cancel closed_at_ms > 0", msg: []string{"repetition 4 of 4"}},
		{name: "a later evidence differs", changes: []change{{"cancel.json", `"slot_idle_after_ms":6,"evidence":"slots"`, `"slot_idle_after_ms":6,"evidence":"metrics"`}},
			fail: "cancel evidence", msg: []string{"repetition 4 of 4", `evidence is "metrics", but the top level's is "slots"`}},
		{name: "cancel runs short of repeat", changes: []change{{"cancel.json", `"repeat":4`, `"repeat":5`}},
			fail: "cancel runs", msg: []string{"cancel.json has 4 runs, want 5 (its repeat)"}},
		{name: "cancel top level not the first", changes: []change{{"cancel.json", `"closed_at_ms":50.5,"slot_idle_after_ms":4.2,"evidence":"slots",
 "cut_after_ms"`, `"closed_at_ms":51,"slot_idle_after_ms":4.2,"evidence":"slots",
 "cut_after_ms"`}},
			fail: "cancel runs", msg: []string{"cancel.json's top level is not its first run", "closed_at_ms 51, runs[0] 50.5"}},
		{name: "report holds the first, not the median", changes: []change{{"report.json", `"cancel_idle_ms":3.65`, `"cancel_idle_ms":4.2`}},
			fail: "report copies sources", msg: []string{"cancel_idle_ms is 4.2 but the median of cancel.json slot_idle_after_ms over its 4 runs is 3.65"}},
		{name: "a later follow-up did not reuse", changes: []change{{"bargein.json", `"resumed":{"prompt_n":75,"cache_n":1268,"ttft_ms":28}`, `"resumed":{"prompt_n":75,"cache_n":0,"ttft_ms":28}`}},
			fail: "bargein resumed reuses the cache", msg: []string{"repetition 2 of 3: ", "resumed cache_n 0"}},
		{name: "a later follow-up slower", changes: []change{{"bargein.json", `"ttft_ms":35}`, `"ttft_ms":300}`}},
			fail: "bargein resumed answers sooner", msg: []string{"repetition 3 of 3: ", "resumed ttft_ms 300 is not below cold ttft_ms 260"}},
		{name: "a later cut without tokens", changes: []change{{"bargein.json", `{"received_tokens":16,"closed_at_ms":31,`, `{"received_tokens":0,"closed_at_ms":31,`}},
			fail: "bargein cut and idle", msg: []string{"repetition 3 of 3", "received_tokens 0"}},
		{name: "a later count missing", changes: []change{{"bargein.json", `"cold":{"prompt_n":1332,"cache_n":11,"ttft_ms":240}`, `"cold":{"prompt_n":1332,"ttft_ms":240}`}},
			fail: "file bargein.json", msg: []string{"runs[1].cold.cache_n is missing"}},
		{name: "bargein top level not the first", changes: []change{{"bargein.json", `"cold":{"prompt_n":1332,"cache_n":11,"ttft_ms":252},
 "repeat"`, `"cold":{"prompt_n":1332,"cache_n":11,"ttft_ms":250},
 "repeat"`}},
			fail: "bargein runs", msg: []string{"cold.ttft_ms 250, runs[0] 252"}},
		{name: "bargein runs without repeat", changes: []change{{"bargein.json", `"repeat":3,`, ``}},
			fail: "bargein runs", msg: []string{"bargein.json has 3 runs but no repeat"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			files := repeatedCancelFiles()
			for _, ch := range c.changes {
				edit(t, files, ch.file, ch.old, ch.new)
			}
			onlyFails(t, files, c.fail, c.msg...)
		})
	}
}
