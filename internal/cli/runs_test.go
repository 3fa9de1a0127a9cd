package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"ttftlab/internal/artifact"
)

// strictRuns decodes OUT/runs.json strictly into its record type.
func strictRuns(t *testing.T, out string) artifact.Runs {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(out, artifact.RunsFile))
	if err != nil {
		t.Fatal(err)
	}
	var doc artifact.Runs
	if err := artifact.DecodeStrict(data, &doc); err != nil {
		t.Fatalf("runs.json does not decode strictly into artifact.Runs: %v\n%s", err, data)
	}
	return doc
}

func figureNamed(t *testing.T, doc artifact.Runs, name string) artifact.Figure {
	t.Helper()
	for _, f := range doc.Figures {
		if f.Name == name {
			return f
		}
	}
	t.Fatalf("runs.json has no figure %q", name)
	return artifact.Figure{}
}

// levelRequests is how many requests of a level after warm-up a load
// folder's load.json counts.
func levelRequests(t *testing.T, dir string, level float64) int {
	t.Helper()
	for _, l := range strictLoad(t, dir).Levels {
		if l.Level == level {
			return l.Summary.Requests
		}
	}
	t.Fatalf("%s: no level %g", dir, level)
	return 0
}

// TestLoadRunsPools: load --runs 2 against one fake server writes two
// whole load folders and runs.json, whose figures pool the requests of
// both runs (n is the sum of the runs' n), with the mean over the 2
// runs; the console says which run is running and prints the pooled
// figures; check passes on the folder. Fails before this change: load
// has no --runs.
func TestLoadRunsPools(t *testing.T) {
	serverTestEnv(t)
	url := loadFaultServer(t, func(int64) (int, string, string) { return 0, "", "" })
	out := t.TempDir()
	code, stdout, stderr := runCLI("load", "--server", url, "--concurrency", "1,2", "--requests", "4", "--docs", "0",
		"--out", out, "--no-report", "--runs", "2")
	t.Logf("%s%s", stdout, stderr)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	if !strings.Contains(stderr, "ttftlab load: run 1 of 2\n") || !strings.Contains(stderr, "ttftlab load: run 2 of 2\n") {
		t.Errorf("stderr does not say which run is running")
	}
	if !strings.Contains(stdout, "verify them all with: ") || !strings.Contains(stdout, " check "+out+"\n") {
		t.Errorf("the console does not say how to check the runs")
	}
	runs := []string{filepath.Join(out, "run-1"), filepath.Join(out, "run-2")}
	doc := strictRuns(t, out)
	if doc.Kind != "load" || !slices.Equal(doc.Dirs, []string{"run-1", "run-2"}) {
		t.Fatalf("runs.json kind %q dirs %q", doc.Kind, doc.Dirs)
	}
	for _, level := range []float64{1, 2} {
		name := "level " + map[float64]string{1: "1", 2: "2"}[level] + " ttft_ms"
		f := figureNamed(t, doc, name)
		want := levelRequests(t, runs[0], level) + levelRequests(t, runs[1], level)
		if f.N != want || f.Runs != 2 || f.Failed != 0 || f.MeanOver != "runs" || len(f.RunMeans) != 2 {
			t.Errorf("%s: n %d runs %d failed %d mean over %q; want n %d (both runs' requests) over 2 runs",
				name, f.N, f.Runs, f.Failed, f.MeanOver, want)
		}
		if f.Mean == nil || f.MeanCI == nil || *f.Mean < f.MeanCI[0] || *f.Mean > f.MeanCI[1] {
			t.Errorf("%s: mean %v outside its interval %v", name, f.Mean, f.MeanCI)
		}
		if !strings.Contains(stdout, "\n"+name+" ") || !strings.Contains(stdout, "over 2 runs   n "+itoa(want)) {
			t.Errorf("the console lacks the pooled line of %s", name)
		}
	}
	code, stdout, stderr = runCLI("check", filepath.Join(out, "run-1"))
	if code != 0 || !strings.Contains(stdout, "PASS level 2: 4 of 4 requests ok") {
		t.Errorf("check on run-1 alone: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = runCLI("check", out)
	t.Logf("check:\n%s%s", stdout, stderr)
	if code != 0 || !strings.Contains(stdout, "PASS run-2: level 2") || !strings.Contains(stdout, "PASS runs.json figures: 6 figures") {
		t.Errorf("check on the --runs folder: exit %d", code)
	}
}

// TestLoadRunsFailedRun: the second of two runs meets a server that
// fails every request: the command exits 1 naming that run, and
// runs.json is still written over both runs, the failures counted above
// every time. Fails before this change: load has no --runs.
func TestLoadRunsFailedRun(t *testing.T) {
	serverTestEnv(t)
	url := loadFaultServer(t, func(n int64) (int, string, string) {
		if n > 4 {
			return 401, "authentication_error", "Invalid API Key"
		}
		return 0, "", ""
	})
	out := t.TempDir()
	code, stdout, stderr := runCLI("load", "--server", url, "--concurrency", "1", "--requests", "4", "--docs", "0",
		"--out", out, "--no-report", "--runs", "2")
	t.Logf("%s%s", stdout, stderr)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	if !strings.Contains(stderr, "run 2 of 2: every request at concurrency 1 failed (4 of 4)") {
		t.Errorf("the error does not name the failed run: %q", stderr)
	}
	doc := strictRuns(t, out)
	f := figureNamed(t, doc, "level 1 ttft_ms")
	if !slices.Equal(doc.Dirs, []string{"run-1", "run-2"}) || f.N != 8 || f.Runs != 2 || f.Failed != 4 || f.Mean != nil {
		t.Errorf("runs.json dirs %q, level 1 ttft_ms %+v; want n 8 over 2 runs, 4 failed, no mean", doc.Dirs, f)
	}
	if !strings.Contains(stdout, "4 failed") {
		t.Errorf("the console does not count the failed samples")
	}
	code, stdout, _ = runCLI("check", out)
	if code != 1 || !strings.Contains(stdout, "FAIL run-2: level 1: every request failed (4 of 4)") ||
		!strings.Contains(stdout, "PASS run-1: level 1") || !strings.Contains(stdout, "PASS runs.json figures") {
		t.Errorf("check: exit %d, want 1 naming run-2:\n%s", code, stdout)
	}
}

// TestLabRunsRealServer: lab --runs 2 against the real llama-server
// writes run-1 and run-2, each a whole lab folder, and runs.json whose
// ttft_ms pools the 6 TTFTs of each run (--repeat's default; n 12 over 2
// runs) with the mean inside its t-interval across the runs; the console
// prints that line; check passes on the folder. One run gets runs.json
// over dirs ["."]: ttft_ms's mean over the 6 samples, and its p50 bounded
// (6 samples are the fewest that bound a median); its console prints
// every figure's median with its interval, none "too few samples".
// Fails before this change: lab has no --runs, and writes no runs.json.
func TestLabRunsRealServer(t *testing.T) {
	srv := startLlama(t)
	out := t.TempDir()
	code, stdout, stderr := runCLI("lab", "--server", srv.URL, "--out", out, "--server-log", srv.LogPath, "--runs", "2")
	t.Logf("lab output:\n%s%s", stdout, stderr)
	if code != 0 {
		t.Fatalf("ttftlab lab --runs 2 exited %d", code)
	}
	if !strings.Contains(stderr, "ttftlab lab: run 2 of 2\n") {
		t.Errorf("stderr does not say which run is running")
	}
	for _, r := range []string{"run-1", "run-2"} {
		if _, err := os.Stat(filepath.Join(out, r, "ttft.json")); err != nil {
			t.Errorf("%s: %v", r, err)
		}
	}
	doc := strictRuns(t, out)
	if doc.Kind != "lab" || !slices.Equal(doc.Dirs, []string{"run-1", "run-2"}) {
		t.Fatalf("runs.json kind %q dirs %q", doc.Kind, doc.Dirs)
	}
	f := figureNamed(t, doc, "ttft_ms")
	if f.N != 12 || f.Runs != 2 || f.MeanOver != "runs" || f.Mean == nil || f.MeanCI == nil ||
		*f.Mean < f.MeanCI[0] || *f.Mean > f.MeanCI[1] || f.P50CI == nil || *f.P50 < f.P50CI[0] || *f.P50 > f.P50CI[1] {
		t.Errorf("ttft_ms %+v mean_ci %v p50_ci %v; want n 12 over 2 runs, the mean and p50 inside their intervals", f, f.MeanCI, f.P50CI)
	}
	line := ""
	for _, l := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(l, "ttft_ms ") {
			line = l
		}
	}
	if !strings.Contains(line, " over 2 runs   n 12") || !strings.Contains(line, "p95 too few samples") {
		t.Errorf("console line of ttft_ms: %q", line)
	}
	requireCheckPasses(t, out, srv.LogPath)

	one := t.TempDir()
	code, stdout, stderr = runCLI("lab", "--server", srv.URL, "--out", one, "--server-log", srv.LogPath, "--no-report")
	t.Logf("one lab:\n%s%s", stdout, stderr)
	if code != 0 {
		t.Fatalf("ttftlab lab exited %d", code)
	}
	doc = strictRuns(t, one)
	f = figureNamed(t, doc, "ttft_ms")
	if !slices.Equal(doc.Dirs, []string{"."}) || f.N != 6 || f.Runs != 1 || f.MeanOver != "samples" || f.MeanCI == nil || f.P50CI == nil {
		t.Errorf("one run: dirs %q, ttft_ms %+v", doc.Dirs, f)
	}
	if !strings.Contains(stdout, "over 6 samples   n 6") {
		t.Errorf("one run: the console lacks the ttft_ms line with its intervals")
	}
	// Every step repeats its measurement (--repeat, default 6): one run
	// bounds every figure's median, and the console prints each with its
	// interval, none "too few samples".
	for _, name := range []string{"cache first ttft_ms", "bargein cold ttft_ms", "prefix front ttft_ms", "cancel slot idle after close_ms"} {
		if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + ` +p50 [0-9.]+ ms \[[0-9.]+, [0-9.]+\]`).MatchString(stdout) {
			t.Errorf("one run: the console lacks %s's median with its interval", name)
		}
	}
	if n := strings.Count(stdout, "too few samples"); n > 0 {
		t.Errorf("one run: %d mentions of too few samples, want none: every step repeats its measurement", n)
	}
}

