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

// TestLoadHeadlineCapacityLowerBound: when every level held, no level
// above the capacity was tried, and the page says "at least" (the console
// said "every level held: try higher ones" beside a tile calling it the
// capacity); a capacity with a level above it that missed stays exact.
func TestLoadHeadlineCapacityLowerBound(t *testing.T) {
	v := 100.0
	verdict := []artifact.SLOVerdict{{Metric: "ttft_ms", Percentile: 95, LimitMs: 800, ValueMs: &v, N: 40, Met: true}}
	l := &rundir.Load{
		Settings: artifact.LoadSettings{Mode: "concurrency", SLO: []artifact.SLO{{Metric: "ttft_ms", Percentile: 95, LimitMs: 800}}},
		Levels: []artifact.LoadLevel{{Level: 1, SLO: verdict, SLOMet: true}, {Level: 2, SLO: verdict, SLOMet: true},
			{Level: 4, SLO: verdict, SLOMet: true}},
		Capacity: &artifact.Capacity{Level: 4},
	}
	if c := loadHeadline(l)[0]; c.Value != "at least concurrency 4" || !strings.Contains(c.Note, "try higher ones") ||
		strings.Contains(c.Note, "the highest level that met") {
		t.Errorf("capacity tile of a run whose every level held: %+v", c)
	}
	if s := capacityText(l); !strings.Contains(s, "Capacity: at least concurrency 4 (") || !strings.Contains(s, "try higher ones") {
		t.Errorf("capacity sentence: %q", s)
	}
	l.Settings.SearchMax = 4
	if c := loadHeadline(l)[0]; c.Value != "at least concurrency 4" || !strings.Contains(c.Note, "give a higher --search-max") {
		t.Errorf("capacity tile of a search that held up to --search-max: %+v", c)
	}
	l.Settings.SearchMax = 0
	l.Levels[2].SLOMet = false
	l.Capacity = &artifact.Capacity{Level: 2, Next: &artifact.CapacityNext{Level: 4}}
	if c := loadHeadline(l)[0]; c.Value != "concurrency 2" || c.Note != "the highest level that met every SLO; concurrency 4 did not" {
		t.Errorf("capacity tile of a run whose level 4 missed: %+v", c)
	}
}

// TestLoadChartCapacityLowerBound: the percentile charts' capacity rule
// reads "at least" as the tile does when no level above it was tried (its
// legend said "capacity: 4" under a tile saying "at least concurrency 4").
func TestLoadChartCapacityLowerBound(t *testing.T) {
	v := 100.0
	verdict := []artifact.SLOVerdict{{Metric: "ttft_ms", Percentile: 95, LimitMs: 800, ValueMs: &v, N: 40, Met: true}}
	l := &rundir.Load{
		Settings: artifact.LoadSettings{Mode: "concurrency", SLO: []artifact.SLO{{Metric: "ttft_ms", Percentile: 95, LimitMs: 800}}},
		Levels:   []artifact.LoadLevel{{Level: 2, SLO: verdict, SLOMet: true}, {Level: 4, SLO: verdict, SLOMet: true}},
		Capacity: &artifact.Capacity{Level: 4},
	}
	f, err := percentileFigure(l, "ttft_ms")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(f.SVG), "capacity: at least 4") {
		t.Errorf("the chart of a run whose every level held does not say at least 4")
	}
	l.Levels[1].SLOMet = false
	l.Capacity = &artifact.Capacity{Level: 2, Next: &artifact.CapacityNext{Level: 4}}
	f, err = percentileFigure(l, "ttft_ms")
	if err != nil {
		t.Fatal(err)
	}
	if s := string(f.SVG); !strings.Contains(s, "capacity: 2") || strings.Contains(s, "at least") {
		t.Errorf("the chart of a run whose level 4 missed does not say capacity: 2 alone")
	}
}

// TestLoadHeadlineStarsWhatTheTableCannotBound: a p95 over 20 requests is
// given (20 support it) but not bounded (no interval: the level's table
// says "too few samples" and the chart draws no point), so the tile marks
// it "*" too, as the console's row does. Fails before this change: the
// tile read "2: 108 ms ✓" beside "too few samples".
func TestLoadHeadlineStarsWhatTheTableCannotBound(t *testing.T) {
	v, p50 := 108.0, 85.0
	l := &rundir.Load{
		Settings: artifact.LoadSettings{Mode: "concurrency", SLO: []artifact.SLO{{Metric: "first_sentence_ms", Percentile: 95, LimitMs: 800}}},
		Levels: []artifact.LoadLevel{{Level: 2, SLOMet: true,
			SLO: []artifact.SLOVerdict{{Metric: "first_sentence_ms", Percentile: 95, LimitMs: 800, ValueMs: &v, N: 20, Met: true}},
			Summary: artifact.LevelSummary{ManySummary: artifact.ManySummary{
				FirstSentenceMs: artifact.Dist{N: 20, P50: &p50, P50CI: &[2]float64{82, 94}, P95: &v}}}}},
	}
	slo := loadHeadline(l)[1]
	if !strings.Contains(slo.Value, "2: 108 ms* ✓") || !strings.Contains(slo.Note, "too few samples") {
		t.Errorf("SLO headline %q / %q", slo.Value, slo.Note)
	}
}

