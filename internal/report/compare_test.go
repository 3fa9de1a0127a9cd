package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"ttftlab/internal/artifact"
	"ttftlab/internal/chart"
	"ttftlab/internal/figures"
	"ttftlab/internal/interval"
	"ttftlab/internal/rundir"
)

// scaled writes a copy of the run in from with every time (each member
// named *_ms, in every JSON and JSON Lines file, but an SLO's limit)
// multiplied by k: the same run, k times slower.
func scaled(t *testing.T, from string, k float64) string {
	t.Helper()
	dir := copyDir(t, from)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		var lines [][]byte
		switch filepath.Ext(e.Name()) {
		case ".json":
			lines = [][]byte{[]byte(readFile(t, path))}
		case ".jsonl":
			lines = bytes.Split(bytes.TrimSpace([]byte(readFile(t, path))), []byte("\n"))
		default:
			continue
		}
		var out bytes.Buffer
		for _, line := range lines {
			var v any
			if err := json.Unmarshal(line, &v); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			data, err := json.Marshal(scale(v, false, k))
			if err != nil {
				t.Fatal(err)
			}
			out.Write(append(data, '\n'))
		}
		if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func scale(v any, isTime bool, k float64) any {
	switch x := v.(type) {
	case float64:
		if isTime {
			return x * k
		}
	case []any:
		for i := range x {
			x[i] = scale(x[i], isTime, k)
		}
	case map[string]any:
		for key, e := range x {
			// An SLO's limit_ms is a setting, not a time measured.
			x[key] = scale(e, strings.HasSuffix(key, "_ms") && key != "limit_ms", k)
		}
	}
	return v
}

// compared draws the comparison of a and b into a temporary folder and
// returns its page and compare.json, which must decode strictly.
func compared(t *testing.T, seed uint64, a, b string) (string, *artifact.Compare) {
	t.Helper()
	d, err := Draw(filepath.Join(t.TempDir(), "compare.html"), Meta{Version: "test", Seed: seed}, a, b)
	if err != nil {
		t.Fatal(err)
	}
	if d.ComparePath != filepath.Join(filepath.Dir(d.Path), artifact.CompareFile) {
		t.Errorf("compare.json at %s, not beside %s", d.ComparePath, d.Path)
	}
	data := []byte(readFile(t, d.ComparePath))
	var c artifact.Compare
	if err := artifact.DecodeStrict(data, &c); err != nil {
		t.Fatalf("compare.json does not decode strictly: %v", err)
	}
	if err := artifact.Decode(data, &artifact.Compare{}); err != nil {
		t.Fatalf("compare.json lacks a member: %v", err)
	}
	if !reflect.DeepEqual(&c, d.Compare) {
		t.Errorf("compare.json is not what Draw returned")
	}
	return readFile(t, d.Path), &c
}

// enough says whether both sides' samples of a figure bound its
// percentile (the same order-statistic interval as the page's tables) and
// the percentile is above 0: B/A of a 0 ms statistic (no stall in any
// run) has no ratio, and interval.RatioCI leaves it unbounded.
func enough(t *testing.T, a, b []string, name, stat string) bool {
	t.Helper()
	p, _ := strconv.ParseFloat(strings.TrimPrefix(stat, "p"), 64)
	for _, side := range [][]string{a, b} {
		var vs []float64
		for _, dir := range side {
			for _, s := range samplesOf(t, dir) {
				if s.Name == name {
					vs = append(vs, s.Values...)
				}
			}
		}
		if ci := interval.PercentileCI(vs, p); ci.Unbounded || !(interval.Quantile(p)(vs) > 0) {
			return false
		}
	}
	return true
}

// zeroIn says whether every sample of the figure name in dir is 0.
func zeroIn(t *testing.T, dir, name string) bool {
	t.Helper()
	seen := false
	for _, s := range samplesOf(t, dir) {
		if s.Name != name {
			continue
		}
		for _, v := range s.Values {
			if v != 0 {
				return false
			}
			seen = true
		}
	}
	return seen
}

func samplesOf(t *testing.T, dir string) []figures.Sample {
	t.Helper()
	k, err := rundir.Detect(dir)
	if err != nil {
		t.Fatal(err)
	}
	if k == rundir.KindLoad {
		return rundir.ReadLoad(dir).Samples()
	}
	return rundir.ReadLab(dir, "").Samples()
}

// spread is the largest sample of a figure of the run in dir over its
// smallest (+Inf with a failed request).
func spread(t *testing.T, dir, name string) float64 {
	t.Helper()
	for _, s := range samplesOf(t, dir) {
		if s.Name == name {
			return slices.Max(s.Values) / slices.Min(s.Values)
		}
	}
	t.Fatalf("%s has no figure %s", dir, name)
	return 0
}

func verdictsOf(c *artifact.Compare) map[string]int {
	n := map[string]int{}
	for _, f := range c.Figures {
		n[f.Verdict]++
	}
	return n
}

// TestCompareVerdicts: a run against a copy of itself gives no
// difference detected for every figure whose samples bound its
// statistic; against a copy with every time 1.3 times longer, slower for
// those; no difference detected (B/A 1 [1, 1]) for a time that is 0 in
// every sample of both; too few samples for the others (a lab's steps repeat their
// measurement, so none of its figures has a single sample, and at least
// 20 are decided). Single runs carry the drift warning on the page, in compare.json
// and on the console. Fails before this change: there were no verdicts.
func TestCompareVerdicts(t *testing.T) {
	for _, c := range []struct {
		name string
		run  func(*testing.T) string
	}{{"lab", labRun}, {"load", loadRun}} {
		t.Run(c.name, func(t *testing.T) {
			a := c.run(t)
			for _, k := range []float64{1, 1.3} {
				b := scaled(t, a, k)
				page, cmp := compared(t, DefaultSeed, a, b)
				if cmp.RunsA != 1 || cmp.RunsB != 1 || cmp.DriftCovered || cmp.Warning != DriftWarning || cmp.Seed != DefaultSeed || cmp.Reps != Reps {
					t.Errorf("x%g: runs %d, %d, drift covered %v, warning %q, seed %d, reps %d", k, cmp.RunsA, cmp.RunsB, cmp.DriftCovered, cmp.Warning, cmp.Seed, cmp.Reps)
				}
				if !strings.Contains(page, html.EscapeString(DriftWarning)) {
					t.Errorf("x%g: the page lacks the drift warning", k)
				}
				decided, slower, single := 0, 0, 0
				for _, f := range cmp.Figures {
					want := []string{string(interval.Undecided)}
					if zeroIn(t, a, f.Name) && zeroIn(t, b, f.Name) && f.NA >= 6 {
						// 0 in every sample of both (no stall): B is A,
						// however long B's other times are.
						want = []string{string(interval.NoDifference)}
						decided++
						if f.Ratio == nil || *f.Ratio != 1 || f.RatioCI == nil || f.RatioCI[0] != 1 || f.RatioCI[1] != 1 {
							t.Errorf("x%g: %s all 0: ratio %v, interval %v, want 1 [1, 1]", k, f.Name, f.Ratio, f.RatioCI)
						}
					} else if enough(t, []string{a}, []string{b}, f.Name, f.Stat) {
						decided++
						want = []string{string(interval.NoDifference)}
						if k != 1 {
							// B is A times 1.3: the interval holds 1.3, and
							// the verdict is slower, or no difference where
							// A's own spread is as wide as 1.3. Where it is
							// narrower, every replicate's B/A is above 1, so
							// the verdict must be slower.
							want = []string{string(interval.Slower), string(interval.NoDifference)}
							if spread(t, a, f.Name) < k {
								want = want[:1]
							}
						}
						if f.RatioCI == nil || f.P == nil || f.Ratio == nil || math.Abs(*f.Ratio-k) > 1e-6 || f.RatioCI[0] > k || f.RatioCI[1] < k {
							t.Errorf("x%g: %s %s: ratio %v, interval %v, p %v", k, f.Name, f.Stat, f.Ratio, f.RatioCI, f.P)
						}
					}
					if (f.RatioCI == nil) != (f.Level == nil) || f.Level != nil && *f.Level < interval.Level {
						t.Errorf("x%g: %s %s: interval %v at level %v", k, f.Name, f.Stat, f.RatioCI, f.Level)
					}
					if f.RatioCI != nil && (f.RatioCI[0] > 1 || f.RatioCI[1] < 1) != (f.Verdict == string(interval.Slower) || f.Verdict == string(interval.Faster)) {
						t.Errorf("x%g: %s %s: %s beside %v at %v", k, f.Name, f.Stat, f.Verdict, f.RatioCI, *f.Level)
					}
					if f.NA == 1 {
						single++
					}
					if f.Verdict == string(interval.Slower) {
						slower++
					}
					if !slices.Contains(want, f.Verdict) {
						t.Errorf("x%g: %s %s (n %d, %d): %s, want %v", k, f.Name, f.Stat, f.NA, f.NB, f.Verdict, want)
					}
				}
				if c.name == "load" && (decided < 6 || k != 1 && slower == 0) || c.name == "lab" && (single != 0 || decided < 20) {
					t.Errorf("x%g: %d figures decided, %d slower, %d of one sample: %v", k, decided, slower, single, verdictsOf(cmp))
				}
				if len(cmp.OnlyA)+len(cmp.OnlyB) != 0 {
					t.Errorf("x%g: a run and its copy differ in figures: %v %v", k, cmp.OnlyA, cmp.OnlyB)
				}
				// The console and the page give each interval with its level.
				var console bytes.Buffer
				if err := FormatVerdicts(&console, cmp); err != nil {
					t.Fatal(err)
				}
				lines := strings.Split(console.String(), "\n")
				for i, f := range cmp.Figures {
					if f.Level == nil {
						continue
					}
					_, ci, level := ratioCIText(f)
					if row := strings.Fields(lines[2+i]); !slices.Contains(row, level[:len(level)-2]) || !strings.Contains(lines[2+i], ci) {
						t.Errorf("x%g: console row %q lacks %s at %s", k, lines[2+i], ci, level)
					}
					if !strings.Contains(page, "<td class=\"num\">"+strings.ReplaceAll(level, " ", "\u00a0")+"</td>") && !strings.Contains(page, "<td class=\"num\">"+level+"</td>") {
						t.Errorf("x%g: the page lacks the level %s", k, level)
					}
				}
			}
		})
	}
}

// TestCompareSeed: the same seed gives the same intervals, another seed
// other ones; compare.json records it.
func TestCompareSeed(t *testing.T) {
	a := loadRun(t)
	b := scaled(t, a, 1.1)
	_, one := compared(t, 7, a, b)
	_, again := compared(t, 7, a, b)
	_, other := compared(t, 8, a, b)
	if one.Seed != 7 || other.Seed != 8 {
		t.Errorf("seeds recorded: %d, %d", one.Seed, other.Seed)
	}
	one.Seed, again.Seed, other.Seed = 0, 0, 0
	if !reflect.DeepEqual(one.Figures, again.Figures) {
		t.Errorf("the same seed gave other intervals")
	}
	differ := false
	for i, f := range one.Figures {
		if f.RatioCI != nil && !reflect.DeepEqual(f.RatioCI, other.Figures[i].RatioCI) {
			differ = true
		}
	}
	if !differ {
		t.Errorf("seeds 7 and 8 gave the same intervals")
	}
}

// TestCompareRepeatedRuns: folders of repeated runs are compared over
// their runs: the bootstrap resamples runs and requests, compare.json
// records two runs a side, and the page still warns that the drift
// between when A ran and when B ran is not covered (two separate
// folders); the verdicts lead the page, the chart draws each interval
// as an error bar.
func TestCompareRepeatedRuns(t *testing.T) {
	a := repeated(t, labRun(t), 2)
	b := t.TempDir()
	for _, r := range []string{"run-1", "run-2"} {
		if err := os.Rename(scaled(t, filepath.Join(a, r), 1.3), filepath.Join(b, r)); err != nil {
			t.Fatal(err)
		}
	}
	page, cmp := compared(t, DefaultSeed, a, b)
	if cmp.RunsA != 2 || cmp.RunsB != 2 || cmp.DriftCovered || cmp.Interleaved || cmp.Warning != DriftWarning || !strings.Contains(page, html.EscapeString(DriftWarning)) {
		t.Errorf("runs %d, %d, drift covered %v, interleaved %v, warning %q", cmp.RunsA, cmp.RunsB, cmp.DriftCovered, cmp.Interleaved, cmp.Warning)
	}
	withCI := 0
	for _, f := range cmp.Figures {
		if f.Name == "ttft_ms" && (f.NA != 2*len(rundir.ReadLab(labRun(t), "").TTFT.Runs) || f.RatioCI == nil) {
			t.Errorf("ttft_ms over two runs: n %d, interval %v", f.NA, f.RatioCI)
		}
		if f.RatioCI != nil {
			withCI++
		}
		if f.Verdict == string(interval.Faster) {
			t.Errorf("%s: faster, though B is A 1.3 times slower", f.Name)
		}
	}
	verdicts, numbers, sections := strings.Index(page, `<section id="verdicts">`), strings.Index(page, `<section id="ratios">`), strings.Index(page, `<section id="ttft">`)
	if answer := strings.Index(page, `<section id="answer"`); answer < 0 || !(answer < verdicts && verdicts < numbers && numbers < sections) {
		t.Errorf("the page does not open with the verdicts: answer %d, verdicts %d, numbers %d, sections %d", answer, verdicts, numbers, sections)
	}
	svg := ""
	for _, m := range svgRe.FindAllStringSubmatch(page, -1) {
		if m[1] == verdictChartTitle {
			svg = m[2]
		}
	}
	if got := bars(svg, chart.Chunk); withCI == 0 || got != withCI+1 {
		t.Errorf("ratio chart: %d error bars with the legend's, want %d", got, withCI+1)
	}
	if !strings.Contains(page, "2 runs of A, 2 of B, made separately; bootstrap of runs and requests") {
		t.Errorf("the page does not say the runs are resampled")
	}
}

// TestCompareSLOPercentiles: load runs are compared on their median and
// on each percentile their SLOs are set on.
func TestCompareSLOPercentiles(t *testing.T) {
	a := copyDir(t, loadRun(t))
	var doc map[string]any
	readJSON(t, filepath.Join(a, "load.json"), &doc)
	doc["settings"].(map[string]any)["slo"].([]any)[0].(map[string]any)["percentile"] = 99.0
	writeJSON(t, filepath.Join(a, "load.json"), doc)
	_, c := compared(t, DefaultSeed, a, loadRun(t))
	stats := map[string]int{}
	for _, f := range c.Figures {
		stats[f.Stat]++
	}
	levels := len(rundir.ReadLoad(a).Levels) * len(rundir.LoadMetrics)
	if len(stats) != 3 || stats["p50"] != levels || stats["p95"] != levels || stats["p99"] != levels {
		t.Errorf("statistics compared: %v, want p50, p95 (B's SLO) and p99 (A's) for each of %d figures", stats, levels)
	}
}

// TestCompareSaysWhatElseDiffers: B, a copy of A that names another model,
// is compared with a line saying so in compare.json, on the page and on
// the console (runs of two models were compared without a word); a plain
// copy names nothing.
func TestCompareSaysWhatElseDiffers(t *testing.T) {
	a := loadRun(t)
	same := scaled(t, a, 1)
	if _, cmp := compared(t, DefaultSeed, a, same); len(cmp.Differ) != 0 {
		t.Errorf("a copy differs: %v", cmp.Differ)
	}
	b := scaled(t, a, 1)
	path := filepath.Join(b, "load.json")
	var doc map[string]any
	if err := json.Unmarshal([]byte(readFile(t, path)), &doc); err != nil {
		t.Fatal(err)
	}
	model, _ := doc["model"].(map[string]any)
	if model == nil || model["name"] == nil {
		t.Fatalf("load.json names no model: %v", doc["model"])
	}
	was := model["name"].(string)
	model["name"] = "another-model"
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	page, cmp := compared(t, DefaultSeed, a, b)
	want := "model: A " + was + ", B another-model"
	if len(cmp.Differ) != 1 || !strings.HasPrefix(cmp.Differ[0], want) {
		t.Errorf("differ %v, want %q", cmp.Differ, want)
	}
	if !strings.Contains(page, "A and B differ") {
		t.Errorf("the page does not say A and B differ")
	}
	var console strings.Builder
	if err := FormatVerdicts(&console, cmp); err != nil || !strings.Contains(console.String(), "A and B differ: "+want) {
		t.Errorf("console (%v):\n%s", err, console.String())
	}
}

// TestCompareNamesEverySettingThatDiffers: two load runs with another
// --kb and --docs name both settings in compare.json's differ; two lab
// runs with another --kb and --api name both. Fails before this change:
// differ was null.
func TestCompareNamesEverySettingThatDiffers(t *testing.T) {
	a := loadRun(t)
	b := scaled(t, a, 1)
	path := filepath.Join(b, "load.json")
	var doc map[string]any
	readJSON(t, path, &doc)
	set := doc["settings"].(map[string]any)
	set["kb"] = "kb-b"
	docs := set["docs"].(float64)
	set["docs"] = docs + 1
	writeJSON(t, path, doc)
	_, cmp := compared(t, DefaultSeed, a, b)
	want := []string{fmt.Sprintf("docs: A %v, B %v", docs, docs+1), "kb: A the bundled KB, B kb-b"}
	if !slices.Equal(cmp.Differ, want) {
		t.Errorf("load: differ %q, want %q", cmp.Differ, want)
	}

	la := run{kind: rundir.KindLab, lab: &rundir.Lab{Steps: &artifact.Steps{API: "", KB: ""}}}
	lb := run{kind: rundir.KindLab, lab: &rundir.Lab{Steps: &artifact.Steps{API: "responses", KB: "my-kb"}}}
	want = []string{"api: A chat, B responses", "kb: A the bundled KB, B my-kb"}
	if got := settingsDiffer(la, lb); !slices.Equal(got, want) {
		t.Errorf("lab: differ %q, want %q", got, want)
	}
	if got := settingsDiffer(la, la); len(got) != 0 {
		t.Errorf("lab: a run differs from itself: %q", got)
	}
}

// TestCompareInterleaved: the two sides of one interleaved run
// (Meta.Interleaved, as `ttftlab ab` draws them) carry no drift warning,
// on the page, in compare.json or on the console, and say how they ran;
// the same folders compared as two separate runs do warn, on the page and
// the console, naming `ttftlab ab`. Fails before this change: a single
// run a side always warned "repeat with --runs", and no comparison could
// say its sides ran interleaved.
func TestCompareInterleaved(t *testing.T) {
	a := labRun(t)
	b := scaled(t, a, 1.3)
	for _, interleaved := range []bool{true, false} {
		d, err := Draw(filepath.Join(t.TempDir(), "compare.html"), Meta{Version: "test", Seed: DefaultSeed, Interleaved: interleaved}, a, b)
		if err != nil {
			t.Fatal(err)
		}
		page := readFile(t, d.Path)
		var c artifact.Compare
		if err := artifact.DecodeStrict([]byte(readFile(t, d.ComparePath)), &c); err != nil {
			t.Fatal(err)
		}
		var console bytes.Buffer
		if err := FormatVerdicts(&console, &c); err != nil {
			t.Fatal(err)
		}
		warned := strings.Contains(page, html.EscapeString(DriftWarning)) || strings.Contains(page, "drift not covered") || strings.Contains(console.String(), "warning: ")
		said := strings.Contains(page, "A and B ran interleaved, each step&#39;s repetitions in the order A B B A") &&
			strings.Contains(console.String(), "A and B ran interleaved, each step's repetitions in the order A B B A, so a drift fell on both alike; one run a side; bootstrap of its repetitions")
		if interleaved && (c.Warning != "" || !c.DriftCovered || !c.Interleaved || warned || !said) {
			t.Errorf("interleaved: warning %q, drift covered %v, interleaved %v, warned %v, said how %v\n%s", c.Warning, c.DriftCovered, c.Interleaved, warned, said, console.String())
		}
		if !interleaved && (c.Warning != DriftWarning || c.DriftCovered || c.Interleaved || !strings.Contains(page, html.EscapeString(DriftWarning)) ||
			!strings.HasSuffix(console.String(), "warning: "+DriftWarning+"\n") || !strings.Contains(DriftWarning, "`ttftlab ab` runs them interleaved and covers it")) {
			t.Errorf("separate: warning %q, drift covered %v, interleaved %v\n%s", c.Warning, c.DriftCovered, c.Interleaved, console.String())
		}
	}
}

// TestCompareLoadFiguresOfSpokenTurns: the ratio table of two loads has
// each percentile of every distribution a level has: the spoken answer's
// and the spoken turn's when the callers spoke, none of them otherwise.
func TestCompareLoadFiguresOfSpokenTurns(t *testing.T) {
	v := 1200.0
	d := artifact.Dist{N: 20, P50: &v, P95: &v, P99: &v}
	lv := artifact.LoadLevel{Level: 1}
	names := func() []string {
		var out []string
		for _, m := range loadFigures(&rundir.Load{Levels: []artifact.LoadLevel{lv}}) {
			out = append(out, m.name)
		}
		return out
	}
	if got := names(); slices.Contains(got, "level 1 mouth_to_ear_ms p95") {
		t.Errorf("a load no caller spoke: %v", got)
	}
	lv.Summary.MouthToEarMs, lv.Summary.SttFinalMs = &d, &d
	got := names()
	for _, want := range []string{"level 1 mouth_to_ear_ms p50", "level 1 mouth_to_ear_ms p95", "level 1 stt_final_ms p99"} {
		if !slices.Contains(got, want) {
			t.Errorf("no %q in %v", want, got)
		}
	}
}
