package report

import (
	"encoding/json"
	"fmt"
	"html"
	"image/color"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"ttftlab/internal/artifact"
	"ttftlab/internal/chart"
	"ttftlab/internal/check"
	"ttftlab/internal/rundir"
)

func render(t *testing.T, dirs ...string) string {
	t.Helper()
	html, err := Render(Meta{Version: "test"}, dirs...)
	if err != nil {
		t.Fatal(err)
	}
	return string(html)
}

var svgRe = regexp.MustCompile(`(?s)<svg class="chart"[^>]*aria-label="([^"]*)"[^>]*>(.*?)</svg>`)

// charts maps each chart's title to its SVG body.
func charts(t *testing.T, page string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, m := range svgRe.FindAllStringSubmatch(page, -1) {
		if _, dup := out[html.UnescapeString(m[1])]; dup {
			t.Errorf("two charts are titled %q", m[1])
		}
		out[html.UnescapeString(m[1])] = m[2]
	}
	return out
}

func hex(c color.RGBA) string { return fmt.Sprintf("#%02X%02X%02X", c.R, c.G, c.B) }

// marks counts the SVG shapes filled (prop "fill") or stroked ("stroke")
// in colour c. Each legend entry draws one more, its thumbnail.
func marks(svg, prop string, c color.RGBA) int {
	return len(regexp.MustCompile(`<path [^>]*style="[^"]*\b`+prop+`:`+hex(c)+`\b`).FindAllString(svg, -1))
}

func chartOf(t *testing.T, all map[string]string, title string) string {
	t.Helper()
	svg, ok := all[title]
	if !ok {
		t.Fatalf("no chart titled %q; charts: %v", title, keys(all))
	}
	return svg
}

func keys(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) }

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func TestLabPageHoldsEveryChart(t *testing.T) {
	html := render(t, labRun(t))
	all := charts(t, html)
	want := []string{
		"TTFT and total time of each run (cache off)", "Prefill: time against prompt length",
		"Prompt cache: tokens reused and evaluated", "Prompt cache: TTFT of each request",
		"First sentence: the answer as it streamed", "First sentence: the answer spoken", "Stream step: one tick per chunk",
		"Cancellation: each attempt until it finished or was cut", "Cancellation: the close and the slot going idle",
		"Barge-in: the answer until the cut, the slot going idle", "Barge-in: the close and the slot going idle", "Barge-in: TTFT of the next turn", "Barge-in: the next turn's prompt",
		"Changing line: tokens reused by position", "Changing line: TTFT by position",
	}
	// The audio step ran where espeak-ng is (reporttest.Lab).
	if _, err := os.Stat(filepath.Join(labRun(t), "audio.json")); err == nil {
		want = append(want, "Time to first audio: the answer spoken sentence by sentence (run 1)", "Time to first audio: the wait, up to the first audio (run 1)")
	}
	if len(all) != len(want) {
		t.Errorf("%d charts, want %d: %v", len(all), len(want), keys(all))
	}
	for _, title := range want {
		chartOf(t, all, title)
	}
	if n := strings.Count(html, "<figure>") + strings.Count(html, `<figure class="wide">`); n != len(want) {
		t.Errorf("%d figures for %d charts: every chart has its own figure and table", n, len(want))
	}
}

