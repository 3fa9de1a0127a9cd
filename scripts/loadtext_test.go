package scripts_test

import (
	"bytes"
	"context"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"ttftlab/runtime"
	"ttftlab/scripts"
)

// runText runs code beside loadtext.lua (as load.lua and merge.lua run
// it) and returns what it printed.
func runText(t *testing.T, code string) string {
	t.Helper()
	text, err := fs.ReadFile(scripts.FS, "loadtext.lua")
	if err != nil {
		t.Fatal(err)
	}
	fsys := fstest.MapFS{"loadtext.lua": {Data: text}, "t.lua": {Data: []byte(code)}}
	var out bytes.Buffer
	vm, err := runtime.New(context.Background(), runtime.Config{Out: t.TempDir(), Stdout: &out, Stderr: &out})
	if err != nil {
		t.Fatal(err)
	}
	defer vm.Close()
	if err := vm.RunFS(fsys, "t.lua"); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	return out.String()
}

// TestCapacityLineSaysWhichLevelsHeld: with the highest level held, the
// capacity line says "every level held" only when every level did, and
// names a lower level that missed otherwise (a sweep that held 2 but
// missed 1 said "every level held").
func TestCapacityLineSaysWhichLevelsHeld(t *testing.T) {
	got := runText(t, `
local text = dofile("loadtext.lua")
local function row(level, met, v)
  return { level = level, slo_met = met, summary = { requests = 4, failed = 0 },
    slo = { { metric = "ttft_ms", percentile = 95, value_ms = v, limit_ms = 100, failed = 0, missing = 0, n = 4 } } }
end
local a, b, c = row(1, false, 120), row(2, true, 80), row(4, true, 90)
print(text.capacity_line("concurrency", { a, b, c }, c, nil))
print(text.capacity_line("concurrency", { b, c }, c, nil))
print(text.capacity_line("concurrency", { b, c, row(8, false, 130) }, c, row(8, false, 130)))
print(text.capacity_line("rate", { a }, nil, nil))
local over = row(8, false, 30)
over.over_saturated = { metric = "queue_ms + ttft_ms", thirds = {} }
print(text.capacity_line("concurrency", { b, c, over }, c, over))
local stopped = row(1, false, 30)
stopped.interrupted = true
print(text.capacity_line("concurrency", { stopped }, nil, nil))
`)
	want := []string{
		"capacity: 4 calls at once (ttft_ms p95 90 ms <= 100 ms); the highest level held, but 1 below it did not: rerun it, or try higher ones",
		"capacity: 4 calls at once (ttft_ms p95 90 ms <= 100 ms); every level held: try higher ones",
		"capacity: 4 calls at once (ttft_ms p95 90 ms <= 100 ms); at 8: 130 ms",
		"capacity: none: already 1 calls/s misses the SLO",
		"capacity: 4 calls at once (ttft_ms p95 90 ms <= 100 ms); at 8: 30 ms (over-saturated: its lateness kept rising)",
		"capacity: none: already 1 call at once misses the SLO (interrupted: the run was stopped in it)",
	}
	if lines := strings.Split(strings.TrimSpace(got), "\n"); strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", got, strings.Join(want, "\n"))
	}
}

