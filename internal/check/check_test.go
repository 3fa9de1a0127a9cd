package check

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// validFiles is a lab output folder that passes every check. ttft medians:
// sorted ttft [10.5 11 12 13 30] -> 12, sorted total [100 105 110 120 130] -> 110.
func validFiles() map[string]string {
	return map[string]string{
		"health.json": `{"status":"ok"}`,
		"props.json":  `{"default_generation_settings":{"n_ctx":2048,"temperature":0.8},"total_slots":1,"model_path":"m.gguf"}`,
		"sse_raw.txt": `data: {"choices":[{"finish_reason":null,"index":0,"delta":{"role":"assistant","content":null}}],"object":"chat.completion.chunk"}

data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":"We open"}}],"object":"chat.completion.chunk"}

: ping

data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":" at 8 a.m."}}],"object":"chat.completion.chunk"}

data: {"choices":[{"finish_reason":"stop","index":0,"delta":{}}],"timings":{"prompt_n":40,"prompt_ms":8.5}}

data: [DONE]

`,
		"chunks.jsonl": `{"t_ms":12.5,"text":"We open"}
{"t_ms":14.25,"text":" at 8 a.m."}
`,
		"ttft.json": `{"runs":[
  {"ttft_ms":10.5,"total_ms":100,"tokens":40},
  {"ttft_ms":12,"total_ms":110,"tokens":41},
  {"ttft_ms":11,"total_ms":105,"tokens":39},
  {"ttft_ms":13,"total_ms":120,"tokens":44},
  {"ttft_ms":30,"total_ms":130,"tokens":45}],
 "ttft_p50":12,"total_p50":110}`,
		"prefill.json": `[
  {"docs":0,"prompt_n":40,"prompt_ms":8.5,"ttft_ms":10},
  {"docs":4,"prompt_n":400,"prompt_ms":60,"ttft_ms":70},
  {"docs":12,"prompt_n":1200,"prompt_ms":200.25,"ttft_ms":215.75}]`,
		"cache.json": `{"first":{"prompt_n":1200,"ttft_ms":210,"cache_n":0},
 "second":{"prompt_n":1,"ttft_ms":15,"cache_n":1199},
 "changed_prefix":{"prompt_n":1195,"ttft_ms":205,"cache_n":0}}`,
		"sentence.json": `{"ttft_ms":12.5,"first_sentence_ms":40,"total_ms":90,
 "first_sentence":"We open at 8 a.m. on Saturday.","text":"We open at 8 a.m. on Saturday. Bring ID.",
 "pacing":{"chars_per_s":15,"tts_ms":0,"start_ms":40,"end_ms":2706.7,"stall_ms":0,"stalls":0,"first_clause_ms":null,
  "sentences":[{"text":"We open at 8 a.m. on Saturday.","ready_ms":40,"start_ms":40,"end_ms":2040},
   {"text":"Bring ID.","ready_ms":90,"start_ms":2040,"end_ms":2640}]}}`,
		"bargein.json": `{"question":"q","follow_up":"f","docs":12,"cut_after_chunks":16,"received_tokens":16,
 "closed_at_ms":250.5,"slot_idle_after_ms":6.5,"partial_text":"One, two",
 "resumed":{"prompt_n":75,"cache_n":1268,"ttft_ms":31.2},"cold":{"prompt_n":1332,"cache_n":11,"ttft_ms":252}}`,
		"prefix.json": `{"changing_line":"Current time: 14:05.","docs":4,"advice":"...","positions":[
 {"position":"front","at_char":37,"prompt_n":473,"cache_n":29,"first_difference":29,"ttft_ms":66},
 {"position":"between_docs","at_char":385,"prompt_n":246,"cache_n":256,"first_difference":256,"ttft_ms":29.5},
 {"position":"before_question","at_char":693,"prompt_n":50,"cache_n":451,"first_difference":451,"ttft_ms":14.8}]}`,
		"server.json": `{"kind":"llama.cpp","evidence":"GET /props answered with default_generation_settings","version":"b1","health":"/health"}`,
		"cancel.json": `{"max_tokens":400,"received_tokens":25,"closed_at_ms":50.5,"slot_idle_after_ms":4.2,
 "log_cancel_task":true,"log_from":{"path":"server.log","offset":0,"inode":0},"cut_after_ms":50,"attempts":[{"max_tokens":256,"cut_after_ms":50,"received_tokens":25,"total_ms":51,"cut":true}],"done":false,"cut":true,"total_ms":51}`,
		"report.json": `{"ttft_p50_ms":12,"total_p50_ms":110,"ttft_12docs_ms":215.75,"prompt_n_12docs":1200,
 "cache_ttft_ms":15,"first_sentence_ms":40,"cancel_idle_ms":4.2,
 "speech_stall_ms":0,"first_audio_p50_ms":90,"bargein_resumed_ttft_ms":31.2,"bargein_cold_ttft_ms":252,"prefix_front_prompt_n":473,"prefix_last_prompt_n":50,
 "model":{"name":"m","path":"m.gguf","synthetic":false},
 "server":{"n_ctx":2048,"slots":1,"threads":1,"cache_ram":0,"args":["llama-server","-t","1"],"build":"b1"}}`,
		"audio.json":    audioJSON,
		"call.json":     callJSON,
		"realtime.json": realtimeJSON,
		"server.log":    "srv  update_slots: all slots are idle\nsrv          stop: cancel task, id_task = 7\nslot      release: id  0 | task 7 | stop processing\n",
	}
}