func TestLabChartsDrawEveryValue(t *testing.T) {
	all := charts(t, render(t, labRun(t)))
	var ttft rundir.TTFT
	readJSON(t, filepath.Join(labRun(t), "ttft.json"), &ttft)
	svg := chartOf(t, all, "TTFT and total time of each run (cache off)")
	if got, want := marks(svg, "fill", chart.TTFT), len(ttft.Runs)+1; got != want {
		t.Errorf("TTFT chart: %d blue points with the legend's, want %d (one per run)", got, want)
	}
	if got, want := marks(svg, "fill", chart.Total), len(ttft.Runs)+1; got != want {
		t.Errorf("TTFT chart: %d orange points with the legend's, want %d (one per run)", got, want)
	}

	var prefill []rundir.PrefillRow
	readJSON(t, filepath.Join(labRun(t), "prefill.json"), &prefill)
	svg = chartOf(t, all, "Prefill: time against prompt length")
	if got, want := marks(svg, "fill", chart.Prompt), len(prefill)+1; got != want {
		t.Errorf("prefill chart: %d prompt_ms points, want %d", got, want)
	}

	var s rundir.Sentence
	readJSON(t, filepath.Join(labRun(t), "sentence.json"), &s)
	svg = chartOf(t, all, "First sentence: the answer as it streamed")
	if got, want := marks(svg, "stroke", chart.Chunk), len(s.Chunks)+1; got != want {
		t.Errorf("sentence timeline: %d chunk ticks, want %d (one per chunk of sentence.json)", got, want)
	}
	if s.FirstSentence == "" || !strings.Contains(svg, ">"+html.EscapeString(s.FirstSentence)+"<") {
		t.Errorf("sentence timeline lacks the first sentence's text %q", s.FirstSentence)
	}
	svg = chartOf(t, all, "First sentence: the answer spoken")
	if got, want := marks(svg, "fill", chart.Spoken), len(s.Pacing.Sentences)+1; got != want {
		t.Errorf("speech timeline: %d spoken bars, want %d (one per sentence of pacing)", got, want)
	}
	if got, want := marks(svg, "fill", chart.Stall), stallMarks(s.Pacing.Stalls); got != want {
		t.Errorf("speech timeline: %d stall marks with the legend's, want %d (pacing.stalls %g)", got, want, s.Pacing.Stalls)
	}
	// The same run with a stall: the second sentence spoken 50 ms after
	// the first ended, the speaker waiting meanwhile.
	if len(s.Pacing.Sentences) < 2 {
		t.Fatalf("the lab's answer has %d sentences", len(s.Pacing.Sentences))
	}
	var stalled artifact.Sentence
	dir := copyDir(t, labRun(t))
	readJSON(t, filepath.Join(dir, "sentence.json"), &stalled)
	first, second := &stalled.Pacing.Sentences[0], &stalled.Pacing.Sentences[1]
	shift := first.EndMs + 50 - second.StartMs
	for i := 1; i < len(stalled.Pacing.Sentences); i++ {
		stalled.Pacing.Sentences[i].StartMs += shift
		stalled.Pacing.Sentences[i].EndMs += shift
	}
	stalled.Pacing.EndMs += shift
	stalled.Pacing.Stalls, stalled.Pacing.StallMs = 1, 50
	writeJSON(t, filepath.Join(dir, "sentence.json"), stalled)
	svg = chartOf(t, charts(t, render(t, dir)), "First sentence: the answer spoken")
	if got := marks(svg, "fill", chart.Stall); got != stallMarks(1) {
		t.Errorf("speech timeline of an answer with one stall: %d stall marks with the legend's, want %d", got, stallMarks(1))
	}

	chunks := strings.Count(readFile(t, filepath.Join(labRun(t), "chunks.jsonl")), "\n")
	svg = chartOf(t, all, "Stream step: one tick per chunk")
	if got := marks(svg, "stroke", chart.Chunk); got != chunks+1 {
		t.Errorf("stream timeline: %d ticks, want %d (one per line of chunks.jsonl)", got, chunks+1)
	}

	var c rundir.Cancel
	readJSON(t, filepath.Join(labRun(t), "cancel.json"), &c)
	svg = chartOf(t, all, "Cancellation: each attempt until it finished or was cut")
	if got := marks(svg, "fill", chart.Total) + marks(svg, "fill", chart.Cached); got != len(c.Attempts)+2 {
		t.Errorf("cancel chart: %d bars with the legend's, want %d (one per attempt)", got, len(c.Attempts)+2)
	}
	svg = chartOf(t, all, "Cancellation: the close and the slot going idle")
	if marks(svg, "stroke", chart.Idle) != 2 || marks(svg, "fill", chart.Idle) != 2 || marks(svg, "stroke", chart.Cut) != 2 {
		t.Errorf("cancel close chart lacks the close, the idle rule or the busy slot")
	}

	var x rundir.Prefix
	readJSON(t, filepath.Join(labRun(t), "prefix.json"), &x)
	svg = chartOf(t, all, "Changing line: TTFT by position")
	if got := marks(svg, "fill", chart.TTFT); got != len(x.Positions)+1 {
		t.Errorf("prefix chart: %d points, want %d (one per position)", got, len(x.Positions)+1)
	}
}

