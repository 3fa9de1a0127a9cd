package cli

import (
	"strings"
	"testing"
	"time"
)

// TestLoadOverSaturated: a server of 1 slot holding each call 100 ms
// serves 10 calls a second. At --rate 20 each call waits 50 ms longer
// than the one before, so the lateness of the requests that ended keeps
// rising: the runner's live check ends the level early (fewer than its
// 60 calls start), load.json marks it over_saturated with the thirds that
// showed it, it does not hold, and the console says so. The record and
// the console of an over-saturated level are held by internal/load's
// TestOverSaturation, TestSweepOverSaturated and the sweep's goldens;
// a level that keeps up is steady by TestTrendSteadyTolerance.
func TestLoadOverSaturated(t *testing.T) {
	t.Parallel()
	s := &slotServer{k: 1, first: 2 * time.Millisecond, hold: 100 * time.Millisecond}
	url := s.start(t)

	out := t.TempDir()
	code, stdout, stderr := runCLI("load", "--server", url, "--rate", "20", "--requests", "60", "--docs", "0",
		"--out", out, "--no-report", "--slo", "ttft_ms<=500@p50")
	t.Logf("%s%s", stdout, stderr)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	doc := strictLoad(t, out)
	if len(doc.Levels) != 1 {
		t.Fatalf("%d levels", len(doc.Levels))
	}
	lv := doc.Levels[0]
	o := lv.OverSaturated
	if o == nil || !o.Rising || lv.SLOMet || lv.Summary.Calls >= 60 || len(o.Thirds) != 3 {
		t.Fatalf("level %+v (over_saturated %+v, %d calls): want it ended early, over-saturated, not held", lv, o, lv.Summary.Calls)
	}
	if !strings.Contains(stdout, "over-saturated: queue_ms + ttft_ms kept rising") || doc.Capacity != nil {
		t.Errorf("the console does not say the level was over-saturated, or it held (capacity %+v)", doc.Capacity)
	}
}

// TestLoadWarmup: --warmup 300ms marks exactly the requests due in the
// level's first 300 ms as warm-up (requests.jsonl), and the summary
// leaves them out. What warm-up does to a level's record (left out of
// the summary, the verdicts and the steady trend) is internal/load's
// TestSteadyLeavesOutWarmup.
func TestLoadWarmup(t *testing.T) {
	t.Parallel()
	s := &slotServer{k: 4, first: 5 * time.Millisecond, hold: 40 * time.Millisecond}
	url := s.start(t)
	out := t.TempDir()
	code, stdout, stderr := runCLI("load", "--server", url, "--concurrency", "2", "--requests", "30", "--docs", "0",
		"--warmup", "300ms", "--out", out, "--no-report", "--slo", "ttft_ms<=5000@p50")
	t.Logf("%s%s", stdout, stderr)
	doc := strictLoad(t, out)
	rows, err := loadRows(out + "/requests.jsonl")
	if code != 0 || err != nil || doc.Settings.WarmupMs != 300 {
		t.Fatalf("exit %d, %v, settings %+v", code, err, doc.Settings)
	}
	warm := 0
	for _, r := range rows {
		if r.ScheduledMs == nil {
			t.Fatalf("row %+v has no scheduled_ms", r)
		}
		if due := *r.ScheduledMs < 300; due != r.Warmup {
			t.Errorf("row %d due at %g ms: warmup %v", r.Index, *r.ScheduledMs, r.Warmup)
		}
		if r.Warmup {
			warm++
		}
	}
	if warm == 0 || warm == len(rows) || doc.Levels[0].Summary.Warmup != warm || doc.Levels[0].Summary.Requests != len(rows)-warm {
		t.Errorf("%d of %d rows warm-up; summary %+v", warm, len(rows), doc.Levels[0].Summary.ManySummary)
	}
}
