package cli

import (
	"strings"
	"testing"

	"ttftlab/internal/artifact"
)

// TestOneRunNamesUnboundedMedians: under one run's figures, a line counts
// those whose median has no interval (a step run with --repeat below 6)
// and names --repeat, which bounds them; none when every median has one.
func TestOneRunNamesUnboundedMedians(t *testing.T) {
	bounded := artifact.Figure{Name: "ttft_ms", P50CI: &[2]float64{7, 8}}
	meanOnly := artifact.Figure{Name: "cache first ttft_ms", MeanCI: &[2]float64{92, 124}}
	if got := unboundedMedians([]artifact.Figure{bounded, meanOnly, meanOnly}); !strings.HasPrefix(got, "2 figure(s) have too few samples in one run for their median's interval") ||
		!strings.Contains(got, "--repeat 6, the default, bounds each median") {
		t.Errorf("two medians without an interval: %q", got)
	}
	if got := unboundedMedians([]artifact.Figure{bounded}); got != "" {
		t.Errorf("every median bounded, yet: %q", got)
	}
}
