package report

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot"

	"ttftlab/internal/artifact"
	"ttftlab/internal/chart"
	"ttftlab/internal/rundir"
)

// copyDir copies a run folder into a temporary one a test may change.
func copyDir(t *testing.T, from string) string {
	t.Helper()
	dir := t.TempDir()
	entries, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// plots renders dirs and returns every plot as it was drawn, by title.
func plots(t *testing.T, dirs ...string) (string, map[string]*plot.Plot) {
	t.Helper()
	out := map[string]*plot.Plot{}
	onDraw = func(p *plot.Plot) {
		cp := *p
		out[p.Title.Text] = &cp
		if err := chart.Outside(p); err != nil {
			t.Errorf("%v: chart %q: %v", dirs, p.Title.Text, err)
		}
	}
	defer func() { onDraw = nil }()
	return render(t, dirs...), out
}

// TestHeadlineLeadsThePage: each page opens with the figures a voice
// engineer acts on, in words and units, before any chart or table; the
// raw fields and the check list come after the charts, folded.
func TestHeadlineLeadsThePage(t *testing.T) {
	lab := rundir.ReadLab(labRun(t), "")
	if lab.TTFT == nil || lab.Sentence == nil || lab.Cache == nil || lab.Cancel == nil || lab.Cancel.SlotIdleAfterMs == nil || lab.Bargein == nil {
		t.Fatalf("the lab run lacks a step the headline reads")
	}
	c, r := lab.Cache, lab.Bargein.Resumed
	var idle []float64 // the cancel step's repetitions
	for _, x := range lab.Cancel.Repetitions() {
		idle = append(idle, *x.SlotIdleAfterMs)
	}
	// The cache's saving is the medians' over its runs.
	var firsts, seconds []float64
	for _, run := range c.Runs {
		firsts, seconds = append(firsts, run.First.TTFTMs), append(seconds, run.Second.TTFTMs)
	}
	if len(firsts) < 2 {
		t.Fatalf("the lab run's cache.json has %d runs, want the step's repetitions", len(firsts))
	}
	slices.Sort(firsts)
	slices.Sort(seconds)
	mid := func(xs []float64) float64 {
		if n := len(xs); n%2 == 0 {
			return (xs[n/2-1] + xs[n/2]) / 2
		}
		return xs[len(xs)/2]
	}
	cacheFirst, cacheSecond := mid(firsts), mid(seconds)
	var sentences []float64 // the sentence step's repetitions
	for _, x := range lab.Sentence.Repetitions() {
		sentences = append(sentences, x.FirstSentenceMs)
	}
	ttft := ms(lab.TTFT.TTFTP50)
	labWant := []string{"Time to first token</dt><dd class=\"value\">" + ttft + "<",
		"First sentence ready to speak</dt><dd class=\"value\">" + ms(medianOf(sentences)) + "<",
		"The prompt cache saves</dt><dd class=\"value\">" + ms(cacheFirst-cacheSecond) + " of TTFT<",
		"Slot idle after a hang-up</dt><dd class=\"value\">" + ms(medianOf(idle)) + "<",
		"A barge-in keeps</dt><dd class=\"value\">" + num(r.Cached()) + " of " + num(r.Cached()+r.PromptN) + " tokens<"}

	load := rundir.ReadLoad(loadRun(t))
	if load.Capacity == nil || len(load.Settings.SLO) == 0 {
		t.Fatalf("the load run has no capacity or no SLO")
	}
	requests, failed := 0, 0
	for _, lv := range load.Levels {
		requests += lv.Summary.Requests
		failed += lv.Summary.Failed
	}
	slo := load.Settings.SLO[0]
	loadWant := []string{"Capacity</dt><dd class=\"value\">" + load.LevelName(load.Capacity.Level) + "<",
		metricWords(slo.Metric) + " p" + num(slo.Percentile) + " by level (SLO ≤ " + ms(slo.LimitMs) + ")</dt>",
		fmt.Sprintf("Errors</dt><dd class=\"value\">%d of %d requests<", failed, requests), "http 503: 1"}
	for _, c := range []struct {
		dirs []string
		want []string
	}{
		{[]string{labRun(t)}, labWant},
		{[]string{loadRun(t)}, loadWant},
		{[]string{labRun(t), labRun(t)}, []string{"Time to first token</dt><dd class=\"value\">" + ttft + " → " + ttft + "<"}},
	} {
		page := render(t, c.dirs...)
		main := page[strings.Index(page, "<main>")+len("<main>"):]
		if !strings.HasPrefix(strings.TrimSpace(main), `<section id="answer" class="headline">`) {
			t.Errorf("%v: the page does not open with the headline: %.200s", c.dirs, main)
		}
		strip := main[:strings.Index(main, "</section>")]
		for _, w := range c.want {
			if !strings.Contains(strip, w) {
				t.Errorf("%v: headline lacks %q", c.dirs, w)
			}
		}
		if svg, tab := strings.Index(main, "<svg"), strings.Index(main, "<table"); svg < 0 || tab < svg {
			t.Errorf("%v: a table (at %d) comes before the first chart (at %d)", c.dirs, tab, svg)
		}
	}
	page := render(t, labRun(t))
	for _, folded := range []string{`<details class="fold"><summary>ttftlab check: `, `<details class="fold"><summary>report.json (`} {
		if !strings.Contains(page, folded) {
			t.Errorf("lab page: %q is not folded", folded)
		}
	}
	if strings.Index(page, `id="summary"`) < strings.LastIndex(page, "<svg") {
		t.Errorf("lab page: the run details come before the last chart")
	}
}

var levelLabel = regexp.MustCompile(`<text x="([0-9.]+)"[^>]*>level ([0-9.]+)</text>`)

// bandXs is the x of each level's name in the server chart, by level.
func bandXs(t *testing.T, page string) map[float64]float64 {
	t.Helper()
	svg := chartOf(t, charts(t, page), "The server: slots busy, requests running and deferred")
	out := map[float64]float64{}
	for _, m := range levelLabel.FindAllStringSubmatch(svg, -1) {
		x, _ := strconv.ParseFloat(m[1], 64)
		lv, _ := strconv.ParseFloat(m[2], 64)
		out[lv] = x
	}
	return out
}

// TestServerChartIsOneRun: server.jsonl's t_ms restarts with every level
// (as ttftlab load writes it); the chart still lays the levels one after
// the other on the run's clock, from run_ms when the file has it.
func TestServerChartIsOneRun(t *testing.T) {
	l := rundir.ReadLoad(loadRun(t))
	for _, withRunMs := range []bool{false, true} {
		dir := copyDir(t, loadRun(t))
		start := map[float64]float64{}
		var lines []string
		for i, s := range l.Server {
			if _, ok := start[s.Level]; !ok {
				start[s.Level] = s.TMs
			}
			s.RunMs = nil
			if withRunMs {
				run := float64(i) * 300
				s.RunMs = &run
			}
			s.TMs -= start[s.Level]
			data, _ := json.Marshal(s)
			lines = append(lines, string(data))
		}
		if err := os.WriteFile(filepath.Join(dir, "server.jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		page, drawn := plots(t, dir)
		xs := bandXs(t, page)
		if len(xs) != len(l.Levels) {
			t.Fatalf("run_ms %v: %d level bands named, want %d", withRunMs, len(xs), len(l.Levels))
		}
		for i := 1; i < len(l.Levels); i++ {
			a, b := l.Levels[i-1].Level, l.Levels[i].Level
			if !(xs[b] > xs[a]+10) {
				t.Errorf("run_ms %v: level %g's band starts at x %g, not after level %g's at %g", withRunMs, b, xs[b], a, xs[a])
			}
		}
		p := drawn["The server: slots busy, requests running and deferred"]
		if withRunMs && p.X.Max < float64(len(l.Server)-1)*300 {
			t.Errorf("run_ms: the axis ends at %g before the last sample's run_ms %g", p.X.Max, float64(len(l.Server)-1)*300)
		}
	}
}

// TestNoMarkOutsideItsAxis: every bar, tick and marker of every chart
// lies inside its X axis, none at the very edge where half of it is cut
// (the barge-in's slot-busy bar and a level's last request were).
func TestNoMarkOutsideItsAxis(t *testing.T) {
	for _, dirs := range [][]string{{labRun(t)}, {loadRun(t)}, {labRun(t), labRun(t)}} {
		_, drawn := plots(t, dirs...)
		if len(drawn) < 5 {
			t.Errorf("%v: only %d charts seen", dirs, len(drawn))
		}
	}
}

// TestAnswerHasItsOwnAxis: a fast answer (60 ms) spoken for 44.7 s: the
// answer's chart ends with the answer, so its TTFT, first sentence and
// end are spread across it; the speech has its own chart to its end.
func TestAnswerHasItsOwnAxis(t *testing.T) {
	dir := copyDir(t, labRun(t))
	var s artifact.Sentence
	readJSON(t, filepath.Join(dir, "sentence.json"), &s)
	s.Pacing.EndMs = 44700
	s.Pacing.Sentences[len(s.Pacing.Sentences)-1].EndMs = 44700
	writeJSON(t, filepath.Join(dir, "sentence.json"), s)
	_, drawn := plots(t, dir)
	answer := drawn["First sentence: the answer as it streamed"]
	if answer == nil {
		t.Fatal("no answer chart")
	}
	if answer.X.Max > 1.1*s.TotalMs || answer.X.Max < s.TotalMs {
		t.Errorf("answer chart's axis ends at %g ms; the answer ends at %g ms", answer.X.Max, s.TotalMs)
	}
	// TTFT keeps its share of the answer: the axis is the answer's, not
	// the speech's (measured against the run's own share, which a busy
	// machine may make small).
	if share := s.TTFTMs / (answer.X.Max - answer.X.Min); share < 0.9*s.TTFTMs/s.TotalMs {
		t.Errorf("TTFT sits at %.3f of the axis, %.3f of the answer: squeezed", share, s.TTFTMs/s.TotalMs)
	}
	speech := drawn["First sentence: the answer spoken"]
	if speech == nil || speech.X.Max < 44700 {
		t.Errorf("the speech chart does not reach the end of speaking")
	}
}

// TestCutWithoutPlan: a cancel.json whose cut was planned by chunks (no
// cut_after_ms, no max_tokens) and a barge-in without cut_after_chunks
// show no "0" plan and no "of 0" tokens.
func TestCutWithoutPlan(t *testing.T) {
	dir := copyDir(t, labRun(t))
	var c artifact.Cancel
	readJSON(t, filepath.Join(dir, "cancel.json"), &c)
	zero := 0.0
	c.CutAfterMs, c.MaxTokens = &zero, 0
	writeJSON(t, filepath.Join(dir, "cancel.json"), c)
	page := render(t, dir)
	for _, bad := range []string{"cut planned (cut_after_ms)", " of 0</td>", ">0 chunks</td>"} {
		if strings.Contains(page, bad) {
			t.Errorf("page shows %q", bad)
		}
	}
	if row := "<td>tokens received (received_tokens)</td><td class=\"num\">" + num(c.ReceivedTokens) + "</td>"; !strings.Contains(page, row) {
		t.Errorf("page lacks the tokens received: %s", row)
	}
}

// TestPrefillFit: the fitted line goes through 0 at zero tokens (a free
// fit may give a time below zero there), and TTFT is drawn over
// prompt_ms, not under it.
func TestPrefillFit(t *testing.T) {
	// The run's prompts on a line that crosses below zero before 0 tokens
	// (at the run's own cost per token): a free fit would give a negative
	// time at 0 tokens, so it is held through 0. (The run's own times may
	// fit either way, as the machine's load has them.)
	dir := copyDir(t, labRun(t))
	var rows []map[string]any
	readJSON(t, filepath.Join(dir, "prefill.json"), &rows)
	if len(rows) < 2 {
		t.Fatalf("prefill.json has %d rows", len(rows))
	}
	last := rows[len(rows)-1]
	k := last["ttft_ms"].(float64) / last["prompt_n"].(float64)
	for _, r := range rows {
		v := k * (r["prompt_n"].(float64) - rows[0]["prompt_n"].(float64)/2)
		r["ttft_ms"], r["prompt_ms"] = v, v
	}
	writeJSON(t, filepath.Join(dir, "prefill.json"), rows)
	if page := render(t, dir); !strings.Contains(page, ">0 (through 0)</td>") {
		t.Errorf("the prefill fit's intercept is not held at 0")
	}
	page, drawn := plots(t, labRun(t))
	p := drawn["Prefill: time against prompt length"]
	if p == nil {
		t.Fatal("no prefill chart")
	}
	svg := chartOf(t, charts(t, page), "Prefill: time against prompt length")
	green, blue := strings.Index(svg, "fill:"+hex(chart.Prompt)), strings.Index(svg, "stroke:"+hex(chart.TTFT))
	if green < 0 || blue < green {
		t.Errorf("TTFT (at %d) is drawn before prompt_ms (at %d): hidden under it", blue, green)
	}
}

// TestWideTablesGoUnder: a figure whose table has more than four columns
// puts it under the chart at full width. (On a wide screen no box then
// scrolls sideways: TestReportPagesInBrowser; on a phone a table's own box
// does: TestReportOnAPhone.)
func TestWideTablesGoUnder(t *testing.T) {
	page := render(t, loadRun(t))
	figs := regexp.MustCompile(`(?s)<figure( class="wide")?>.*?</figure>`).FindAllStringSubmatch(page, -1)
	for _, f := range figs {
		head := regexp.MustCompile(`(?s)<thead>.*?</thead>`).FindString(f[0])
		cols := strings.Count(head, "<th")
		if (cols > 4) != (f[1] != "") {
			t.Errorf("a figure with a %d-column table has class %q", cols, f[1])
		}
	}
}

// TestLevelsCountCallsAndRequests: the levels table says calls and
// requests apart; a percentile whose interval its sample cannot bound
// (p99 of fewer than 368 requests) says too few samples.
func TestLevelsCountCallsAndRequests(t *testing.T) {
	dir := copyDir(t, loadRun(t))
	var doc map[string]any
	readJSON(t, filepath.Join(dir, "load.json"), &doc)
	lv := doc["levels"].([]any)[0].(map[string]any)
	sum := lv["summary"].(map[string]any)
	sum["calls"], sum["requests"] = 2.0, 6.0
	writeJSON(t, filepath.Join(dir, "load.json"), doc)
	page := render(t, dir)
	if !strings.Contains(page, "<th>level</th><th class=\"num\">calls</th><th class=\"num\">requests</th>") ||
		!strings.Contains(page, "<td>1</td><td class=\"num\">2</td><td class=\"num\">6</td>") {
		t.Errorf("the levels table does not show calls (2) beside requests (6)")
	}
	l := rundir.ReadLoad(loadRun(t))
	d := l.Levels[0].Summary.TTFTMs
	if d.N >= 100 || d.P99 == nil {
		t.Fatalf("the load run's first level has %d requests", d.N)
	}
	if !strings.Contains(page, ">too few samples</td>") || !strings.Contains(page, "too few samples where n cannot bound one") {
		t.Errorf("p99 of %d requests does not say too few samples", d.N)
	}
}

// TestTurnSection: voice calls of three turns get a section turn by
// turn, one point per turn and level.
func TestTurnSection(t *testing.T) {
	dir := copyDir(t, loadRun(t))
	var doc map[string]any
	readJSON(t, filepath.Join(dir, "load.json"), &doc)
	points := 0
	for i, lv := range doc["levels"].([]any) {
		var turns []any
		for turn := 1; turn <= 3; turn++ {
			st := map[string]any{"n": 6, "min": 1, "p50": float64(100*turn + i), "p90": 1, "p99": 1, "max": 1, "mean": 1}
			turns = append(turns, map[string]any{"turn": turn, "n": 6, "ttft_ms": st, "prompt_n": st, "cache_n": st})
			points++
		}
		lv.(map[string]any)["summary"].(map[string]any)["by_turn"] = turns
	}
	writeJSON(t, filepath.Join(dir, "load.json"), doc)
	page := render(t, dir)
	svg := chartOf(t, charts(t, page), "TTFT by turn of the call (p50)")
	n := 0
	for _, c := range levelColors[:4] {
		n += marks(svg, "fill", c) - 1
	}
	if n != points {
		t.Errorf("%d points on the turn chart, want %d", n, points)
	}
	if !strings.Contains(page, `<section id="turns">`) {
		t.Errorf("no turn section")
	}
	ids := regexp.MustCompile(`<section id="([^"]+)"`).FindAllStringSubmatch(page, -1)
	var order []string
	for _, m := range ids {
		order = append(order, m[1])
	}
	if order[0] != "answer" || order[len(order)-1] != "summary" {
		t.Errorf("sections in order %v: the answer first, the details last", order)
	}
}

// TestHangUpReadable: the barge-in's slot, busy 1.2 ms after a close at
// 120 ms, has a close-up where the busy bar fills a fair share of the axis.
func TestHangUpReadable(t *testing.T) {
	_, drawn := plots(t, labRun(t))
	var b artifact.Bargein
	readJSON(t, filepath.Join(labRun(t), "bargein.json"), &b)
	p := drawn["Barge-in: the close and the slot going idle"]
	if p == nil {
		t.Fatal("no close-up of the barge-in's hang-up")
	}
	if share := b.SlotIdleAfterMs / (p.X.Max - p.X.Min); share < 0.2 {
		t.Errorf("the busy slot takes %.3f of the close-up's axis", share)
	}
}
