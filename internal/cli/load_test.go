package cli

import (
	"encoding/csv"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"ttftlab/internal/artifact"
	"ttftlab/internal/llamaserver"
)

// TestLoadEndToEnd runs `ttftlab load` against the real llama-server it
// starts itself: two levels, every artifact parses and accounts for every
// request, and the capacity printed is the one load.json's verdicts give
// (each verdict agreeing with its own value and limit: no constant
// ceiling on a measured time decides this test).
func TestLoadEndToEnd(t *testing.T) {
	_, model := needLlama(t)
	port := serverTestEnv(t)
	out := t.TempDir()
	code, stdout, stderr := runCLI("load", "--server", "http://127.0.0.1:"+itoa(port), "--model", model,
		"--concurrency", "1,2", "--requests", "6", "--out", out, "--slo", "ttft_ms<=60000@p95")
	t.Logf("%s%s", stdout, stderr)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	doc := strictLoad(t, out)
	compareWithRecorded(t, "load-e2e", out)
	if len(doc.Levels) != 2 || doc.Server == nil || doc.Server.Slots == nil || *doc.Server.Slots != 2 {
		t.Fatalf("load.json: %d levels, server %+v", len(doc.Levels), doc.Server)
	}
	capacity := 0.0
	for _, l := range doc.Levels {
		s := l.Summary
		if s.Requests != 6 || s.OK != 6 || l.Goodput == nil || *l.Goodput < 0 || *l.Goodput > 1 {
			t.Errorf("level %g: %d requests, %d ok, goodput %v", l.Level, s.Requests, s.OK, l.Goodput)
		}
		v := l.SLO[0]
		if held := v.ValueMs != nil && *v.ValueMs <= v.LimitMs; v.Met != held || l.SLOMet != held {
			t.Errorf("level %g: SLO %+v, slo_met %v: the verdict disagrees with its value and limit", l.Level, v, l.SLOMet)
		}
		if l.SLOMet {
			capacity = max(capacity, l.Level)
		}
	}
	switch {
	case capacity > 0 && (doc.Capacity == nil || doc.Capacity.Level != capacity):
		t.Errorf("load.json capacity %+v, want level %g (the highest whose SLO held)", doc.Capacity, capacity)
	case capacity > 0 && !strings.Contains(stdout, fmt.Sprintf("capacity: %g call", capacity)):
		t.Errorf("the console does not print the capacity %g", capacity)
	case capacity == 0 && (doc.Capacity != nil || !strings.Contains(stdout, "capacity: none")):
		t.Errorf("no level held, but load.json capacity %+v or the console says otherwise", doc.Capacity)
	}
	rows := jsonlRows(t, filepath.Join(out, "requests.jsonl"))
	f, _ := os.Open(filepath.Join(out, "requests.csv"))
	records, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil || len(rows) != 12 || len(records) != 13 {
		t.Errorf("requests.jsonl has %d rows, requests.csv %d lines (%v); want 12 and a header", len(rows), len(records), err)
	}
	for _, r := range rows {
		if r["ttft_ms"].(float64) > r["total_ms"].(float64) || r["queue_ms"].(float64) < 0 {
			t.Errorf("row %v", r)
		}
	}
	if s := jsonlRows(t, filepath.Join(out, "server.jsonl")); len(s) == 0 || s[0]["slots_total"] != 2.0 {
		t.Errorf("server.jsonl: %v", s)
	}
	// The Lua writer of load.json and the Go writers of the JSONL files
	// agree with the record types, member for member.
	for _, l := range doc.Levels {
		s := l.Summary
		if s.TTFTMs.N != 6 || s.QueueMs.N != 6 || s.TotalMs.N != 6 || s.Failed != 0 || len(s.Failures) != 0 ||
			s.TTFTMs.Over != artifact.OverTTFT || len(s.ByTurn) != 1 || s.ByTurn[0].N != 6 {
			t.Errorf("level %g summary %+v", l.Level, s)
		}
		if v := l.SLO[0]; v.ValueMs == nil || !v.Met || v.N != 6 || v.Failed != 0 {
			t.Errorf("level %g SLO %+v", l.Level, v)
		}
	}
	// What each level cost this machine, and the console's warning
	// exactly where load.json's figures cross its thresholds.
	warned := 0
	for _, l := range doc.Levels {
		c := l.Summary.Client
		if c == nil || c.Cores != runtime.NumCPU() || c.CPUMs <= 0 || c.ReaderCPUMs > c.CPUMs || c.Busy <= 0 ||
			c.ReaderWaitMs == nil || *c.ReaderWaitMs < 0 || *c.ReaderWaitMs > l.Summary.DurationMs {
			t.Errorf("level %g client %+v over %g ms", l.Level, c, l.Summary.DurationMs)
			continue
		}
		if c.ReaderRuns == nil || (*c.ReaderWaitMs > 0 && *c.ReaderRuns == 0) {
			t.Errorf("level %g: the reader waited %g ms over %v runs", l.Level, *c.ReaderWaitMs, c.ReaderRuns)
			continue
		}
		each := 0.0
		if *c.ReaderRuns > 0 {
			each = *c.ReaderWaitMs / *c.ReaderRuns
		}
		if c.Busy >= 0.8 || (*c.ReaderWaitMs/l.Summary.DurationMs >= 0.01 && each >= 0.05) {
			warned++
		}
	}
	if got := strings.Count(stdout, "client busy:"); got != warned {
		t.Errorf("the console warns of a busy client %d times, load.json's figures %d times", got, warned)
	}
	if m := doc.Model; m == nil || m.Name == nil || *m.Name != "stories260K" {
		t.Errorf("model %+v", doc.Model)
	}
	if got := strictLines[artifact.LoadRequest](t, filepath.Join(out, "requests.jsonl")); len(got) != 12 {
		t.Errorf("%d strict rows", len(got))
	}
	strictLines[artifact.LoadServerSample](t, filepath.Join(out, "server.jsonl"))
}