// testOutcome is one printed line.
type testOutcome struct{ status, msg string }

// runFolder writes files into a temp folder, runs the checks and returns
// the outcomes by check name plus the counts and the raw output.
func runFolder(t *testing.T, files map[string]string, withLog bool) (map[string]testOutcome, int, int, string) {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	logPath := ""
	if withLog {
		logPath = filepath.Join(dir, "server.log")
	}
	var out bytes.Buffer
	passed, failed := Run(dir, logPath, &out)
	return parseOutput(t, out.String()), passed, failed, out.String()
}

// repeatedJSON is a repeated step's file of these runs: the first run's
// members at its top level with extra's, then repeat, runs and, unless
// "", discarded.
func repeatedJSON(runs []string, extra, discarded string) string {
	s := fmt.Sprintf(`%s,%s,"repeat":%d,"runs":[%s]`, strings.TrimSuffix(runs[0], "}"), extra, len(runs), strings.Join(runs, ","))
	if discarded != "" {
		s += `,"discarded":` + discarded
	}
	return s + "}"
}

// filesWith is validFiles with these files and report.json's numbers
// changed, each pair's first string (which must be there) to its second.
func filesWith(files map[string]string, report ...[2]string) map[string]string {
	f := validFiles()
	for name, content := range files {
		f[name] = content
	}
	for _, c := range report {
		if !strings.Contains(f["report.json"], c[0]) {
			panic(c[0] + " not in report.json")
		}
		f["report.json"] = strings.Replace(f["report.json"], c[0], c[1], 1)
	}
	return f
}

// wantOutcomes holds each named check of got to status, its message
// saying what want gives it.
func wantOutcomes(t *testing.T, got map[string]testOutcome, status string, want map[string]string, out string) {
	t.Helper()
	for name, w := range want {
		if o := got[name]; o.status != status || !strings.Contains(o.msg, w) {
			t.Errorf("%s = %+v, want %s saying %q:\n%s", name, o, status, w, out)
		}
	}
}

// onlyFails checks files and wants exactly one check to fail, fail, its
// message naming each of msgs.
func onlyFails(t *testing.T, files map[string]string, fail string, msgs ...string) {
	t.Helper()
	got, _, failed, out := runFolder(t, files, true)
	var fails []string
	for name, o := range got {
		if o.status == "FAIL" {
			fails = append(fails, name)
		}
	}
	if failed != 1 || len(fails) != 1 || fails[0] != fail {
		t.Fatalf("failed = %d %q, want exactly %q:\n%s", failed, fails, fail, out)
	}
	for _, w := range msgs {
		if !strings.Contains(got[fail].msg, w) {
			t.Errorf("message %q does not mention %q", got[fail].msg, w)
		}
	}
}

