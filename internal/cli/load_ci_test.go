package cli

import (
	"fmt"
	"strings"
	"testing"

	"ttftlab/internal/loadtext"
)

// TestLoadPrintsPercentileIntervals: each level prints its ttft and first
// sentence p50, p95 and p99 with their 95 % intervals, the same intervals
// load.json holds beside each percentile; a percentile that 12 requests
// cannot bound (p95 needs 72, p99 368) says "too few samples" and is null
// in load.json. Fails before this change: no interval anywhere.
func TestLoadPrintsPercentileIntervals(t *testing.T) {
	_, model := needLlama(t)
	port := serverTestEnv(t)
	out := t.TempDir()
	code, stdout, stderr := runCLI("load", "--server", "http://127.0.0.1:"+itoa(port), "--model", model,
		"--concurrency", "1", "--requests", "12", "--max-tokens", "8", "--docs", "0",
		"--out", out, "--slo", "ttft_ms<=60000@p50", "--no-report")
	t.Logf("%s%s", stdout, stderr)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	doc := strictLoad(t, out)
	if len(doc.Levels) != 1 {
		t.Fatalf("%d levels, want 1", len(doc.Levels))
	}
	d := doc.Levels[0].Summary.TTFTMs
	if d.N != 12 || d.P50 == nil || d.P50CI == nil || d.P95CI != nil || d.P99CI != nil {
		t.Fatalf("ttft_ms over %d: p50 %v, p50_ci %v, p95_ci %v, p99_ci %v; want a p50 interval and null p95/p99 intervals over 12",
			d.N, d.P50, d.P50CI, d.P95CI, d.P99CI)
	}
	if *d.P50 < d.P50CI[0] || *d.P50 > d.P50CI[1] {
		t.Errorf("p50 %v outside its interval %v", *d.P50, *d.P50CI)
	}
	want := ciLine(d)
	found := false
	for _, line := range strings.Split(stdout, "\n") {
		if f := strings.Fields(line); len(f) > 0 && f[0] == "ttft" {
			found = true
			if line != want {
				t.Errorf("console %q, want %q", line, want)
			}
		}
	}
	if !found {
		t.Errorf("no ttft interval line on the console")
	}
	// The SLO's value, the one its verdict was judged on, is on the
	// console too (a first-audio SLO's never was), with its interval.
	if v := doc.Levels[0].SLO[0]; v.ValueMs == nil || v.CIMs == nil || v.Side != "below" || !strings.Contains(stdout,
		fmt.Sprintf("\n  SLO ttft_ms p50 %s ms %s (limit 60000 ms, n=12): met\n", consoleMs(*v.ValueMs), loadtext.Bounds(v.ValueMs, *v.CIMs))) {
		t.Errorf("the console lacks the SLO's value %v with its interval %v (%s)", v.ValueMs, v.CIMs, v.Side)
	}
}
