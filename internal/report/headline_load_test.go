package report

import (
	"strings"
	"testing"

	"ttftlab/internal/artifact"
	"ttftlab/internal/rundir"
)

// TestLoadHeadlineMarksThinTailsAndAStop: an SLO's p95 over 6 requests is
// marked "*" in the headline as on the console (it showed "131 ms ✓"
// beside tables saying "too few samples"); a run stopped in its first
// level says so instead of "no level met every SLO".
func TestLoadHeadlineMarksThinTailsAndAStop(t *testing.T) {
	v1, v2 := 131.0, 90.0
	l := &rundir.Load{
		Settings: artifact.LoadSettings{Mode: "concurrency", SLO: []artifact.SLO{{Metric: "ttft_ms", Percentile: 95, LimitMs: 800}}},
		Levels: []artifact.LoadLevel{
			{Level: 1, SLO: []artifact.SLOVerdict{{Metric: "ttft_ms", Percentile: 95, LimitMs: 800, ValueMs: &v1, N: 6, Met: true}}},
			{Level: 2, SLO: []artifact.SLOVerdict{{Metric: "ttft_ms", Percentile: 95, LimitMs: 800, ValueMs: &v2, N: 40, Met: true}},
				Interrupted: true},
		},
	}
	hs := loadHeadline(l)
	if len(hs) < 2 {
		t.Fatalf("headlines %+v", hs)
	}
	slo := hs[1]
	if !strings.Contains(slo.Value, "1: 131 ms* ✓") || !strings.Contains(slo.Value, "2: 90.0 ms (interrupted)") ||
		!strings.Contains(slo.Note, "* fewer requests than a p95 needs (20)") {
		t.Errorf("SLO headline %q / %q", slo.Value, slo.Note)
	}
	if c := hs[0]; c.Value != "none" || !strings.Contains(c.Note, "the run was stopped in concurrency 2") {
		t.Errorf("capacity headline %+v", c)
	}
	l.Levels = l.Levels[1:]
	if c := loadHeadline(l)[0]; c.Value != "unknown" || c.Note != "the run was stopped in concurrency 2, before any level ended" {
		t.Errorf("capacity headline of a run stopped in its first level: %+v", c)
	}
}