func parseOutput(t *testing.T, out string) map[string]testOutcome {
	t.Helper()
	got := map[string]testOutcome{}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	for _, line := range lines[:len(lines)-1] {
		status, rest, ok := strings.Cut(line, " ")
		if !ok || (status != "PASS" && status != "FAIL" && status != "SKIP" && status != "WARN") {
			t.Fatalf("malformed line %q in:\n%s", line, out)
		}
		name, msg, _ := strings.Cut(rest, ": ")
		if _, dup := got[name]; dup {
			t.Fatalf("check %q printed twice:\n%s", name, out)
		}
		got[name] = testOutcome{status, msg}
	}
	return got
}

// TestPassLinesShowValues: a passing check says what it compared.
func TestPassLinesShowValues(t *testing.T) {
	got, _, _, out := runFolder(t, validFiles(), true)
	wantOutcomes(t, got, "PASS", map[string]string{
		"ttft_p50 is median":    "12 ms of [",
		"cache second faster":   "ttft 210 ms, then 15 ms",
		"prefill ttft grows":    "with 0 docs <",
		"cancel cut short":      "25 of 400 tokens",
		"sentence timing order": "ttft 12.5 <= first sentence 40 <= total 90 ms",
	}, out)
}

func TestValidFolderPasses(t *testing.T) {
	got, passed, failed, out := runFolder(t, validFiles(), true)
	if failed != 0 {
		t.Fatalf("%d checks failed on the valid folder:\n%s", failed, out)
	}
	for name, o := range got {
		if o.status != "PASS" {
			t.Errorf("%s: %s %s", name, o.status, o.msg)
		}
	}
	if passed != len(got) || passed < 30 {
		t.Errorf("passed = %d, lines = %d; want every one of at least 30 checks to pass:\n%s", passed, len(got), out)
	}
	if !strings.HasSuffix(out, "\n"+strconv.Itoa(passed)+" passed, 0 failed\n") {
		t.Errorf("summary line wrong:\n%s", out)
	}
}

// edit replaces old with new in one file and insists that old was there, so
// a fixture change cannot silently miss.
func edit(t *testing.T, files map[string]string, name, old, new string) {
	t.Helper()
	if !strings.Contains(files[name], old) {
		t.Fatalf("%s does not contain %q", name, old)
	}
	files[name] = strings.Replace(files[name], old, new, 1)
}

