package report

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"ttftlab/internal/artifact"
	"ttftlab/internal/chart"
	"ttftlab/internal/rundir"
)

// traceRun is a replayed Mooncake trace's folder (or, calls, a call
// log's: no trace_input_n, no shared_share): 30 requests due every 4.5 s
// (a span of 130.5 s: bins of 3 s), each begun 2 ms late but for every
// seventh, held 4 s by the cap; request 29 never began; request 11 has no
// cache_n (the server did not say).
func traceRun(t *testing.T, calls bool) (string, []artifact.LoadRequest) {
	t.Helper()
	tr := &artifact.LoadTrace{File: "/traces/tuesday.jsonl", Format: "mooncake", SHA256: "ab12", Lines: 40, Calls: 30, Requests: 30,
		Speed: 2, FromMs: fp(90000), Max: 4, Block: 512, Vocab: 32000, SharedShare: fp(0.4375)}
	if calls {
		tr.Format, tr.Block, tr.Vocab, tr.SharedShare = "calls", 0, 0, nil
	}
	var rows []artifact.LoadRequest
	for i := range 30 {
		r := artifact.LoadRequest{Level: 2, Call: i + 1, Turn: 1}
		r.Index = i + 1
		r.TraceCall, r.TraceLine = strconv.Itoa(i+1), i+1
		r.ScheduledMs = fp(float64(i) * 4500)
		q := 2.0
		if i%7 == 3 {
			q = 4000
		}
		if i != 29 {
			r.QueueMs = fp(q)
			r.StartMs = fp(*r.ScheduledMs + q)
			r.LateMs = fp(2)
			r.TTFTMs, r.TotalMs = fp(40+float64(i)), fp(300)
			if i != 11 {
				r.CacheN, r.PromptN = fp(float64(512*(i%3))), fp(float64(100+7*i))
			}
		}
		if !calls {
			r.TraceInputN, r.TraceSharedN = fp(float64(1024+10*i)), fp(float64(512*(i%4)))
		}
		rows = append(rows, r)
	}
	doc := artifact.Load{
		Settings: artifact.LoadSettings{Mode: "trace", Levels: []float64{2}, Requests: 30, Turns: 1, Trace: tr,
			SLO: []artifact.SLO{{Metric: "ttft_ms", Percentile: 95, LimitMs: 800}}},
		Levels: []artifact.LoadLevel{{Level: 2, Summary: artifact.LevelSummary{Calls: 30, ManySummary: artifact.ManySummary{
			Requests: 30, OK: 29, LateMs: lateDist(29, 2, 2, 2, 2)}}}},
	}
	return writeLoad(t, doc, rows), rows
}

// cells finds the row of t whose first cell is first.
func cells(t *testing.T, tab table, first string) []string {
	t.Helper()
	for _, r := range tab.Rows {
		if r.Cells[0] == first {
			return r.Cells
		}
	}
	t.Fatalf("table %q has no row %q", tab.Caption, first)
	return nil
}

// TestTracePageArrivalsAndCache: a replayed Mooncake trace's page has the
// trace's heading, the arrival rate due against begun in bins of whole
// seconds (span / 60 rounded up), and the server's cache share against
// the trace's sharing, each the sum of its rows' tokens.
func TestTracePageArrivalsAndCache(t *testing.T) {
	dir, rows := traceRun(t, false)
	page := render(t, dir)
	for _, bad := range []string{"NaN", "Inf"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %q", bad)
		}
	}
	all := charts(t, page)
	arr := chartOf(t, all, "Arrivals at trace x2: due by the trace and begun")
	if marks(arr, "stroke", chart.Due) != 2 || marks(arr, "stroke", chart.Began) != 2 {
		t.Errorf("arrival chart: %d due and %d begun lines with the legend's, want 2 each",
			marks(arr, "stroke", chart.Due), marks(arr, "stroke", chart.Began))
	}

	// The expected figures, from the rows written.
	const bin = 3000.0 // 130.5 s / 60, rounded up to whole seconds
	due, began := map[int]int{}, map[int]int{}
	hitBins := map[int]bool{}
	var cache, prompt, shared, input float64
	for _, r := range rows {
		due[int(*r.ScheduledMs/bin)]++
		if r.QueueMs == nil {
			continue
		}
		b := int((*r.ScheduledMs + *r.QueueMs) / bin)
		began[b]++
		if r.CacheN != nil {
			cache, prompt = cache+*r.CacheN, prompt+*r.PromptN
			hitBins[b] = true
		}
		shared, input = shared+*r.TraceSharedN, input+*r.TraceInputN
	}
	if marks(chartOf(t, all, "Prompt cache at trace x2: the server's hits and the trace's sharing"), "fill", chart.Cached) != len(hitBins)+1 {
		t.Errorf("cache chart: want a point for each of the %d bins with cache_n, and the legend's", len(hitBins))
	}

	l := rundir.ReadLoad(dir)
	s := traceSection(l)
	if s == nil || len(s.Figures) != 2 {
		t.Fatalf("trace section %+v, want the arrival and the cache figures", s)
	}
	af := s.Figures[0]
	if got := cells(t, af.Table, "bin (s)")[1]; got != "3" {
		t.Errorf("bin %q s, want 3", got)
	}
	if got := cells(t, af.Table, "requests due")[1]; got != "30" {
		t.Errorf("requests due %q, want 30", got)
	}
	if got := cells(t, af.Table, "requests begun")[1]; got != "29" {
		t.Errorf("requests begun %q, want 29 (one never began)", got)
	}
	if len(af.More.Rows) != 44 {
		t.Errorf("%d bins, want 44 (0 to 130.5 s by 3 s)", len(af.More.Rows))
	}
	for i, r := range af.More.Rows {
		want := []string{num(float64(i) * bin / 1000), strconv.Itoa(due[i]), strconv.Itoa(began[i]), num(float64(due[i]) / 3), num(float64(began[i]) / 3)}
		if strings.Join(r.Cells, "|") != strings.Join(want, "|") {
			t.Errorf("bin %d: %v, want %v", i, r.Cells, want)
		}
	}
	cf := s.Figures[1]
	if got, want := cells(t, cf.Table, "the server's cache: cache_n / (cache_n + prompt_n)"), []string{pct(cache / (cache + prompt)), "28"}; got[1] != want[0] || got[2] != want[1] {
		t.Errorf("server's cache share %v, want %v", got[1:], want)
	}
	if got, want := cells(t, cf.Table, "the trace's sharing: trace_shared_n / trace_input_n"), []string{pct(shared / input), "29"}; got[1] != want[0] || got[2] != want[1] {
		t.Errorf("trace's sharing %v, want %v", got[1:], want)
	}
	if got := cells(t, cf.Table, "the trace's sharing over its kept lines (shared_share)")[1]; got != "43.8 %" {
		t.Errorf("shared_share %q, want 43.8 %%", got)
	}
	head := s.Tables[0]
	for first, want := range map[string]string{"file": "/traces/tuesday.jsonl", "format": "mooncake", "calls replayed": "30", "requests replayed": "30",
		"speed": "x2 (the trace's times divided by it)", "window": "from 90000 ms to its end, on the trace's own clock",
		"calls at once, at most": "4 (a call beyond it waited: its queue_ms)", "tokens per hash_id block": "512"} {
		if got := cells(t, head, first)[1]; got != want {
			t.Errorf("trace heading %s: %q, want %q", first, got, want)
		}
	}
	if h := loadHeadline(l)[0]; h.Label != "Trace replayed" || h.Value != "tuesday.jsonl, x2" {
		t.Errorf("first tile %+v, want the trace in place of a capacity", h)
	}
}