// TestLoadRunsCtrlC: Ctrl-C in the second of three runs (its first
// request held by the server) exits 130, keeps run-1 and writes runs.json
// over it alone; run-2 keeps its load.json as an interrupted single run
// does. Fails before this change: load has no --runs.
func TestLoadRunsCtrlC(t *testing.T) {
	serverTestEnv(t)
	release := make(chan struct{})
	url := loadFaultServer(t, func(n int64) (int, string, string) {
		if n > 4 {
			<-release // the client has gone: answer nothing more
			return 503, "unavailable_error", "released"
		}
		return 0, "", ""
	})
	t.Cleanup(func() { close(release) })
	out := t.TempDir()
	cmd, stderr := startTTFTLab(t, "capacity:", "load", "--server", url, "--concurrency", "1", "--requests", "4", "--docs", "0",
		"--out", out, "--no-report", "--runs", "3")
	time.Sleep(300 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGINT)
	if code := waitExit(t, cmd, 20*time.Second); code != 130 {
		t.Errorf("exit %d, want 130", code)
	}
	t.Logf("stderr:\n%s", stderr)
	if !strings.Contains(stderr.String(), "stopped in run 2 of 3; runs.json pools the 1 finished run(s)") {
		t.Errorf("stderr does not say where it stopped and what runs.json pools")
	}
	doc := strictRuns(t, out)
	if f := figureNamed(t, doc, "level 1 ttft_ms"); !slices.Equal(doc.Dirs, []string{"run-1"}) || f.N != 4 || f.Runs != 1 {
		t.Errorf("runs.json dirs %q, level 1 ttft_ms n %d over %d runs; want run-1's 4 requests", doc.Dirs, f.N, f.Runs)
	}
	if d := strictLoad(t, filepath.Join(out, "run-2")); len(d.Levels) != 1 || !d.Levels[0].Interrupted {
		t.Errorf("run-2's load.json levels %+v, want the interrupted level", d.Levels)
	}
	if _, err := os.Stat(filepath.Join(out, "run-3")); err == nil {
		t.Errorf("run-3 ran after the interruption")
	}
}