func TestEachBrokenThingFailsItsCheck(t *testing.T) {
	type change struct{ file, old, new string }
	cases := []struct {
		name    string
		changes []change
		remove  string
		fail    string
		msg     []string
	}{
		{name: "health not ok", changes: []change{{"health.json", `"ok"`, `"loading model"`}},
			fail: "health status ok", msg: []string{`"loading model"`}},
		{name: "no role chunk", changes: []change{{"sse_raw.txt", `"role":"assistant",`, ``}},
			fail: "sse opening event"},
		{name: "stream without DONE", changes: []change{{"sse_raw.txt", "data: [DONE]\n", ""}},
			fail: "sse ends complete", msg: []string{`finish_reason`, `want "data: [DONE]"`}},
		{name: "chunk text differs", changes: []change{{"chunks.jsonl", `" at 8 a.m."`, `" at 9 a.m."`}},
			fail: "chunks match sse", msg: []string{"at byte 11", "9 a.m.", "8 a.m."}},
		{name: "t_ms decreasing", changes: []change{{"chunks.jsonl", `14.25`, `12.25`}},
			fail: "chunks t_ms non-decreasing", msg: []string{"chunk 2", "12.25", "12.5"}},
		{name: "ttft above total", changes: []change{{"ttft.json", `"ttft_ms":30,`, `"ttft_ms":140,`}},
			fail: "ttft < total per run", msg: []string{"runs[4] ttft_ms 140 >= total_ms 130"}},
		{name: "zero tokens", changes: []change{{"ttft.json", `"tokens":41`, `"tokens":0`}},
			fail: "ttft tokens > 0", msg: []string{"runs[1] tokens is 0"}},
		{name: "wrong median", changes: []change{{"ttft.json", `"ttft_p50":12`, `"ttft_p50":15.3`}, {"report.json", `"ttft_p50_ms":12`, `"ttft_p50_ms":15.3`}},
			fail: "ttft_p50 is median", msg: []string{"15.3", "[10.5, 12, 11, 13, 30]", "is 12"}},
		{name: "total median is mean", changes: []change{{"ttft.json", `"total_p50":110`, `"total_p50":113`}, {"report.json", `"total_p50_ms":110`, `"total_p50_ms":113`}},
			fail: "total_p50 is median", msg: []string{"113", "is 110"}},
		{name: "prefill row missing", changes: []change{{"prefill.json", `{"docs":4,"prompt_n":400,"prompt_ms":60,"ttft_ms":70},`, ``}},
			fail: "prefill docs 0,4,12", msg: []string{"docs 4", "[0, 12]"}},
		{name: "prefill prompt_n flat", changes: []change{{"prefill.json", `"prompt_n":400`, `"prompt_n":40`}},
			fail: "prefill prompt_n grows", msg: []string{"prompt_n 40 with 4 docs", "40 with 0 docs"}},
		{name: "prefill ttft not growing", changes: []change{{"prefill.json", `"prompt_ms":8.5,"ttft_ms":10`, `"prompt_ms":8.5,"ttft_ms":300`}},
			fail: "prefill ttft grows", msg: []string{"215.75", "300"}},
		{name: "ttft below prompt_ms", changes: []change{{"prefill.json", `"prompt_ms":60,"ttft_ms":70`, `"prompt_ms":60,"ttft_ms":59.5`}},
			fail: "prefill ttft >= prompt_ms", msg: []string{"docs 4: ttft_ms 59.5 < prompt_ms 60"}},
		{name: "cache prompt recomputed", changes: []change{{"cache.json", `"prompt_n":1,`, `"prompt_n":200,`}},
			fail: "cache second reuses prefix", msg: []string{"200", "1200"}},
		{name: "cache not lower", changes: []change{{"cache.json", `"ttft_ms":15,`, `"ttft_ms":220,`}, {"report.json", `"cache_ttft_ms":15`, `"cache_ttft_ms":220`}},
			fail: "cache second faster", msg: []string{"220", "210"}},
		{name: "cache_n zero", changes: []change{{"cache.json", `"cache_n":1199`, `"cache_n":0`}},
			fail: "cache second cache_n > 0"},
		{name: "changed prefix reused", changes: []change{{"cache.json", `"prompt_n":1195`, `"prompt_n":600`}},
			fail: "cache changed prefix recomputes", msg: []string{"600", "1200"}},
		{name: "first sentence after total", changes: []change{{"sentence.json", `"first_sentence_ms":40`, `"first_sentence_ms":95`}, {"report.json", `"first_sentence_ms":40`, `"first_sentence_ms":95`}},
			fail: "sentence timing order", msg: []string{"12.5, 95, 90"}},
		{name: "sentence not a prefix", changes: []change{{"sentence.json", `"first_sentence":"We open at 8`, `"first_sentence":"We open at 9`}},
			fail: "sentence prefix of text", msg: []string{"We open at 9"}},
		{name: "empty sentence", changes: []change{{"sentence.json", `"first_sentence":"We open at 8 a.m. on Saturday."`, `"first_sentence":""`}},
			fail: "sentence prefix of text", msg: []string{"empty"}},
		{name: "cancel ran to the end", changes: []change{{"cancel.json", `"received_tokens":25`, `"received_tokens":400`}},
			fail: "cancel cut short", msg: []string{"400", "max_tokens 400"}},
		{name: "cancel nothing received", changes: []change{{"cancel.json", `"received_tokens":25`, `"received_tokens":0`}},
			fail: "cancel cut short", msg: []string{"at least 1"}},
		{name: "closed at zero", changes: []change{{"cancel.json", `"closed_at_ms":50.5`, `"closed_at_ms":0`}},
			fail: "cancel closed_at_ms > 0"},
		{name: "slot idle negative", changes: []change{{"cancel.json", `"slot_idle_after_ms":4.2`, `"slot_idle_after_ms":-1`}, {"report.json", `"cancel_idle_ms":4.2`, `"cancel_idle_ms":-1`}},
			fail: "cancel slot idle >= 0", msg: []string{"-1"}},
		{name: "cancel done", changes: []change{{"cancel.json", `"done":false`, `"done":true`}},
			fail: "cancel flags", msg: []string{"done is true"}},
		{name: "missing cancel task in log", changes: []change{{"server.log", "stop: cancel task, id_task = 7", "stop: all tasks done"}},
			fail: "cancel task in server log", msg: []string{"cancel task", "server.log"}},
		{name: "report not copied", changes: []change{{"report.json", `"first_sentence_ms":40`, `"first_sentence_ms":41`}},
			fail: "report copies sources", msg: []string{"first_sentence_ms is 41 but sentence.json first_sentence_ms is 40"}},
		{name: "report rounded", changes: []change{{"cancel.json", `"slot_idle_after_ms":4.2`, `"slot_idle_after_ms":4.200000000000001`}, {"report.json", `"cancel_idle_ms":4.2`, `"cancel_idle_ms":4.2`}},
			fail: "report copies sources", msg: []string{"cancel_idle_ms is 4.2 but cancel.json slot_idle_after_ms is 4.200000000000001"}},
		{name: "report first audio", changes: []change{{"report.json", `"first_audio_p50_ms":90`, `"first_audio_p50_ms":91`}},
			fail: "report copies sources", msg: []string{"first_audio_p50_ms is 91 but audio.json first_audio_p50 is 90"}},
		{name: "report 12 docs", changes: []change{{"report.json", `"prompt_n_12docs":1200`, `"prompt_n_12docs":400`}},
			fail: "report copies sources", msg: []string{"prompt_n_12docs is 400 but prefill.json docs 12 prompt_n is 1200"}},
		{name: "report model path", changes: []change{{"report.json", `"path":"m.gguf"`, `"path":"other.gguf"`}},
			fail: "report model matches props", msg: []string{`model.path is "other.gguf" but props.json model_path is "m.gguf"`}},
		{name: "bargein cold cache", changes: []change{{"bargein.json", `"resumed":{"prompt_n":75,"cache_n":1268`, `"resumed":{"prompt_n":1332,"cache_n":0`}},
			fail: "bargein resumed reuses the cache", msg: []string{"resumed cache_n 0"}},
		{name: "bargein slower", changes: []change{{"bargein.json", `"ttft_ms":31.2}`, `"ttft_ms":300}`}, {"report.json", `"bargein_resumed_ttft_ms":31.2`, `"bargein_resumed_ttft_ms":300`}},
			fail: "bargein resumed answers sooner", msg: []string{"resumed ttft_ms 300 is not below cold ttft_ms 252"}},
		{name: "prefix cache shrinks", changes: []change{{"prefix.json", `"cache_n":256,"first_difference":256`, `"cache_n":20,"first_difference":20`}},
			fail: "prefix cache_n grows later", msg: []string{"cache_n 20 with the line between_docs is below 29"}},
		{name: "prefix beyond the tokenizer", changes: []change{{"prefix.json", `"cache_n":451,"first_difference":451`, `"cache_n":451,"first_difference":400`}},
			fail: "prefix cache_n is the first difference", msg: []string{"before_question cache_n is 451 but the prompts share 400"}},
		{name: "spoken before ready", changes: []change{{"sentence.json", `"ready_ms":90,"start_ms":2040`, `"ready_ms":3000,"start_ms":2040`}},
			fail: "sentence pacing", msg: []string{"sentences[2] ready 3000, start 2040"}},
		{name: "report server disagrees", changes: []change{{"report.json", `"server":{"n_ctx":2048`, `"server":{"n_ctx":4096`}},
			fail: "report server matches props", msg: []string{"server.n_ctx is 4096 but props.json n_ctx is 2048"}},
		{name: "report misses synthetic", changes: []change{{"props.json", `"total_slots":1`, `"total_slots":1,"chat_template":"{#- ttftlab synthetic model ttftlab-synthetic-tiny-q4_0: scripted -#}"`}},
			fail: "report model matches props", msg: []string{`model.synthetic is false`, `"ttftlab-synthetic-tiny-q4_0"`}},
		{name: "report claims synthetic", changes: []change{{"report.json", `"synthetic":false`, `"synthetic":true`}},
			fail: "report model matches props", msg: []string{"model.synthetic is true", "lacks"}},
		{name: "report synthetic name", changes: []change{
			{"props.json", `"total_slots":1`, `"total_slots":1,"chat_template":"{#- ttftlab synthetic model ttftlab-synthetic-tiny-q4_0: scripted -#}"`},
			{"report.json", `"synthetic":false`, `"synthetic":true`}},
			fail: "report model matches props", msg: []string{`model.name is "m" but the synthetic model calls itself "ttftlab-synthetic-tiny-q4_0"`}},
		{name: "report without model", changes: []change{{"report.json", `,
 "model":{"name":"m","path":"m.gguf","synthetic":false}`, ``}},
			fail: "file report.json", msg: []string{"model is missing"}},
		{name: "missing file", remove: "cancel.json",
			fail: "file cancel.json", msg: []string{"cancel.json is missing"}},
		{name: "invalid JSON", changes: []change{{"ttft.json", `"total_p50":110}`, `"total_p50":110`}},
			fail: "file ttft.json", msg: []string{"not valid JSON"}},
		{name: "wrong field type", changes: []change{{"cancel.json", `"closed_at_ms":50.5`, `"closed_at_ms":null`}},
			fail: "file cancel.json", msg: []string{"closed_at_ms is null, want a number"}},
		{name: "idle null with server evidence", changes: []change{{"cancel.json", `"slot_idle_after_ms":4.2`, `"slot_idle_after_ms":null`}, {"report.json", `"cancel_idle_ms":4.2`, `"cancel_idle_ms":null`}},
			fail: "cancel evidence", msg: []string{"slot_idle_after_ms is null"}},
		{name: "missing field", changes: []change{{"prefill.json", `"prompt_ms":60,`, ``}},
			fail: "file prefill.json", msg: []string{"[1].prompt_ms is missing"}},
		{name: "bad chunk line", changes: []change{{"chunks.jsonl", `{"t_ms":14.25,`, `{"t_ms":"14.25",`}},
			fail: "file chunks.jsonl", msg: []string{"line 2", `t_ms is the string "14.25", want a number`}},
		{name: "bad sse data", changes: []change{{"sse_raw.txt", `data: {"choices":[{"finish_reason":"stop"`, `data: {"choices":[{"finish_reason":stop`}},
			fail: "file sse_raw.txt", msg: []string{"line 9", "not valid JSON"}},
		{name: "bad props", changes: []change{{"props.json", `"n_ctx":2048`, `"n_ctx":"2048"`}},
			fail: "file props.json", msg: []string{"default_generation_settings.n_ctx"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			files := validFiles()
			for _, ch := range c.changes {
				edit(t, files, ch.file, ch.old, ch.new)
			}
			if c.remove != "" {
				delete(files, c.remove)
			}
			onlyFails(t, files, c.fail, c.msg...)
		})
	}
}

