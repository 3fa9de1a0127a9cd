package cli

import (
	"strings"
	"testing"
	"time"
)

// TestLoadOverSaturated: a server of 1 slot holding each call 100 ms
// serves 10 calls a second. At --rate 20 each call waits 50 ms longer
// than the one before, so the lateness of the requests that ended keeps
// rising: the level ends early (fewer than its 60 calls start), load.json
// marks it over_saturated with the thirds that showed it, it does not
// hold, and the console says so. At --rate 5 the same server keeps up:
// every call runs, no over_saturated, and the steady check is known and
// steady.
// Fails before this change: an open loop faster than the server ran
// every call and said nothing of it.
func TestLoadOverSaturated(t *testing.T) {
	serverTestEnv(t)
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
	for i := 1; i < 3; i++ {
		a, b := o.Thirds[i-1], o.Thirds[i]
		if a.CIMs[1] == nil || b.CIMs[0] == nil || *b.CIMs[0] <= *a.CIMs[1] {
			t.Errorf("third %d %+v is not above third %d %+v", i+1, b, i, a)
		}
	}
	if !strings.Contains(stdout, "over-saturated: queue_ms + ttft_ms kept rising") || doc.Capacity != nil {
		t.Errorf("the console does not say the level was over-saturated, or it held (capacity %+v)", doc.Capacity)
	}

	out = t.TempDir()
	code, stdout, stderr = runCLI("load", "--server", url, "--rate", "5", "--requests", "24", "--docs", "0",
		"--out", out, "--no-report", "--slo", "ttft_ms<=500@p50")
	t.Logf("%s%s", stdout, stderr)
	doc = strictLoad(t, out)
	lv = doc.Levels[0]
	if code != 0 || lv.OverSaturated != nil || lv.Summary.Calls != 24 || !lv.SLOMet || lv.Steady == nil || !lv.Steady.Known || !lv.Steady.Steady {
		t.Errorf("at 5 calls/s: exit %d, level %+v (steady %+v): want every call, held, steady", code, lv, lv.Steady)
	}
	if strings.Contains(stdout, "over-saturated") || strings.Contains(stdout, "not steady") {
		t.Errorf("at 5 calls/s the console warns")
	}
}

// TestLoadSteadyState: a server whose first token comes 6 ms later with
// each request it serves (5 ms to about 180 ms over 30 requests, 2 calls
// at once) is not steady: the first and last thirds' median intervals do
// not overlap and differ by more than 10 % of the 500 ms limit, load.json's
// level says steady false, the console warns.
// The same server without the slowdown is steady and the console is
// quiet.
// Fails before this change: a level never checked its steady state.
func TestLoadSteadyState(t *testing.T) {
	serverTestEnv(t)
	for _, c := range []struct {
		slower time.Duration
		steady bool
	}{{6 * time.Millisecond, false}, {0, true}} {
		s := &slotServer{k: 4, first: 5 * time.Millisecond, hold: 10 * time.Millisecond, slower: c.slower}
		url := s.start(t)
		out := t.TempDir()
		code, stdout, stderr := runCLI("load", "--server", url, "--concurrency", "2", "--requests", "30", "--docs", "0",
			"--out", out, "--no-report", "--slo", "ttft_ms<=500@p50")
		t.Logf("%s%s", stdout, stderr)
		if code != 0 {
			t.Fatalf("exit %d", code)
		}
		lv := strictLoad(t, out).Levels[0]
		st := lv.Steady
		if st == nil || !st.Known || st.Steady != c.steady || len(st.Thirds) != 3 || st.Thirds[0].N != 10 {
			t.Fatalf("slower %v: steady %+v, want known and steady %v over thirds of 10", c.slower, st, c.steady)
		}
		a, z := st.Thirds[0], st.Thirds[2]
		if apart := *a.CIMs[1] < *z.CIMs[0] || *z.CIMs[1] < *a.CIMs[0]; !c.steady && (!apart || *z.P50Ms-*a.P50Ms <= 50) {
			t.Errorf("thirds %+v and %+v: apart %v, yet not steady", a, z, apart)
		}
		if warned := strings.Contains(stdout, "not steady: queue_ms + ttft_ms moved over the level"); warned == c.steady {
			t.Errorf("slower %v: the console warned %v", c.slower, warned)
		}
	}
}

// TestLoadWarmup: --warmup 15 leaves out the first 15 requests of 45,
// the 15 a cold server answers slowly (150 ms against 5 ms): without it
// the level's first third is all cold and it is not steady, with it it
// is. --warmup 300ms marks exactly the
// requests due in the level's first 300 ms as warm-up (requests.jsonl),
// and the summary leaves them out.
// Fails before this change: --warmup took no duration, and no level
// checked its steady state.
func TestLoadWarmup(t *testing.T) {
	serverTestEnv(t)
	for _, c := range []struct {
		warmup string
		steady bool
	}{{"0", false}, {"15", true}} {
		s := &slotServer{k: 4, first: 5 * time.Millisecond, hold: 10 * time.Millisecond, cold: 15, coldFirst: 150 * time.Millisecond}
		url := s.start(t)
		out := t.TempDir()
		code, stdout, stderr := runCLI("load", "--server", url, "--concurrency", "2", "--requests", "45", "--docs", "0",
			"--warmup", c.warmup, "--out", out, "--no-report", "--slo", "ttft_ms<=500@p50")
		t.Logf("%s%s", stdout, stderr)
		lv := strictLoad(t, out).Levels[0]
		if code != 0 || lv.Steady == nil || !lv.Steady.Known || lv.Steady.Steady != c.steady {
			t.Errorf("--warmup %s: exit %d, steady %+v, want steady %v", c.warmup, code, lv.Steady, c.steady)
		}
	}

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