// TestLoadRunsGate: a CI gate that fails in every run exits 3 naming
// each run, after runs.json is written. Fails before this change: load
// has no --runs.
func TestLoadRunsGate(t *testing.T) {
	serverTestEnv(t)
	url := loadFaultServer(t, func(int64) (int, string, string) { return 0, "", "" })
	out := t.TempDir()
	code, stdout, stderr := runCLI("load", "--server", url, "--concurrency", "1,2", "--requests", "4", "--docs", "0",
		"--out", out, "--no-report", "--runs", "2", "--fail-below", "3")
	t.Logf("%s%s", stdout, stderr)
	if code != 3 {
		t.Errorf("exit %d, want 3", code)
	}
	for _, run := range []string{"run 1 of 2: the capacity", "run 2 of 2: the capacity"} {
		if !strings.Contains(stderr, run) || !strings.Contains(stderr, "is below --fail-below 3") {
			t.Errorf("the gate's error does not name %q", run)
		}
	}
	if doc := strictRuns(t, out); !slices.Equal(doc.Dirs, []string{"run-1", "run-2"}) {
		t.Errorf("runs.json dirs %q", doc.Dirs)
	}
}

// TestLabRunsFailedStep: a lab whose step fails in every run (the server
// answers every request with a 500) runs both runs, writes runs.json over
// both, and exits 1 naming each run and the check that names the step.
// Fails before this change: lab has no --runs.
func TestLabRunsFailedStep(t *testing.T) {
	serverTestEnv(t)
	url := loadFaultServer(t, func(int64) (int, string, string) { return 500, "server_error", "boom" })
	out := t.TempDir()
	code, stdout, stderr := runCLI("lab", "--server", url, "--out", out, "--no-report", "--runs", "2", "--", "ttft")
	t.Logf("%s%s", stdout, stderr)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	for i, run := range []string{"run-1", "run-2"} {
		want := "run " + itoa(i+1) + " of 2: a step failed (ttftlab check " + filepath.Join(out, run) + " names it)"
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q", want)
		}
	}
	if doc := strictRuns(t, out); doc.Kind != "lab" || !slices.Equal(doc.Dirs, []string{"run-1", "run-2"}) {
		t.Errorf("runs.json kind %q dirs %q", doc.Kind, doc.Dirs)
	}
	code, stdout, _ = runCLI("check", out)
	if code != 1 || !strings.Contains(stdout, "FAIL run-1: step ttft: failed in this run") || !strings.Contains(stdout, "FAIL run-2: step ttft") {
		t.Errorf("check: exit %d, want 1 naming the step of each run:\n%s", code, stdout)
	}
}