func TestMissingFileSkipsItsChecks(t *testing.T) {
	files := validFiles()
	delete(files, "cancel.json")
	got, _, _, out := runFolder(t, files, false)
	for _, name := range []string{"cancel runs", "cancel cut short", "cancel flags", "report copies sources", "cancel task in server log"} {
		if got[name].status != "SKIP" || !strings.Contains(got[name].msg, "cancel.json") {
			t.Errorf("%s = %+v, want SKIP naming cancel.json:\n%s", name, got[name], out)
		}
	}
	if !strings.HasSuffix(out, " failed, 8 skipped\n") {
		t.Errorf("summary should count the skipped checks:\n%s", out)
	}
}

func TestServerLogFromCancelJSON(t *testing.T) {
	// Without --server-log, cancel.json's own log_cancel_task decides.
	got, _, failed, out := runFolder(t, validFiles(), false)
	if failed != 0 || got["cancel task in server log"].status != "PASS" {
		t.Errorf("log_cancel_task true without a log should pass:\n%s", out)
	}

	files := validFiles()
	edit(t, files, "cancel.json", `"log_cancel_task":true`, `"log_cancel_task":false`)
	got, _, failed, out = runFolder(t, files, false)
	if failed != 1 || got["cancel task in server log"].status != "FAIL" {
		t.Errorf("log_cancel_task false should fail the log check:\n%s", out)
	}

	files = validFiles()
	edit(t, files, "cancel.json", `"log_cancel_task":true,`, ``)
	got, _, failed, out = runFolder(t, files, false)
	if failed != 0 || got["cancel task in server log"].status != "SKIP" {
		t.Errorf("no log and no log_cancel_task should skip the log check:\n%s", out)
	}

	var buf bytes.Buffer
	Run(t.TempDir(), "/nonexistent/server.log", &buf)
	if !strings.Contains(buf.String(), "FAIL cancel task in server log: cannot read server log /nonexistent/server.log") {
		t.Errorf("an unreadable log should fail naming it:\n%s", buf.String())
	}
}

