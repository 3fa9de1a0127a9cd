package check

import (
	"fmt"
	"strings"
	"testing"
)

// cacheRun is one repetition of cache.json with these second and changed
// prompt_n and second ttft_ms.
func cacheRun(second, changed int, secondMs float64) string {
	return fmt.Sprintf(`{"first":{"prompt_n":1200,"ttft_ms":210,"cache_n":0},"second":{"prompt_n":%d,"ttft_ms":%v,"cache_n":1199},`+
		`"changed_prefix":{"prompt_n":%d,"ttft_ms":205,"cache_n":0}}`, second, secondMs, changed)
}

// prefixRun is one repetition of prefix.json with this between_docs
// cache_n and before_question first_difference.
func prefixRun(line string, between, lastDiff int) string {
	return fmt.Sprintf(`{"changing_line":%q,"positions":[
 {"position":"front","at_char":37,"prompt_n":473,"cache_n":29,"first_difference":29,"ttft_ms":66},
 {"position":"between_docs","at_char":385,"prompt_n":246,"cache_n":%d,"first_difference":%d,"ttft_ms":29.5},
 {"position":"before_question","at_char":693,"prompt_n":50,"cache_n":451,"first_difference":%d,"ttft_ms":14.8}]}`, line, between, between, lastDiff)
}

// repeatedFiles is validFiles with cache.json and prefix.json of three
// runs each, the first at the top level, and report.json's medians.
func repeatedFiles(cacheRuns, prefixRuns []string) map[string]string {
	return filesWith(map[string]string{
		"cache.json": repeatedJSON(cacheRuns, `"docs":8`,
			`[{"repetition":2,"reason":"first found 900 of its 1200 prompt tokens in the cache: it was not cold"}]`),
		"prefix.json": repeatedJSON(prefixRuns, `"docs":2,"advice":"..."`, ""),
	})
}

func goodCacheRuns() []string {
	return []string{cacheRun(1, 1195, 15), cacheRun(1, 1196, 14), cacheRun(2, 1195, 16)}
}

func goodPrefixRuns() []string {
	return []string{prefixRun("Current time: 14:05.", 256, 451), prefixRun("Current time: 14:07.", 256, 451),
		prefixRun("Current time: 14:09.", 257, 451)}
}

func TestRepeatedCacheAndPrefixPass(t *testing.T) {
	got, _, failed, out := runFolder(t, repeatedFiles(goodCacheRuns(), goodPrefixRuns()), true)
	if failed != 0 {
		t.Fatalf("%d checks failed on a valid repeated folder:\n%s", failed, out)
	}
	wantOutcomes(t, got, "PASS", map[string]string{
		"cache runs":                             "3 runs, the first at the top level, 1 set aside",
		"cache second faster":                    "ttft 210 ms, then 15 ms (run 1; holds in all 3)",
		"prefix runs":                            "3 runs, the first at the top level",
		"prefix cache_n is the first difference": "equal at 3 places (run 1; holds in all 3)",
		"report copies sources":                  "13 fields",
	}, out)
}

// TestABadRepetitionFails: a rule about one measurement fails on a
// repetition other than the first, and names it.
func TestABadRepetitionFails(t *testing.T) {
	cases := []struct {
		name           string
		cache, prefix  []string
		fail, mentions string
	}{
		{"second recomputed", []string{cacheRun(1, 1195, 15), cacheRun(200, 1195, 14), cacheRun(1, 1195, 16)}, goodPrefixRuns(),
			"cache second reuses prefix", "repetition 2 of 3: second.prompt_n 200 is above 10% of first.prompt_n 1200"},
		{"second slower", []string{cacheRun(1, 1195, 15), cacheRun(1, 1195, 14), cacheRun(1, 1195, 230)}, goodPrefixRuns(),
			"cache second faster", "repetition 3 of 3: second.ttft_ms 230 is not below first.ttft_ms 210"},
		{"changed prefix reused", []string{cacheRun(1, 1195, 15), cacheRun(1, 600, 14), cacheRun(1, 1195, 16)}, goodPrefixRuns(),
			"cache changed prefix recomputes", "repetition 2 of 3: changed_prefix.prompt_n 600 is below 90% of first.prompt_n 1200"},
		{"prefix cache shrinks", goodCacheRuns(), []string{prefixRun("a", 256, 451), prefixRun("b", 256, 451), prefixRun("c", 20, 451)},
			"prefix cache_n grows later", "repetition 3 of 3: cache_n 20 with the line between_docs is below 29"},
		{"prefix beyond the tokenizer", goodCacheRuns(), []string{prefixRun("a", 256, 451), prefixRun("b", 256, 400), prefixRun("c", 256, 451)},
			"prefix cache_n is the first difference", "repetition 2 of 3: with the line before_question cache_n is 451 but the prompts share 400"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, _, _, out := runFolder(t, repeatedFiles(tc.cache, tc.prefix), true)
			if o := got[tc.fail]; o.status != "FAIL" || !strings.Contains(o.msg, tc.mentions) {
				t.Errorf("%s = %+v, want FAIL naming %q:\n%s", tc.fail, o, tc.mentions, out)
			}
			for name, o := range got {
				if o.status == "FAIL" && name != tc.fail {
					t.Errorf("%s failed too: %s", name, o.msg)
				}
			}
		})
	}
}

// TestRunsHoldRepeat: a file holds as many runs as its repeat, the first
// at its top level.
func TestRunsHoldRepeat(t *testing.T) {
	files := repeatedFiles(goodCacheRuns(), goodPrefixRuns())
	edit(t, files, "cache.json", `"repeat":3`, `"repeat":4`)
	edit(t, files, "prefix.json", `"changing_line":"Current time: 14:05.","positions"`, `"changing_line":"Current time: 14:03.","positions"`)
	got, _, _, out := runFolder(t, files, true)
	wantOutcomes(t, got, "FAIL", map[string]string{
		"cache runs":  "cache.json has 3 runs, want 4 (its repeat)",
		"prefix runs": `prefix.json's top level is not its first run, which it holds for readers of one measurement: changing_line "Current time: 14:03.", runs[0] "Current time: 14:05."`,
	}, out)
}

// TestReportCopiesMediansOfRuns: report.json holds the median over the
// runs, to the microsecond for an even count, and a value off it fails.
func TestReportCopiesMediansOfRuns(t *testing.T) {
	files := repeatedFiles([]string{cacheRun(1, 1195, 15), cacheRun(1, 1195, 14.001)}, goodPrefixRuns())
	edit(t, files, "report.json", `"cache_ttft_ms":15`, `"cache_ttft_ms":14.501`)
	_, _, failed, out := runFolder(t, files, true)
	if failed != 0 {
		t.Fatalf("the median of an even count written to the microsecond fails:\n%s", out)
	}
	edit(t, files, "report.json", `"cache_ttft_ms":14.501`, `"cache_ttft_ms":15`)
	got, _, _, _ := runFolder(t, files, true)
	if o := got["report copies sources"]; o.status != "FAIL" || !strings.Contains(o.msg, "cache_ttft_ms is 15 but the median of cache.json second.ttft_ms over its 2 runs is 14.50") {
		t.Errorf("report copies sources = %+v, want the first run's value refused", o)
	}
}