// TestLoadCapacityUndecidedBetweenTwoLevels: a search left undecided
// between two levels reads so on the tile, in the sentence and on the
// charts, as the console and the search section say; they read "2, the
// highest level that met every SLO; 4 did not" and "capacity: 2".
func TestLoadCapacityUndecidedBetweenTwoLevels(t *testing.T) {
	v, undecided := 100.0, false
	verdict := []artifact.SLOVerdict{{Metric: "ttft_ms", Percentile: 95, LimitMs: 800, ValueMs: &v, N: 40, Met: true}}
	l := &rundir.Load{
		Settings: artifact.LoadSettings{Mode: "concurrency", SearchMax: 8, SLO: []artifact.SLO{{Metric: "ttft_ms", Percentile: 95, LimitMs: 800}}},
		Levels:   []artifact.LoadLevel{{Level: 2, SLO: verdict, SLOMet: true}, {Level: 4, SLO: verdict, SLOMet: false}},
		Capacity: &artifact.Capacity{Level: 2, Next: &artifact.CapacityNext{Level: 4}, Decided: &undecided, Between: []float64{2, 4}},
	}
	if c := loadHeadline(l)[0]; c.Value != "between concurrency 2 and concurrency 4" || !strings.Contains(c.Note, "undecided") {
		t.Errorf("tile %q / %q", c.Value, c.Note)
	}
	if s := capacityText(l); !strings.Contains(s, "Capacity: between concurrency 2 and concurrency 4, undecided") {
		t.Errorf("sentence %q", s)
	}
	f, err := percentileFigure(l, "ttft_ms")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(f.SVG), "capacity: between 2 and 4, undecided") {
		t.Errorf("the chart does not say the capacity is undecided between 2 and 4")
	}
}

// TestCapacityOf: the one decision the tile, the sentence and the charts'
// rule put in words, over every kind of capacity, with the cases where
// their three switches used to disagree: a stopped run's capacity is the
// highest level that ended (even if a search left it undecided), and an
// undecided capacity with no next level recorded is still undecided.
func TestCapacityOf(t *testing.T) {
	f := false
	lv := func(level float64, interrupted bool) artifact.LoadLevel {
		return artifact.LoadLevel{Level: level, Interrupted: interrupted}
	}
	next := &artifact.CapacityNext{Level: 4}
	for _, c := range []struct {
		name   string
		levels []artifact.LoadLevel
		cap    *artifact.Capacity
		want   capacityVerdict
	}{
		{"stopped in the first level", []artifact.LoadLevel{lv(1, true)}, nil, capacityVerdict{Kind: capUnknown, Stopped: "concurrency 1"}},
		{"stopped, none met", []artifact.LoadLevel{lv(1, false), lv(2, true)}, nil, capacityVerdict{Kind: capNone, Stopped: "concurrency 2", Ended: 1}},
		{"none met", []artifact.LoadLevel{lv(1, false)}, nil, capacityVerdict{Kind: capNone, Ended: 1}},
		{"stopped, one met", []artifact.LoadLevel{lv(1, false), lv(2, true)}, &artifact.Capacity{Level: 1},
			capacityVerdict{Kind: capFound, Stopped: "concurrency 2", Ended: 1}},
		{"stopped, undecided", []artifact.LoadLevel{lv(2, false), lv(4, true)}, &artifact.Capacity{Level: 2, Next: next, Decided: &f, Between: []float64{2, 4}},
			capacityVerdict{Kind: capFound, Stopped: "concurrency 4", Ended: 1}},
		{"undecided", []artifact.LoadLevel{lv(2, false), lv(4, false)}, &artifact.Capacity{Level: 2, Next: next, Decided: &f, Between: []float64{2, 4}},
			capacityVerdict{Kind: capBetween, Ended: 2, Lo: 2, Hi: 4}},
		{"undecided, no next", []artifact.LoadLevel{lv(2, false), lv(4, false)}, &artifact.Capacity{Level: 2, Decided: &f, Between: []float64{2, 4}},
			capacityVerdict{Kind: capBetween, Ended: 2, Lo: 2, Hi: 4}},
		{"undecided at --search-max", []artifact.LoadLevel{lv(2, false)}, &artifact.Capacity{Level: 2, Decided: &f, Between: []float64{2}},
			capacityVerdict{Kind: capAtLeast, Ended: 1}},
		{"next missed", []artifact.LoadLevel{lv(2, false), lv(4, false)}, &artifact.Capacity{Level: 2, Next: next}, capacityVerdict{Kind: capFound, Ended: 2}},
		{"every level held", []artifact.LoadLevel{lv(2, false), lv(4, false)}, &artifact.Capacity{Level: 4}, capacityVerdict{Kind: capAtLeast, Ended: 2}},
	} {
		l := &rundir.Load{Settings: artifact.LoadSettings{Mode: "concurrency"}, Levels: c.levels, Capacity: c.cap}
		if got := capacityOf(l); got != c.want {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}