// TestServerLogOnlyThisRun: the cancel line must come after the offset at
// which this run's lines began; an earlier run's line never passes.
func TestServerLogOnlyThisRun(t *testing.T) {
	old := "srv          stop: cancel task, id_task = 3\n"
	cases := []struct {
		name, log, from, want string
	}{
		{"line after the mark", old + "srv  run 2\nsrv          stop: cancel task, id_task = 9\n", `"offset":` + fmt.Sprint(len(old)), "PASS"},
		{"only an earlier run's line", old + "srv  run 2: nothing cut\n", `"offset":` + fmt.Sprint(len(old)), "FAIL"},
		{"log shorter than the mark", old, `"offset":100000`, "FAIL"},
		{"no mark at all", old, ``, "FAIL"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			files := validFiles()
			files["server.log"] = c.log
			from := `"log_from":{"path":"server.log",` + c.from + `,"inode":0},`
			if c.from == "" {
				from = ``
			}
			edit(t, files, "cancel.json", `"log_from":{"path":"server.log","offset":0,"inode":0},`, from)
			got, _, _, out := runFolder(t, files, true)
			if got["cancel task in server log"].status != c.want {
				t.Errorf("want %s:\n%s", c.want, out)
			}
		})
	}
}

func TestOptionalFieldsMayBeAbsent(t *testing.T) {
	files := validFiles()
	edit(t, files, "cancel.json", `,"done":false,"cut":true`, ``)
	edit(t, files, "cache.json", `,"cache_n":1199`, ``)
	got, _, failed, out := runFolder(t, files, true)
	if failed != 0 {
		t.Fatalf("optional fields absent should not fail:\n%s", out)
	}
	for _, name := range []string{"cancel flags", "cache second cache_n > 0"} {
		if got[name].status != "SKIP" {
			t.Errorf("%s = %+v, want SKIP", name, got[name])
		}
	}
}

