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