// stallMarks is how many stall marks a speech chart of n stalls draws:
// one each and the legend's, none when there is none.
func stallMarks(n float64) int {
	if n == 0 {
		return 0
	}
	return int(n) + 1
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestLabPageShowsReportJSON: every value of report.json is on the page
// as text in the summary, new fields (server) included.
func TestLabPageShowsReportJSON(t *testing.T) {
	// future.json is no step's file: the page names it among the files
	// it does not show.
	dir := copyDir(t, labRun(t))
	if err := os.WriteFile(filepath.Join(dir, "future.json"), []byte(readFile(t, "testdata/future.json")), 0o644); err != nil {
		t.Fatal(err)
	}
	page := render(t, dir)
	fields, err := rundir.Flatten([]byte(readFile(t, filepath.Join(labRun(t), "report.json"))))
	if err != nil {
		t.Fatal(err)
	}
	if len(fields) < 10 {
		t.Fatalf("the lab's report.json has only %d fields", len(fields))
	}
	for _, f := range fields {
		cell := ">" + value(f.Value) + "</td>"
		row := ">" + f.Path + "</td>"
		if !strings.Contains(page, row) || !strings.Contains(page, cell) {
			t.Errorf("report.json %s = %v is not shown as a row of the summary", f.Path, f.Value)
		}
	}
	var report artifact.Report
	readJSON(t, filepath.Join(labRun(t), "report.json"), &report)
	if report.Server == nil || report.Server.NCtx == nil || report.Server.Build == nil {
		t.Fatalf("the lab's report.json names no server context or build: %+v", report.Server)
	}
	for _, want := range []string{">ms</td>", ">tokens</td>", ">" + num(*report.Server.NCtx) + " tokens</td>", ">" + html.EscapeString(*report.Server.Build) + "</td>",
		" passed, 0 failed, ", "future.json", ">ttftlab test</td>"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	// The report's lab run has no speech-to-text server and no Realtime
	// server (reporttest.Lab): its call and realtime steps, and those
	// steps' checks, are all that is skipped.
	for _, o := range check.Results(labRun(t), "") {
		speech := false
		for _, step := range []string{"call", "realtime"} {
			speech = speech || strings.Contains(o.Name, step) || strings.Contains(o.Detail, "step "+step+" was skipped")
		}
		if o.Status == "SKIP" && !speech {
			t.Errorf("skipped: %s", o.Line())
		}
	}
}

var refRe = regexp.MustCompile(`(?i)(?:\b(?:src|href)\s*=\s*["']?([^"'\s>]*))|(?:url\(\s*["']?([^"')]*))`)

// TestPagesAreSelfContained: no script, and nothing the page would load:
// no src, href or url() that leaves the file.
func TestPagesAreSelfContained(t *testing.T) {
	t.Run("load", func(t *testing.T) { selfContained(t, loadRun(t)); selfContained(t, loadRun(t), loadRun(t)) })
	t.Run("lab", func(t *testing.T) { selfContained(t, labRun(t)); selfContained(t, labRun(t), labRun(t)) })
}

func selfContained(t *testing.T, dirs ...string) {
	t.Helper()
	html := render(t, dirs...)
	if strings.Contains(strings.ToLower(html), "<script") {
		t.Errorf("%v: the page has a script", dirs)
	}
	refs := refRe.FindAllStringSubmatch(html, -1)
	local := 0
	for _, m := range refs {
		ref := strings.ToLower(m[1] + m[2])
		if strings.Contains(ref, "http:") || strings.Contains(ref, "https:") || strings.HasPrefix(ref, "//") || !strings.HasPrefix(ref, "#") {
			t.Errorf("%v: external reference %q", dirs, m[0])
		}
		local++
	}
	if local == 0 {
		t.Errorf("%v: no in-page link found; the reference check saw nothing", dirs)
	}
	for _, want := range []string{"prefers-color-scheme: dark", "@media print", `<meta charset="utf-8">`} {
		if !strings.Contains(html, want) {
			t.Errorf("%v: page lacks %q", dirs, want)
		}
	}
}

// TestChartsHaveTitlesAndUnits: each chart names itself and labels its
// axes, a unit in parentheses on the value axis.
func TestChartsHaveTitlesAndUnits(t *testing.T) {
	for name, run := range map[string]func(*testing.T) string{"lab": labRun, "load": loadRun} {
		t.Run(name, func(t *testing.T) { titlesAndUnits(t, run(t)) })
	}
}

func titlesAndUnits(t *testing.T, dir string) {
	t.Helper()
	for title, svg := range charts(t, render(t, dir)) {
		if !strings.Contains(svg, "<title>"+html.EscapeString(title)+"</title>") {
			t.Errorf("%s: chart %q has no <title>", dir, title)
		}
		if !regexp.MustCompile(`>[^<]*\((ms|tokens[^)]*|count|calls at once|requests/s)\)<`).MatchString(svg) &&
			!strings.Contains(svg, ">B/A") {
			t.Errorf("%s: chart %q has no axis label with a unit", dir, title)
		}
	}
}

func TestLoadPageHoldsEveryChart(t *testing.T) {
	html := render(t, loadRun(t))
	all := charts(t, html)
	l := rundir.ReadLoad(loadRun(t))
	want := 4 + len(l.Levels) + 1 // percentiles of 4 metrics, requests per level, the server
	if len(all) != want {
		t.Errorf("%d charts, want %d: %v", len(all), want, keys(all))
	}
	for metric, key := range map[string]string{"TTFT": "ttft_ms", "First sentence": "first_sentence_ms"} {
		svg := chartOf(t, all, metric+" by level: p50, p95, p99")
		// One p95 point per level whose p95 is bounded (the others say
		// too few samples and are not drawn), and the legend's.
		want := 0
		for _, lv := range l.Levels {
			if d, _ := lv.Summary.Metric(key); d.P95CI != nil {
				want++
			}
		}
		if want > 0 {
			want++
		}
		if got := marks(svg, "fill", chart.P95); got != want {
			t.Errorf("%s: %d p95 points, want %d (one per level with a bounded p95, and the legend's)", metric, got, want)
		}
		if marks(svg, "stroke", chart.Limit) != 2 || marks(svg, "stroke", chart.Capacity) != 2 {
			t.Errorf("%s: the SLO line or the capacity marker is missing", metric)
		}
	}
	for _, lv := range l.Levels {
		svg := chartOf(t, all, "Requests at "+l.LevelName(lv.Level))
		ok := lv.Summary.OK
		if got := marks(svg, "stroke", chart.TTFT); got != int(ok)+1 {
			t.Errorf("level %g: %d first-token marks, want %d (one per request that answered)", lv.Level, got, int(ok)+1)
		}
		if got := marks(svg, "stroke", chart.FirstSentence); got != int(ok)+1 {
			t.Errorf("level %g: %d first-sentence marks, want %d", lv.Level, got, int(ok)+1)
		}
	}
	svg := chartOf(t, all, "The server: slots busy, requests running and deferred")
	if marks(svg, "stroke", chart.TTFT) != 2 || marks(svg, "stroke", chart.Cut) != 2 {
		t.Errorf("server chart lacks slots busy or requests deferred")
	}
	// The fake server answers one request of the highest level 503; the
	// SLOs' limits hold at every other level (see reporttest).
	if l.Capacity == nil {
		t.Fatalf("the load run has no capacity: %+v", l.Levels)
	}
	wants := []string{"Capacity: " + l.LevelName(l.Capacity.Level) + ", the highest level that met every objective", ">1 (http 503: 1)</td>",
		"<td>http 503</td>", "(unavailable_error): Loading model", "none: falls on a failed request",
		"over requests with a first token (one that failed later included) (n: how many)", ">ttftlab test</td>"}
	for _, lv := range l.Levels {
		if lv.Goodput != nil {
			wants = append(wants, ">"+num(*lv.Goodput)+"</td>")
		}
	}
	for _, want := range wants {
		if !strings.Contains(html, want) {
			t.Errorf("load page lacks %q", want)
		}
	}
}

// TestCompareShowsRatios: B is A with every time doubled; B/A is 2 for
// each of them, and both runs' charts are on the page.
func TestCompareShowsRatios(t *testing.T) {
	b := t.TempDir()
	fields, err := rundir.Flatten([]byte(readFile(t, filepath.Join(labRun(t), "report.json"))))
	if err != nil {
		t.Fatal(err)
	}
	var report map[string]any
	readJSON(t, filepath.Join(labRun(t), "report.json"), &report)
	for k, v := range report {
		if f, ok := v.(float64); ok && strings.HasSuffix(k, "_ms") {
			report[k] = f * 2
		}
	}
	data, _ := json.Marshal(report)
	if err := os.WriteFile(filepath.Join(b, "report.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	html := render(t, labRun(t), b)
	n := 0
	for _, f := range fields {
		if v, ok := f.Number(); ok && v != 0 && strings.HasSuffix(f.Path, "_ms") {
			row := fmt.Sprintf("<td>report.json %s</td><td>ms</td><td class=\"num\">%s</td><td class=\"num\">%s</td><td class=\"num\">2.00×</td>",
				f.Path, num(v), num(2*v))
			if !strings.Contains(html, row) {
				t.Errorf("comparison lacks the row %s", row)
			}
			n++
		}
	}
	if n < 7 {
		t.Fatalf("only %d times compared", n)
	}
	// B has report.json alone: no timed figure to give a verdict on.
	if !strings.Contains(html, `<section id="verdicts">`) || !strings.Contains(html, "only in A: ttft_ms, total_ms") ||
		!strings.Contains(html, "no figure has a ratio") {
		t.Errorf("the verdicts do not say that B has no timed figure")
	}
	if strings.Count(html, `<div class="side">A</div>`) < 10 || strings.Count(html, `<div class="side">B</div>`) < 3 {
		t.Errorf("the two runs are not side by side")
	}
}

func TestCompareLoadRuns(t *testing.T) {
	html := render(t, loadRun(t), loadRun(t))
	l := rundir.ReadLoad(loadRun(t))
	for _, lv := range l.Levels {
		p95 := lv.Summary.FirstSentenceMs.P95
		if p95 == nil {
			continue
		}
		row := fmt.Sprintf("<td>level %s first_sentence_ms p95</td><td>ms</td><td class=\"num\">%s</td><td class=\"num\">%s</td><td class=\"num\">1.00×</td>",
			num(lv.Level), num(*p95), num(*p95))
		if !strings.Contains(html, row) {
			t.Errorf("load comparison lacks level %g's first-sentence p95 and its ratio: %s", lv.Level, row)
		}
	}
}

func TestFoldersThatAreNoRun(t *testing.T) {
	empty := t.TempDir()
	for _, c := range []struct {
		dirs []string
		want string
	}{
		{[]string{empty}, "holds neither a lab run"},
		{[]string{filepath.Join(empty, "missing")}, "cannot open run folder"},
	} {
		_, err := Render(Meta{}, c.dirs...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Render(%v) = %v, want an error with %q", c.dirs, err, c.want)
		}
	}
	t.Run("runs", func(t *testing.T) {
		for _, c := range []struct {
			dirs []string
			want string
		}{
			{[]string{labRun(t), loadRun(t)}, "cannot compare a lab run"},
			{[]string{labRun(t), labRun(t), labRun(t)}, "one run or compares two"},
		} {
			_, err := Render(Meta{}, c.dirs...)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Render(%v) = %v, want an error with %q", c.dirs, err, c.want)
			}
		}
	})
}

// TestBrokenAndMissingFiles: a lab folder with one step only and a broken
// file still gets a page, which names the broken file.
func TestBrokenAndMissingFiles(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"ttft.json":     readFile(t, filepath.Join(labRun(t), "ttft.json")),
		"sentence.json": `{"ttft_ms": 12, "first_sentence_ms": `,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	html := render(t, dir)
	if n := len(charts(t, html)); n != 1 {
		t.Errorf("%d charts for one step's file, want 1", n)
	}
	if !strings.Contains(html, "sentence.json: unexpected end of JSON input") || !strings.Contains(html, "(not written by this run)") {
		t.Errorf("the page does not name the broken file or the missing report.json")
	}
}

func TestWriteDefaultsAndAtomic(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"ttft.json"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(readFile(t, filepath.Join(labRun(t), name))), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	path, err := Write("", Meta{}, dir)
	if err != nil || path != filepath.Join(dir, FileName) {
		t.Fatalf("Write = %q, %v; want %s", path, err, filepath.Join(dir, FileName))
	}
	if _, err := Write(filepath.Join(dir, "no", "such", "folder", "r.html"), Meta{}, dir); err == nil ||
		!strings.Contains(err.Error(), "writing the report") {
		t.Errorf("Write into a missing folder: %v", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("folder holds %d entries after writing, want ttft.json and %s", len(entries), FileName)
	}
}

// TestLoadRunIsCurrent: the load run the page tests read decodes
// member for member into the shared record types, and agrees with itself
// as only a run ttftlab wrote does: every request's queue_ms is its
// start_ms less its scheduled_ms, and requests.csv has the record's
// columns in their order, after the tags. (The hand-made files these
// tests read before did neither.)
func TestLoadRunIsCurrent(t *testing.T) {
	var doc artifact.Load
	if err := artifact.DecodeStrict([]byte(readFile(t, filepath.Join(loadRun(t), "load.json"))), &doc); err != nil {
		t.Fatalf("the run's load.json is not an artifact.Load: %v", err)
	}
	for i, line := range strings.Split(strings.TrimSpace(readFile(t, filepath.Join(loadRun(t), "requests.jsonl"))), "\n") {
		var r artifact.LoadRequest
		if err := artifact.DecodeStrict([]byte(line), &r); err != nil {
			t.Errorf("requests.jsonl line %d: %v", i+1, err)
			continue
		}
		if r.StartMs == nil || r.ScheduledMs == nil || r.QueueMs == nil {
			t.Errorf("requests.jsonl line %d: start_ms, scheduled_ms or queue_ms is null", i+1)
		} else if d := *r.StartMs - *r.ScheduledMs - *r.QueueMs; d < -0.002 || d > 0.002 {
			t.Errorf("requests.jsonl line %d: queue_ms %g, but start_ms %g - scheduled_ms %g", i+1, *r.QueueMs, *r.StartMs, *r.ScheduledMs)
		}
	}
	head, _, _ := strings.Cut(readFile(t, filepath.Join(loadRun(t), "requests.csv")), "\r\n") // RFC 4180's line end
	if want := strings.Join(append([]string{"level", "call", "turn"}, artifact.RequestColumns...), ","); head != want {
		t.Errorf("requests.csv's header is\n%s\nwant\n%s", head, want)
	}
}