func TestMissingFolder(t *testing.T) {
	var out bytes.Buffer
	dir := filepath.Join(t.TempDir(), "nope")
	passed, failed := Run(dir, "", &out)
	if passed != 0 || failed != 1 {
		t.Errorf("Run(missing) = %d passed, %d failed, want 0, 1", passed, failed)
	}
	want := "FAIL output folder: cannot open " + dir
	if !strings.HasPrefix(out.String(), want) || !strings.HasSuffix(out.String(), "0 passed, 1 failed\n") {
		t.Errorf("output:\n%s\nwant it to start with %q and end with the summary", out.String(), want)
	}
}

func TestParseSSELineEndings(t *testing.T) {
	raw := "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\"}}]}\r\n\r\n" +
		"data: {\"choices\":[{\"delta\":\r" + "data: {\"content\":\"a\"}}]}\r\r" +
		": ping\n" +
		"data:{\"choices\":[{\"delta\":{\"content\":\"b\"}}]}\n\n" +
		"data: {\"choices\":[{\"delta\":{\"content\":\"lost\"}}]}\n"
	s, err := parseSSE([]byte(raw), "chat")
	if err != nil {
		t.Fatal(err)
	}
	if s.opening != 1 || strings.Join(s.contents, "|") != "a|b" {
		t.Errorf("roles %d, contents %q; want 1 and a|b (multi-line data joined, CR and CRLF ends, unterminated last event dropped)", s.opening, s.contents)
	}
	if !strings.Contains(s.lastLine, "lost") {
		t.Errorf("lastLine = %q", s.lastLine)
	}
}

