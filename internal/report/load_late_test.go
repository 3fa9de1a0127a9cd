package report

import (
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"ttftlab/internal/artifact"
	"ttftlab/internal/rundir"
)

// writeLoad writes a load folder as the load writes one: load.json and
// requests.jsonl from their record types.
func writeLoad(t *testing.T, doc artifact.Load, rows []artifact.LoadRequest) string {
	t.Helper()
	dir := t.TempDir()
	data, err := artifact.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "load.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, r := range rows {
		line, err := artifact.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(filepath.Join(dir, "requests.jsonl"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func fp(x float64) *float64 { return &x }

// lateDist is a level's late_ms as the engine records it.
func lateDist(n int, p50, p95, p99, most float64) *artifact.Dist {
	return &artifact.Dist{N: n, Over: artifact.OverLate, P50: fp(p50), P50CI: &[2]float64{p50 / 2, p50 * 2}, P95: fp(p95),
		P99: fp(p99), Max: fp(most)}
}

// alerts are the page's warnings.
var alertRe = regexp.MustCompile(`<p class="warning" role="alert">(.*?)</p>`)

// TestLatenessByLevelAndFellBehind: every level's late_ms is on the page
// with n and what it is over, and the client is said to have fallen
// behind exactly at the levels whose p99 is above 10 ms (10 itself is
// not).
func TestLatenessByLevelAndFellBehind(t *testing.T) {
	late := []*artifact.Dist{lateDist(40, 0.4, 2.5, 10, 14), lateDist(80, 3, 9, 10.5, 31.25), lateDist(160, 0.3, 1, 1.5, 2)}
	doc := artifact.Load{Settings: artifact.LoadSettings{Mode: "concurrency", Levels: []float64{1, 2, 4}, Requests: 40, Turns: 1}}
	for i, d := range late {
		doc.Levels = append(doc.Levels, artifact.LoadLevel{Level: doc.Settings.Levels[i],
			Summary: artifact.LevelSummary{ManySummary: artifact.ManySummary{Requests: d.N, OK: d.N, LateMs: d}}})
	}
	dir := writeLoad(t, doc, nil)
	page := render(t, dir)
	tab := lateTable(rundir.ReadLoad(dir))
	if tab == nil || len(tab.Rows) != 3 {
		t.Fatalf("lateness table %+v, want a row per level", tab)
	}
	want := [][]string{
		{"1", "40", "0.4 [0.2,\u00a00.8]", tooFew, tooFew, "14", "yes"},
		{"2", "80", "3 [1.5,\u00a06]", tooFew, tooFew, "31.25", "no"},
		{"4", "160", "0.3 [0.15,\u00a00.6]", tooFew, tooFew, "2", "yes"},
	}
	for i, r := range tab.Rows {
		if strings.Join(r.Cells, "|") != strings.Join(want[i], "|") || (r.Class == "bad") != (i == 1) {
			t.Errorf("level row %d: %q class %q, want %q", i, r.Cells, r.Class, want[i])
		}
	}
	if !strings.Contains(page, html.EscapeString(tab.Caption)) || !strings.Contains(tab.Caption, artifact.OverLate) {
		t.Errorf("the page lacks the lateness table's caption saying what it is over: %q", tab.Caption)
	}
	alerts := alertRe.FindAllStringSubmatch(page, -1)
	if len(alerts) != 1 || !strings.Contains(alerts[0][1], "at concurrency 2 the client did not keep to its schedule") ||
		!strings.Contains(alerts[0][1], "10.5 ms late at p99 (max 31.25 ms, over 80 requests") {
		t.Errorf("warnings %q, want one, at concurrency 2", alerts)
	}
}

// TestOldLoadPageLacksTheNewParts: a load.json written before lateness,
// ramps, steady starts and traces renders as before: no lateness table,
// no warning, no trace section, no ramp.
func TestOldLoadPageLacksTheNewParts(t *testing.T) {
	doc := artifact.Load{Settings: artifact.LoadSettings{Mode: "concurrency", Levels: []float64{1, 2}, Requests: 2, Turns: 1},
		Levels: []artifact.LoadLevel{{Level: 1, Summary: artifact.LevelSummary{ManySummary: artifact.ManySummary{Requests: 2, OK: 2, TTFTMs: artifact.Dist{N: 2, P50: fp(30)}}}},
			{Level: 2, Summary: artifact.LevelSummary{ManySummary: artifact.ManySummary{Requests: 2, OK: 2, TTFTMs: artifact.Dist{N: 2, P50: fp(30)}}}}}}
	var rows []artifact.LoadRequest
	for i := range 4 {
		r := artifact.LoadRequest{Level: float64(1 + i/2), Call: i%2 + 1, Turn: 1}
		r.Index, r.StartMs, r.ScheduledMs, r.QueueMs, r.TTFTMs, r.TotalMs = i%2+1, fp(float64(i%2)*10), fp(float64(i%2)*10), fp(0), fp(30), fp(90)
		rows = append(rows, r)
	}
	dir := writeLoad(t, doc, rows)
	page := render(t, dir)
	for _, part := range []string{"lateness by level", `role="alert"`, `id="trace"`, "ramp", "steady state (--steady-start)", "NaN", "Inf"} {
		if strings.Contains(page, part) {
			t.Errorf("a page of an old load.json has %q", part)
		}
	}
	all := charts(t, page)
	chartOf(t, all, "Requests at concurrency 1")
	chartOf(t, all, "TTFT by level: p50, p95, p99")
}
