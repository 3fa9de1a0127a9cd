package report

import (
	"image/color"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"ttftlab/internal/chart"
	"ttftlab/internal/figures"
	"ttftlab/internal/interval"
	"ttftlab/internal/rundir"
)

// bars counts the error bars drawn in colour c: paths of a whisker and
// its two caps (chart.AddErrorBars), the legend's included.
func bars(svg string, c color.RGBA) int {
	return len(regexp.MustCompile(`<path d="M[^"M]*M[^"M]*M[^"M]*" style="fill:none;stroke:`+hex(c)+`;`).FindAllString(svg, -1))
}

// TestIntervalsOnSinglePages: a single run's page shows each timed figure
// with its 95 % interval, or "too few samples"; the TTFT chart draws the
// mean of the runs (6, --repeat's default: enough to bound the median)
// with its t-interval, and the load percentiles
// their order-statistic intervals, as error bars. Fails before this
// change: the pages had no interval and no error bar.
func TestIntervalsOnSinglePages(t *testing.T) {
	t.Run("lab", func(t *testing.T) {
		page := render(t, labRun(t))
		var ttft rundir.TTFT
		readJSON(t, filepath.Join(labRun(t), "ttft.json"), &ttft)
		var vs []float64
		for _, r := range ttft.Runs {
			vs = append(vs, r.TTFTMs)
		}
		// The mean's interval as the pooled figure gives it: a time's
		// t-interval cut at 0 (a run with a slow outlier reaches below).
		fig := figures.FigureOf(figures.Sample{Name: "ttft_ms", Unit: "ms", Values: vs}, [][]float64{vs})
		if len(vs) < 2 || fig.Mean == nil || fig.MeanCI == nil {
			t.Fatalf("ttft.json has %d runs", len(vs))
		}
		m := struct{ Mean, Lo, Hi float64 }{*fig.Mean, fig.MeanCI[0], fig.MeanCI[1]}
		p50 := interval.PercentileCI(vs, 50)
		if p50.Unbounded {
			t.Fatalf("the median of %d runs has no interval: the test expects the lab's default of 6 runs to bound it", len(vs))
		}
		median := num(interval.PercentileOf(slices.Sorted(slices.Values(vs)), 50)) + " [" + num(p50.Lo) + ",\u00a0" + num(p50.Hi) + "]"
		mean := num(m.Mean) + " [" + num(m.Lo) + ",\u00a0" + num(m.Hi) + "]"
		if !strings.Contains(page, `<section id="intervals">`) ||
			!strings.Contains(page, "<td>ttft_ms (ms)</td><td class=\"num\">"+num(float64(len(vs)))+"</td><td class=\"num\">1</td><td class=\"num\">0</td><td class=\"num\">"+median+"</td>") ||
			!strings.Contains(page, mean+" over the samples</td>") {
			t.Errorf("the lab page lacks ttft_ms with p50 %s and the mean %s", median, mean)
		}
		svg := chartOf(t, charts(t, page), "TTFT and total time of each run (cache off)")
		if bars(svg, chart.TTFT) != 2 || bars(svg, chart.Total) != 2 {
			t.Errorf("TTFT chart: %d ttft and %d total error bars with the legend's, want 2 each", bars(svg, chart.TTFT), bars(svg, chart.Total))
		}
		if !strings.Contains(page, "median of "+num(float64(len(vs)))+" runs, prompt cache off; mean "+ms(m.Mean)+" ["+ms(m.Lo)+", "+ms(m.Hi)+"]") {
			t.Errorf("the headline's TTFT does not give its mean's interval")
		}
		if !strings.Contains(page, ">mean, 95 % interval</td><td class=\"num\">["+num(m.Lo)+",\u00a0"+num(m.Hi)+"]</td>") ||
			!strings.Contains(page, ">median, 95 % interval</td><td class=\"num\">["+num(p50.Lo)+",\u00a0"+num(p50.Hi)+"]</td>") {
			t.Errorf("the TTFT chart's table lacks the mean %s or the median's interval", mean)
		}
	})
	t.Run("load", func(t *testing.T) {
		page := render(t, loadRun(t))
		l := rundir.ReadLoad(loadRun(t))
		svg := chartOf(t, charts(t, page), "TTFT by level: p50, p95, p99")
		want := 0
		for _, lv := range l.Levels {
			d := lv.Summary.TTFTMs
			if d.P50CI != nil {
				want++
				cell := ">" + num(lv.Level) + "</td><td class=\"num\">" + num(float64(d.N)) + "</td><td class=\"num\">" +
					num(*d.P50) + " [" + num(d.P50CI[0]) + ",\u00a0" + num(d.P50CI[1]) + "]</td>"
				if !strings.Contains(page, cell) {
					t.Errorf("level %g: the TTFT table lacks p50 with its interval %s", lv.Level, cell)
				}
			}
			if d.P99CI != nil {
				t.Fatalf("level %g: p99 of %d requests has an interval", lv.Level, d.N)
			}
		}
		if want == 0 {
			t.Fatal("no level's p50 has an interval")
		}
		if got := bars(svg, chart.P50); got != want+1 {
			t.Errorf("TTFT by level: %d p50 error bars with the legend's, want %d", got, want+1)
		}
		if got := bars(svg, chart.P99); got != 0 {
			t.Errorf("TTFT by level: %d p99 error bars, want none (too few samples)", got)
		}
		if !strings.Contains(page, `<section id="intervals">`) || !strings.Contains(page, "<td>level 1 ttft_ms (ms)</td>") {
			t.Errorf("the load page lacks its figures with their intervals")
		}
	})
}

// TestLoadChartsDrawWhatTheTableGives: a percentile the table beside the
// chart calls too few samples is no point on it: with no level's p99
// bounded, the TTFT chart has no p99 line or legend entry, and its
// caption says why (TestIntervalsOnSinglePages counts the p50 bars
// against the levels whose p50 is bounded). Fails before this change: p99
// was drawn at every level.
func TestLoadChartsDrawWhatTheTableGives(t *testing.T) {
	page := render(t, loadRun(t))
	svg := chartOf(t, charts(t, page), "TTFT by level: p50, p95, p99")
	for _, lv := range rundir.ReadLoad(loadRun(t)).Levels {
		if lv.Summary.TTFTMs.P99CI != nil {
			t.Fatalf("level %g's p99 is bounded: the test needs none", lv.Level)
		}
	}
	if strings.Contains(svg, ">p99<") {
		t.Errorf("the TTFT chart draws p99, which its table calls too few samples")
	}
	if !strings.Contains(page, "too few samples where n cannot bound one (no point drawn)") {
		t.Errorf("the caption does not say unbounded percentiles are not drawn")
	}
}