func TestReportModelVariantsPass(t *testing.T) {
	synthetic := validFiles()
	edit(t, synthetic, "props.json", `"total_slots":1`, `"total_slots":1,"chat_template":"{#- ttftlab synthetic model ttftlab-synthetic-tiny-q4_0: scripted -#}\n{%- for m in messages -%}"`)
	edit(t, synthetic, "report.json", `"name":"m","path":"m.gguf","synthetic":false`, `"name":"ttftlab-synthetic-tiny-q4_0","path":"m.gguf","synthetic":true`)
	noPath := validFiles()
	edit(t, noPath, "props.json", `,"model_path":"m.gguf"`, ``)
	edit(t, noPath, "report.json", `"name":"m","path":"m.gguf"`, `"name":null,"path":null`)
	for name, files := range map[string]map[string]string{"synthetic": synthetic, "no model_path": noPath} {
		got, _, failed, out := runFolder(t, files, true)
		if failed != 0 || got["report model matches props"].status != "PASS" {
			t.Errorf("%s: want every check to pass:\n%s", name, out)
		}
	}
}

// TestServerLogReplacedNamesTheKeptOne: when a later server start moved
// this run's log to LOG.1, check with --server-log LOG says to use LOG.1
// or drop the flag, and LOG.1 passes. Fails before this change: the
// message named neither.
func TestServerLogReplacedNamesTheKeptOne(t *testing.T) {
	files := validFiles()
	files["server.log"] = "srv          stop: cancel task, id_task = 3\n"
	dir := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	log := filepath.Join(dir, "server.log")
	st, err := os.Stat(log)
	if err != nil {
		t.Fatal(err)
	}
	cancel := filepath.Join(dir, "cancel.json")
	data, _ := os.ReadFile(cancel)
	data = bytes.Replace(data, []byte(`"inode":0`), []byte(fmt.Sprintf(`"inode":%d`, inodeOf(st))), 1)
	if err := os.WriteFile(cancel, data, 0o644); err != nil {
		t.Fatal(err)
	}
	// A later server start: the log moves to .1, a new one takes its name.
	if err := os.Rename(log, log+".1"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(log, []byte("a later server\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	Run(dir, log, &out)
	if !strings.Contains(out.String(), "check with --server-log "+log+".1, or without --server-log") {
		t.Errorf("the stale log's failure does not name the kept one:\n%s", out.String())
	}
	out.Reset()
	if _, failed := Run(dir, log+".1", &out); failed != 0 {
		t.Errorf("%s.1 fails:\n%s", log, out.String())
	}
}
