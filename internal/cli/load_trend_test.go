package cli

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
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
	left := 0
	if w := doc.Levels[0].SteadyWindow; w != nil {
		left = w.LeftOut
	}
	if warm == 0 || warm == len(rows) || doc.Levels[0].Summary.Warmup != warm || doc.Levels[0].Summary.Requests+left != len(rows)-warm {
		t.Errorf("%d of %d rows warm-up; summary %+v", warm, len(rows), doc.Levels[0].Summary.ManySummary)
	}
}

// TestLoadFindsItsWarmup: a server slow for its first 12 requests (a
// cold cache: 100 ms to the first token, then 2 ms; each slow answer in
// three chunks, a fast one in two, so the rows tell them apart without
// timing them) at one call at once, no --warmup: the level's steady
// window starts after the slow requests, within the tolerance of
// docs/statistics.md (two batches of 5), the requests before it are left
// out of its figures and counted, the console says so, and check holds
// the rows to the level's counts. The rule on
// synthetic series is internal/load's TestMSERFindsAStep.
func TestLoadFindsItsWarmup(t *testing.T) {
	t.Parallel()
	const cold = 12
	var served atomic.Int64
	url := fakeLlama(t, "cold", 1, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		slow := served.Add(1) <= cold
		if slow {
			time.Sleep(100 * time.Millisecond)
		} else {
			time.Sleep(2 * time.Millisecond)
		}
		io.WriteString(w, chatChunk("Yes, we open on Saturday."))
		if slow {
			io.WriteString(w, chatChunk(" From nine."))
		}
		io.WriteString(w, chatChunk(" Bye.")+chatEnd)
	})
	out := t.TempDir()
	code, stdout, stderr := runCLI("load", "--server", url, "--concurrency", "1", "--requests", "40", "--docs", "0",
		"--seed", "7", "--out", out, "--no-report", "--slo", "ttft_ms<=5000@p50")
	t.Logf("%s%s", stdout, stderr)
	doc := strictLoad(t, out)
	rows, err := loadRows(out + "/requests.jsonl")
	if code != 0 || err != nil || len(doc.Levels) != 1 || len(rows) != 40 {
		t.Fatalf("exit %d, %v, %d levels, %d rows", code, err, len(doc.Levels), len(rows))
	}
	lv := doc.Levels[0]
	w := lv.SteadyWindow
	if w == nil || !w.Known || w.FromIndex == nil {
		t.Fatalf("steady window %+v, want one found", w)
	}
	slow := 0
	for _, r := range rows {
		if r.Chunks == 3 {
			slow++
			if r.Index >= *w.FromIndex {
				t.Errorf("slow request %d is in the window from index %d", r.Index, *w.FromIndex)
			}
		}
	}
	if slow != cold || w.FromRequest-1 < slow || w.FromRequest-1 >= slow+10 || w.LeftOut != w.FromRequest-1 {
		t.Errorf("%d slow requests; window %+v: want it from after them, within 10, every request before it left out", slow, w)
	}
	if s := lv.Summary; s.Requests != 40-w.LeftOut || lv.SLO[0].N != s.Requests || s.TTFTMs.N != s.Requests {
		t.Errorf("summary of %d requests (ttft over %d), SLO over %d: want the %d after the window", s.Requests, s.TTFTMs.N, lv.SLO[0].N, 40-w.LeftOut)
	}
	if want := fmt.Sprintf("  steady from request %d (MSER-5 on ttft_ms): the %d before it left out", w.FromRequest, w.LeftOut); !strings.Contains(stdout, want) {
		t.Errorf("the console does not say %q", want)
	}
	// check counts the transient beside the level's requests.
	if code, checkOut, checkErr := runCLI("check", out); code != 0 {
		t.Errorf("check exit %d: %s%s", code, checkOut, checkErr)
	}
}