// TestLoadCtrlC: an interrupted load exits 130, stops the server it
// started, and leaves artifacts that parse with every request that ended:
// load.json with the level it stopped in, marked interrupted, accounting
// for every recorded request, so `ttftlab report` draws the folder.
func TestLoadCtrlC(t *testing.T) {
	_, model := needLlama(t)
	port := serverTestEnv(t)
	out := t.TempDir()
	cmd, stdout, stderr := startTTFTLabOut(t, "ttft p50/95/99", "load", "--server", "http://127.0.0.1:"+itoa(port), "--model", model,
		"--concurrency", "2", "--requests", "100000", "--max-tokens", "200", "--out", out)
	time.Sleep(500 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGINT)
	if code := waitExit(t, cmd, 20*time.Second); code != 130 {
		t.Errorf("exit %d, want 130:\n%s", code, stderr)
	}
	console := stdout.all(t, 20*time.Second)
	rows := jsonlRows(t, filepath.Join(out, "requests.jsonl"))
	if len(rows) == 0 {
		t.Errorf("no request recorded before the interruption")
	}
	doc := strictLoad(t, out)
	if len(doc.Levels) != 1 || !doc.Levels[0].Interrupted || doc.Levels[0].Summary.Requests != len(rows) ||
		doc.Levels[0].SLOMet || doc.Capacity != nil {
		t.Errorf("load.json levels %+v, capacity %+v; want the interrupted level with its %d requests", doc.Levels, doc.Capacity, len(rows))
	}
	// A request the stop canceled says how long it ran, as its total_ms.
	inMs := regexp.MustCompile(`bytes in ([0-9.]+) ms`)
	canceled := 0
	for _, r := range rows {
		if r["error_kind"] != "canceled" {
			continue
		}
		canceled++
		m := inMs.FindStringSubmatch(r["error"].(string))
		if m == nil {
			t.Errorf("canceled row: %q", r["error"])
			continue
		}
		if v, _ := strconv.ParseFloat(m[1], 64); math.Abs(v-r["total_ms"].(float64)) > 0.051 {
			t.Errorf("canceled row: %q, total_ms %v", r["error"], r["total_ms"])
		}
	}
	t.Logf("%d requests recorded, %d canceled by the stop", len(rows), canceled)
	// The console shows the stopped level's row, marked interrupted, with
	// the figures load.json holds.
	if len(doc.Levels) == 1 {
		l := doc.Levels[0]
		row := regexp.MustCompile(`(?m)^2 +\d+ +` + fmt.Sprintf("%d/%d", l.Summary.OK, l.Summary.Requests) + ` .* interrupted$`)
		if !row.MatchString(console) || !strings.Contains(console, "\n  interrupted: the figures are over the requests that ended before the stop") {
			t.Errorf("the console lacks the interrupted level's row (%d/%d requests ok):\n%s", l.Summary.OK, l.Summary.Requests, console)
		}
		if l.Summary.TTFTMs.N > 0 && !strings.Contains(console, ciLine(l.Summary.TTFTMs)+"\n") {
			t.Errorf("the console lacks the interrupted level's interval line %q", ciLine(l.Summary.TTFTMs))
		}
	}
	if !strings.Contains(stderr.String(), "interrupted; ") {
		t.Errorf("stderr does not say what was kept:\n%s", stderr)
	}
	if code, stdout, stderr := runCLI("report", out); code != 0 {
		t.Errorf("report on the interrupted run: exit %d\n%s%s", code, stdout, stderr)
	}
	// The report says the run was stopped, not that no level met the SLO.
	page, err := os.ReadFile(filepath.Join(out, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"the run was stopped in concurrency 2, before any level ended", "(interrupted)"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	if strings.Contains(string(page), "no level met every") {
		t.Errorf("report.html says no level met the SLO of a run stopped in its first level")
	}
	if st, _ := testRegistry(t).Load(port); st != nil {
		t.Errorf("the server was left recorded: %+v", st)
	}
	if err := llamaserver.PortFree("127.0.0.1", port); err != nil {
		t.Errorf("the server still listens: %v", err)
	}
}

// TestLoadPromptLongerThanContext: the real llama-server with a context
// too small for the prompt refuses every request with a 400. load exits
// 1 and says why, with the server's own message, on the console and in
// its error line; load.json is strict.
func TestLoadPromptLongerThanContext(t *testing.T) {
	_, model := needLlama(t)
	port := serverTestEnv(t)
	out := t.TempDir()
	code, stdout, stderr := runCLI("load", "--server", "http://127.0.0.1:"+itoa(port), "--model", model,
		"--ctx", "128", "--docs", "4", "--concurrency", "1,2", "--requests", "2", "--out", out, "--no-report")
	t.Logf("%s%s", stdout, stderr)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	if !strings.Contains(stdout, "failed 2 of 2 requests") || !strings.Contains(stdout, "http 400") ||
		!strings.Contains(stderr, "every request at concurrency 1 failed (2 of 2): http 400 x2") ||
		!strings.Contains(stderr, "context") {
		t.Errorf("the console or the error line lacks the kind, the count or the server's message")
	}
	doc := strictLoad(t, out)
	if len(doc.Levels) != 1 || doc.Levels[0].Summary.Failures[0].Status != 400 {
		t.Errorf("levels %+v", doc.Levels)
	}
}

// TestLoadCallsAndRequests: `--requests 4 --turns 2` is 4 calls and 8
// requests per level, and the console and load.json say both under their
// names; a p95 or p99 of 8 requests is marked as more than its sample
// supports; run_ms is one time axis across the levels in requests.jsonl
// and server.jsonl, where start_ms and t_ms restart at each level.
func TestLoadCallsAndRequests(t *testing.T) {
	_, model := needLlama(t)
	port := serverTestEnv(t)
	out := t.TempDir()
	code, stdout, stderr := runCLI("load", "--server", "http://127.0.0.1:"+itoa(port), "--model", model,
		"--concurrency", "1,2", "--requests", "4", "--turns", "2", "--think", "10ms", "--max-tokens", "8", "--docs", "0",
		"--out", out, "--slo", "ttft_ms<=60000@p50", "--no-report")
	t.Logf("%s%s", stdout, stderr)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	if !strings.Contains(stdout, "per level 4 calls of 2 turns each (8 requests)") {
		t.Errorf("the heading does not say calls and requests")
	}
	rows := 0
	for _, line := range strings.Split(stdout, "\n") {
		f := strings.Fields(line)
		if len(f) > 3 && (f[0] == "1" || f[0] == "2") {
			rows++
			if f[1] != "4" || f[2] != "8/8" || !strings.Contains(line, "*") {
				t.Errorf("level row %q: want 4 calls, 8/8 requests and marked percentiles", line)
			}
		}
	}
	if rows != 2 || !strings.Contains(stdout, "*: too few samples to bound this percentile") {
		t.Errorf("%d level rows, or no note on the marked percentiles", rows)
	}
	doc := strictLoad(t, out)
	if doc.Settings.Calls != 4 || doc.Settings.Requests != 8 {
		t.Errorf("settings calls %d, requests %d; want 4 and 8", doc.Settings.Calls, doc.Settings.Requests)
	}
	for _, l := range doc.Levels {
		if l.Summary.Calls != 4 || l.Summary.Requests != 8 || l.Interrupted {
			t.Errorf("level %g: calls %d, requests %d", l.Level, l.Summary.Calls, l.Summary.Requests)
		}
	}
	reqs := strictLines[artifact.LoadRequest](t, filepath.Join(out, "requests.jsonl"))
	lastOfFirst := 0.0
	for _, r := range reqs {
		if r.Level == 1 {
			lastOfFirst = max(lastOfFirst, *r.RunMs+*r.TotalMs)
		}
	}
	for _, r := range reqs {
		if *r.RunMs < *r.StartMs || (r.Level == 2 && *r.RunMs < lastOfFirst) {
			t.Errorf("level %g request %d: run_ms %.3f, start_ms %.3f; level 1 ended at run_ms %.3f", r.Level, r.Index, *r.RunMs, *r.StartMs, lastOfFirst)
		}
	}
	// t_ms is on each level's clock, run_ms on the run's: their difference
	// is where the sample's level began, one value per level, and level 2
	// began after level 1's last request ended.
	samples := strictLines[artifact.LoadServerSample](t, filepath.Join(out, "server.jsonl"))
	begin := map[float64]float64{}
	for i, s := range samples {
		if s.RunMs == nil {
			t.Fatalf("server.jsonl line %d has no run_ms", i+1)
		}
		if i > 0 && *s.RunMs < *samples[i-1].RunMs {
			t.Errorf("server.jsonl line %d: run_ms %.3f after %.3f", i+1, *s.RunMs, *samples[i-1].RunMs)
		}
		at := *s.RunMs - s.TMs
		if b, ok := begin[s.Level]; ok && math.Abs(at-b) > 0.01 {
			t.Errorf("server.jsonl line %d: level %g began at %.3f ms by this sample, at %.3f by an earlier one", i+1, s.Level, at, b)
		} else if !ok {
			begin[s.Level] = at
		}
	}
	if b1, ok1 := begin[1]; !ok1 || begin[2] <= b1 || begin[2] < lastOfFirst-0.01 {
		t.Errorf("levels began at %v ms (by server.jsonl); level 1's last request ended at run_ms %.3f", begin, lastOfFirst)
	}
}

// TestLoadWorkingTreeExperiment: a scripts/load.lua in the working tree
// is the experiment, used without recompiling: checked once before a
// server starts (round 0), then its builder's requests are the run's,
// asked for each round with the round's level; an error in it is refused
// with its line before any level runs.
func TestLoadWorkingTreeExperiment(t *testing.T) {
	serverTestEnv(t)
	url := loadFaultServer(t, func(int64) (int, string, string) { return 0, "", "" })
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.MkdirAll("scripts", 0o755); err != nil {
		t.Fatal(err)
	}
	edited := `return function(run)
  append_jsonl("rounds.jsonl", {level = run.level, round = run.round, calls = run.calls})
  return function(i, call, turn)
    return "edited line " .. call, {max_tokens = 8, tags = {call = call, turn = turn}}
  end
end`
	if err := os.WriteFile(workingTreeLoad, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	code, stdout, stderr := runCLI("load", "--server", url, "--concurrency", "1,2", "--requests", "3", "--docs", "0",
		"--out", out, "--no-report", "--slo", "ttft_ms<=60000@p95")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	rounds, err := os.ReadFile(filepath.Join(out, "rounds.jsonl"))
	if err != nil || string(rounds) != `{"calls":3,"level":1,"round":0}`+"\n"+`{"calls":3,"level":1,"round":1}`+"\n"+`{"calls":3,"level":2,"round":1}`+"\n" {
		t.Errorf("the edited experiment's rounds: %q (%v)", rounds, err)
	}
	if rows := strictLines[artifact.LoadRequest](t, filepath.Join(out, "requests.jsonl")); len(rows) != 6 {
		t.Errorf("%d rows, want 3 calls at each of 2 levels", len(rows))
	}

	if err := os.WriteFile(workingTreeLoad, []byte("return function(run)\n  error(\"no such prompt\")\nend\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	broken := filepath.Join(dir, "broken")
	code, stdout, stderr = runCLI("load", "--server", url, "--concurrency", "1", "--requests", "3", "--docs", "0",
		"--out", broken, "--no-report")
	if code != 1 || !strings.Contains(stderr, "scripts/load.lua:2: no such prompt") || strings.Contains(stdout, "at once") {
		t.Errorf("a broken experiment: exit %d\n%s%s", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(broken, "load.json")); !os.IsNotExist(err) {
		t.Errorf("a broken experiment left a load.json: %v", err)
	}
}

// TestLoadGates: the CI gates on load.json as a run leaves it: a
// capacity below --fail-below (none counts as 0; an undecided capacity
// is its lower level) and a level whose share of failed requests is
// above --max-error-rate fail, naming the gate; at the limit they pass.
func TestLoadGates(t *testing.T) {
	t.Parallel()
	decided, undecided := true, false
	level := func(l float64, requests, failed int) artifact.LoadLevel {
		lv := artifact.LoadLevel{Level: l, SLO: []artifact.SLOVerdict{}}
		lv.Summary.Requests, lv.Summary.Failed = requests, failed
		return lv
	}
	docs := map[string]artifact.Load{
		"decided at 5":    {Levels: []artifact.LoadLevel{level(5, 10, 0), level(6, 10, 0)}, Capacity: &artifact.Capacity{Level: 5, Decided: &decided}},
		"between 5 and 6": {Levels: []artifact.LoadLevel{level(5, 36, 0), level(6, 36, 0)}, Capacity: &artifact.Capacity{Level: 5, Decided: &undecided, Between: []float64{5, 6}}},
		"none":            {Levels: []artifact.LoadLevel{level(1, 10, 1)}},
	}
	for _, c := range []struct {
		doc          string
		failBelow    float64
		maxErrorRate float64
		want         string // "" passes
	}{
		{"decided at 5", 5, 1, ""},
		{"decided at 5", 6, 1, "the capacity 5 is below --fail-below 6"},
		{"between 5 and 6", 5, 1, ""},
		{"between 5 and 6", 6, 1, "the capacity 5 is below --fail-below 6"},
		{"none", 1, 1, "the capacity 0 is below --fail-below 1"},
		{"none", 0, 0.1, ""},
		{"none", 0, 0.05, "at level 1, 1 of 10 requests failed (10.0%), above --max-error-rate 0.05"},
	} {
		out := t.TempDir()
		doc := docs[c.doc]
		writeShard(t, out, doc, nil, nil)
		err := (&loadCmd{failBelow: c.failBelow, maxErrorRate: c.maxErrorRate}).gates(out)
		var gate *gateError
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s, --fail-below %g, --max-error-rate %g: %v, want it to pass", c.doc, c.failBelow, c.maxErrorRate, err)
		case c.want != "" && (!errors.As(err, &gate) || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s, --fail-below %g, --max-error-rate %g: %v, want the gate to fail: %s", c.doc, c.failBelow, c.maxErrorRate, err, c.want)
		}
	}
}
