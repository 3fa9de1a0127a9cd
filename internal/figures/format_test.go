package figures

import (
	"ttftlab/internal/artifact"

	"math"
	"strings"
	"testing"
)

// TestLine: a figure pooled over 2 runs of 5 prints p50 with its
// interval, p95 as "too few samples" (10 samples cannot bound it), the
// mean with its t-interval over the runs, and n; one run of 5 says "too
// few samples" for p50 too and takes its mean over the samples; a figure
// with failed samples counts them. Fails before this change: no
// formatter.
func TestLine(t *testing.T) {
	fs := Pool([][]Sample{
		{{Name: "ttft_ms", Unit: "ms", Values: []float64{10, 11, 12, 13, 14}}},
		{{Name: "ttft_ms", Unit: "ms", Values: []float64{20, 21, 22, 23, 24}}},
	})
	got := Line(fs[0], 10)
	want := "ttft_ms     p50 17 ms [11, 23]   p95 too few samples   mean 17 ms [" + artifact.ShowMs(fs[0].MeanCI[0]) + ", " +
		artifact.ShowMs(fs[0].MeanCI[1]) + "] over 2 runs   n 10"
	if got != want {
		t.Fatalf("line\n%q, want\n%q", got, want)
	}
	if fs[0].MeanCI[0] >= 17 || fs[0].MeanCI[1] <= 17 {
		t.Fatalf("mean_ci %v does not contain the mean", fs[0].MeanCI)
	}

	one := Pool([][]Sample{{{Name: "ttft_ms", Unit: "ms", Values: []float64{5.25, 6, 7, 8, 9}}}})
	got = Line(one[0], 0)
	if !strings.HasPrefix(got, "ttft_ms  p50 too few samples   p95 too few samples   mean 7.0 ms [") ||
		!strings.HasSuffix(got, "] over 5 samples   n 5") {
		t.Fatalf("one run of 5: %q", got)
	}

	// 2 of 10 failed: the upper rank of p50's interval (9) is a failure.
	inf := math.Inf(1)
	failed := Pool([][]Sample{{{Name: "level 2 ttft_ms", Unit: "ms", Values: []float64{1, 2, 3, 4, 5, 6, 7, 8, inf, inf}}}})
	got = Line(failed[0], 0)
	want = "level 2 ttft_ms  p50 5.5 ms [up to a failure]   p95 failed   mean none (a sample failed)   n 10   2 failed"
	if got != want {
		t.Fatalf("failed samples\n%q, want\n%q", got, want)
	}

	table := Table(append(fs, failed...))
	lines := strings.Split(strings.TrimSuffix(table, "\n"), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "ttft_ms          p50") || !strings.HasPrefix(lines[1], "level 2 ttft_ms  p50") {
		t.Fatalf("table:\n%s", table)
	}
}

// TestBounded: of one run's figures, Bounded prints only those with an
// interval, each with only the cells that hold one (no "too few
// samples"), and counts the figures it left out. Fails before this
// change: the console printed a line of "too few samples" for each.
func TestBounded(t *testing.T) {
	var run []Sample
	run = append(run, Sample{Name: "ttft_ms", Unit: "ms", Values: []float64{5.25, 6, 7, 8, 9}})
	for _, name := range []string{"prefill prompt_n", "cache ttft_ms", "cancel idle_ms"} {
		run = append(run, Sample{Name: name, Unit: "ms", Values: []float64{3}})
	}
	table, left := Bounded(Pool([][]Sample{run}))
	if left != 3 {
		t.Errorf("left out %d figures, want 3", left)
	}
	if strings.Contains(table, "too few samples") || strings.Count(table, "\n") != 1 ||
		!strings.HasPrefix(table, "ttft_ms  mean 7.0 ms [") || !strings.HasSuffix(table, "] over 5 samples   n 5\n") {
		t.Errorf("table:\n%s", table)
	}
	// A figure whose percentiles fall on failed samples has no interval,
	// but it is a result, not "too few samples": it stays, saying so.
	failed := append(run[1:len(run):len(run)], Sample{Name: "audio first_audio_ms", Unit: "ms", Values: []float64{4, math.Inf(1), math.Inf(1)}})
	if table, left := Bounded(Pool([][]Sample{failed})); left != 3 || !strings.HasPrefix(table, "audio first_audio_ms  p50 failed") {
		t.Errorf("a failed figure: %q, %d left", table, left)
	}
	if table, left := Bounded(Pool([][]Sample{run[1:]})); table != "" || left != 3 {
		t.Errorf("no interval at all: %q, %d left", table, left)
	}
}

func TestLevelText(t *testing.T) {
	for _, c := range []struct {
		level float64
		want  string
	}{{0.95, "95 %"}, {1 - 0.05/2, "97.5 %"}, {1 - 0.05/3, "98.33 %"}, {1 - 0.05/40, "99.88 %"}, {1 - 0.05/1000, "99.995 %"}} {
		if got := LevelText(c.level); got != c.want {
			t.Errorf("LevelText(%v) = %q, want %q", c.level, got, c.want)
		}
	}
}