// TestCallLogPageHasArrivalsAndCacheHits: a replayed call log (no
// trace_input_n, no shared_share) draws the arrivals and the server's
// cache hits alone.
func TestCallLogPageHasArrivalsAndCacheHits(t *testing.T) {
	dir, _ := traceRun(t, true)
	all := charts(t, render(t, dir))
	chartOf(t, all, "Arrivals at trace x2: due by the trace and begun")
	svg := chartOf(t, all, "Prompt cache at trace x2: the server's hits and the trace's sharing")
	if n := marks(svg, "fill", chart.Shared); n != 0 {
		t.Errorf("a call log's cache chart draws %d marks of the trace's sharing", n)
	}
	s := traceSection(rundir.ReadLoad(dir))
	for _, r := range s.Figures[1].Table.Rows {
		if strings.Contains(r.Cells[0], "trace") {
			t.Errorf("a call log's cache table has %v", r.Cells)
		}
	}
	if cells(t, s.Figures[1].Table, "the server's cache: cache_n / (cache_n + prompt_n)")[2] != "28" {
		t.Error("the server's cache share is not over the 28 requests with cache_n")
	}
}

// TestRampAndSteadyStartShown: a ramp is a band on each level's
// requests chart naming its requests (summary.ramp), said where the
// settings are with each level's count; a steady start is one line there
// too, with the requests that began a call so.
func TestRampAndSteadyStartShown(t *testing.T) {
	doc := artifact.Load{Settings: artifact.LoadSettings{Mode: "rate", Levels: []float64{4}, Requests: 6, Turns: 3, SteadyStart: true,
		Ramp: &artifact.LoadRamp{DurationMs: 1000, Shape: "linear"}},
		Levels: []artifact.LoadLevel{{Level: 4, Summary: artifact.LevelSummary{ManySummary: artifact.ManySummary{Requests: 4, OK: 4, Warmup: 2, Ramp: 2}}}}}
	var rows []artifact.LoadRequest
	for i := range 6 {
		r := artifact.LoadRequest{Level: 4, Call: i + 1, Turn: 1}
		r.Index, r.StartMs, r.ScheduledMs, r.QueueMs, r.TTFTMs, r.TotalMs = i+1, fp(float64(i)*400), fp(float64(i)*400), fp(0), fp(30), fp(90)
		r.Ramp, r.Warmup = i < 2, i < 2
		if i%2 == 1 {
			r.HistoryTurns = 2
		}
		rows = append(rows, r)
	}
	dir := writeLoad(t, doc, rows)
	page := render(t, dir)
	svg := chartOf(t, charts(t, page), "Requests at rate 4 calls/s")
	if !strings.Contains(svg, ">ramp (linear): 2, left out<") {
		t.Errorf("the requests chart has no ramp band naming its 2 requests")
	}
	for _, want := range []string{"Each level ramped up over its first 1000 ms (linear, --ramp): the requests due in the ramp were left out of the level&#39;s figures as warm-up is (4: 2).",
		"Calls started in steady state (--steady-start)", fmt.Sprintf("(%d requests began a call so)", 3)} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	f, err := requestsFigure(rundir.ReadLoad(dir), 4)
	if err != nil {
		t.Fatal(err)
	}
	if got := cells(t, f.Table, "due in the ramp")[1]; got != "2, left out" {
		t.Errorf("due in the ramp: %q", got)
	}
}