// TestBoundsSayWhatIsUnbounded: an interval's missing upper bound is
// "inf"; a missing lower bound under a finite value is "0" (too few
// samples to bound it from below: it printed "[inf, inf]" for the p50 of
// 4 requests), and "inf" under a late value.
func TestBoundsSayWhatIsUnbounded(t *testing.T) {
	got := runText(t, `
local text = dofile("loadtext.lua")
print(text.bounds(21, { 12.5, 30 }))
print(text.bounds(21, { json_null, json_null }))
print(text.bounds(21, { 3.25, json_null }))
print(text.bounds(json_null, { json_null, json_null }))
`)
	want := "[12, 30]\n[0, inf]\n[3.2, inf]\n[inf, inf]\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestNotSteadyHint: a level whose lateness moved gets "try --warmup",
// unless a third's median is late (failed requests: a server that died),
// which a warm-up would not mend.
func TestNotSteadyHint(t *testing.T) {
	got := runText(t, `
local text = dofile("loadtext.lua")
local function row(last)
  return { level = 1, slo_met = false, goodput = json_null,
    summary = { calls = 3, ok = 3, requests = 3, failed = 0, tokens_per_s = 1,
      ttft_ms = { n = 0 }, first_sentence_ms = { n = 0 } },
    steady = { metric = "queue_ms + ttft_ms", known = true, steady = false, thirds = {
      { p50_ms = 10, ci_ms = { 8, 12 } }, { p50_ms = 20, ci_ms = { 18, 22 } }, { p50_ms = last, ci_ms = { json_null, json_null } } } } }
end
for _, r in ipairs({ row(90), row(json_null) }) do
  local lines = text.level_lines("1", r)
  print(lines[#lines])
end
`)
	want := "  not steady: queue_ms + ttft_ms moved over the level (p50 of each third 10 [8.0, 12] -> 20 [18, 22] -> 90 [0, inf] ms): its first and last thirds disagree; try --warmup\n" +
		"  not steady: queue_ms + ttft_ms moved over the level (p50 of each third 10 [8.0, 12] -> 20 [18, 22] -> inf [inf, inf] ms): its first and last thirds disagree; a third is mostly requests that failed or never reached the figure (inf)\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestNoContentSaid: requests that ended without an error but streamed
// nothing (a server that sends usage alone) are said under the row; the
// row read "6/6" with no figure and nothing else.
func TestNoContentSaid(t *testing.T) {
	got := runText(t, `
local text = dofile("loadtext.lua")
local row = { level = 2, slo_met = false, goodput = 0,
  summary = { calls = 6, ok = 6, requests = 6, failed = 0, tokens_per_s = 0, ttft_ms = { n = 0 }, first_sentence_ms = { n = 0 } } }
for _, l in ipairs(text.level_lines("2", row)) do print(l) end
`)
	if want := "  6 of the 6 requests that ended without an error streamed no content (no first token): the server answered with nothing to time\n"; !strings.Contains(got, want) {
		t.Errorf("got\n%s\nwant a line %q", got, want)
	}
}

// TestStarAgreesWithTheIntervals: a percentile the interval line calls
// too few samples is starred in the row above it, and one it bounds is
// not: 40 requests support a p95 (20 would) but cannot bound it. Fails
// before this change: the row read "111/ 197/ 205*", p95 unstarred above
// "p95 too few samples".
func TestStarAgreesWithTheIntervals(t *testing.T) {
	got := runText(t, `
local text = dofile("loadtext.lua")
local d = { n = 40, p50 = 111, p95 = 197, p99 = 205, p50_ci = { 100, 120 }, p95_ci = json_null, p99_ci = json_null }
local lines = text.level_lines("4", { level = 4, slo_met = true, goodput = 1,
  summary = { calls = 40, ok = 40, requests = 40, failed = 0, tokens_per_s = 1, ttft_ms = d, first_sentence_ms = { n = 0 } } })
print(lines[1])
print(lines[2])
`)
	if !strings.Contains(got, "111/  197*/  205*") || strings.Contains(got, "111*") || !strings.Contains(got, "p95 too few samples") {
		t.Errorf("got\n%s", got)
	}
}

// TestFailuresMissALevelWhoseSLOsHeld: a level whose every SLO held but
// some of whose requests failed (a speech server that died mid-level)
// misses, and its lines say why: the row read "missed" under an SLO line
// saying "met", and the capacity line said it "misses the SLO".
func TestFailuresMissALevelWhoseSLOsHeld(t *testing.T) {
	got := runText(t, `
local text = dofile("loadtext.lua")
local function row(level, failed)
  return { level = level, slo_met = failed == 0, goodput = (60 - failed) / 60,
    summary = { calls = 60, ok = 60 - failed, requests = 60, failed = failed, tokens_per_s = 1, ttft_ms = { n = 0 }, first_sentence_ms = { n = 0 } },
    slo = { { metric = "first_audio_ms", percentile = 50, value_ms = 106, limit_ms = 500, failed = failed, missing = 0, n = 60, met = true } } }
end
for _, l in ipairs(text.level_lines("1", row(1, 25))) do print(l) end
print(text.capacity_line("concurrency", { row(1, 25) }, nil, nil))
print(text.capacity_line("concurrency", { row(1, 0), row(2, 3) }, row(1, 0), row(2, 3)))
`)
	for _, want := range []string{
		"  SLO first_audio_ms p50 106 ms (limit 500 ms, n=60): met\n  missed: every SLO held, but 25 of 60 requests failed; a level holds only when none fails\n",
		"capacity: none: already 1 call at once has failed requests (25 of 60)\n",
		"capacity: 1 call at once (first_audio_ms p50 106 ms <= 500 ms); at 2: 106 ms, but 3 of 60 requests failed\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("got\n%s\nwant\n%s", got, want)
		}
	}
}

// TestSLOStarAgreesWithTheTable: the SLO line's value is starred like the
// row and the interval line above it: 20 requests give a p95 but cannot
// bound it, so "p95 too few samples" above "SLO ... p95 108 ms" must star
// it. Fails before this change (starred below 20 requests only).
func TestSLOStarAgreesWithTheTable(t *testing.T) {
	got := runText(t, `
local text = dofile("loadtext.lua")
local d = { n = 20, p50 = 85, p95 = 108, p99 = 110, p50_ci = { 82, 94 }, p95_ci = json_null, p99_ci = json_null }
local lines = text.level_lines("2", { level = 2, slo_met = true, goodput = 1,
  slo = { { metric = "first_sentence_ms", percentile = 95, limit_ms = 800, value_ms = 108, n = 20, failed = 0, missing = 0, met = true } },
  summary = { calls = 20, ok = 20, requests = 20, failed = 0, tokens_per_s = 1, ttft_ms = { n = 0 }, first_sentence_ms = d } })
for _, l in ipairs(lines) do print(l) end
`)
	if !strings.Contains(got, "108*/") || !strings.Contains(got, "p95 too few samples") || !strings.Contains(got, "p95 108 ms* (limit 800 ms, n=20)") {
		t.Errorf("got\n%s", got)
	}
}
