package cli

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"ttftlab/internal/artifact"
	"ttftlab/internal/interval"
)

// TestLoadShardsSideBySide: two shards of one open-loop run, started as
// two processes at once against the real llama-server and lined up by a
// barrier folder, run between them exactly the calls of each level's
// whole schedule, each shard the calls of its own number modulo 2, each
// call at the due time the single-machine schedule gives it (the same seed
// from the run id); every row carries the shard, the host, the run id and
// its wall-clock anchor; both shards begin each level at the moment fixed
// for it on the wall clock, and only shard 0 samples the server. `ttftlab
// merge` of the two folders holds every row, the same levels, percentiles
// equal to those over the concatenated rows, and `ttftlab report` draws
// it; one shard alone is refused, the other named.
func TestLoadShardsSideBySide(t *testing.T) {
	t.Parallel()
	srv := startLlama(t, "-np", "4", "-c", "8192", "--metrics")
	out := t.TempDir()
	barrier := t.TempDir()
	const calls = 10
	outs := runShards(t, 2, nil, "--server", srv.URL, "--run-id", "side-by-side", "--barrier", barrier, "--rate", "5,10",
		"--requests", fmt.Sprint(calls), "--duration", "4s", "--level-gap", "2s", "--docs", "0", "--max-tokens", "24",
		"--no-report", "--out", out, "--slo", "ttft_ms<=60000@p95")
	var docs [2]artifact.Load
	var rows [2][]artifact.LoadRequest
	for i := range 2 {
		dir := filepath.Join(out, fmt.Sprintf("shard-%d", i))
		docs[i], rows[i] = strictLoad(t, dir), readRows(t, dir)
		s := docs[i].Settings
		if s.RunID != "side-by-side" || s.Shard == nil || s.Shard.Index != i || s.Shard.Count != 2 || s.Shard.Host == "" {
			t.Errorf("shard %d: settings run_id %q shard %+v", i, s.RunID, s.Shard)
		}
		if !strings.Contains(outs[i], fmt.Sprintf("shard %d of 2 of run side-by-side", i)) {
			t.Errorf("shard %d does not say which shard it is:\n%s", i, outs[i])
		}
		_, err := os.Stat(filepath.Join(dir, "server.jsonl"))
		if (i == 0) != (err == nil) {
			t.Errorf("shard %d: server.jsonl there: %v (only shard 0 samples the server)", i, err == nil)
		}
	}
	s0, s1 := docs[0].Settings, docs[1].Settings
	if s0.Seed != s1.Seed || s0.StartAtUnixMs != s1.StartAtUnixMs || s0.StartAtUnixMs == 0 {
		t.Fatalf("the shards disagree on the run: seeds %d and %d, starts %v and %v", s0.Seed, s1.Seed, s0.StartAtUnixMs, s1.StartAtUnixMs)
	}
	// The single machine's schedule for the same seed: call c of a rate r
	// level is due (c-1)/r s after the level began.
	for k, level := range []float64{5, 10} {
		seen := map[int]int{}
		for i := range 2 {
			for _, r := range rows[i] {
				if r.Level != level {
					continue
				}
				seen[r.Call]++
				if (r.Call-1)%2 != i || r.Shard == nil || *r.Shard != i || r.RunID != "side-by-side" || r.Host == "" || r.T0UnixMs == nil {
					t.Errorf("level %g: shard %d ran call %d (row shard %v, run %q, host %q, t0 %v)", level, i, r.Call, r.Shard, r.RunID, r.Host, r.T0UnixMs)
				}
				if want := float64(r.Call-1) / level * 1000; r.ScheduledMs == nil || *r.ScheduledMs != want {
					t.Errorf("level %g: call %d due at %v ms, the whole schedule says %v", level, r.Call, r.ScheduledMs, want)
				}
			}
		}
		var got []int
		for c, n := range seen {
			if n != 1 {
				t.Errorf("level %g: call %d ran %d times", level, c, n)
			}
			got = append(got, c)
		}
		sort.Ints(got)
		if fmt.Sprint(got) != fmt.Sprint(seq(1, calls)) {
			t.Errorf("level %g: the shards ran calls %v, the whole schedule %v", level, got, seq(1, calls))
		}
		// Each level began on the wall clock at its fixed moment, on both
		// shards: not before it, and together: each shard began the level
		// before the other's last request of it had ended.
		due := s0.StartAtUnixMs + float64(k)*(s0.DurationMs+s0.LevelGapMs)
		var starts []float64
		for i := range 2 {
			lv := docs[i].Levels[k]
			if lv.Level != level || lv.DueUnixMs == nil || *lv.DueUnixMs != due || lv.Summary.StartedUnixMs == nil {
				t.Fatalf("shard %d level %d: %+v, want level %g due at %v", i, k, lv, level, due)
			}
			if *lv.Summary.StartedUnixMs < due {
				t.Errorf("shard %d began level %g at %v, before it was due at %v", i, level, *lv.Summary.StartedUnixMs, due)
			}
			starts = append(starts, *lv.Summary.StartedUnixMs)
		}
		for i := range 2 {
			lastEnd := math.Inf(-1)
			for _, r := range rows[1-i] {
				if r.Level == level && r.T0UnixMs != nil && r.TotalMs != nil {
					lastEnd = math.Max(lastEnd, *r.T0UnixMs+*r.TotalMs)
				}
			}
			if starts[i] >= lastEnd {
				t.Errorf("level %g: shard %d began at %v, after shard %d's last request of it had ended (%v)", level, i, starts[i], 1-i, lastEnd)
			}
		}
	}

	// The folder of the shards is not one run: report and check say how
	// to make it one.
	for _, cmd := range []string{"report", "check"} {
		if code, _, stderr := runCLI(cmd, out); code == 0 || !strings.Contains(stderr, "holds the shard folders") ||
			!strings.Contains(stderr, "ttftlab merge "+out) {
			t.Errorf("%s of the shards' folder: exit %d:\n%s", cmd, code, stderr)
		}
	}
	// One shard alone is not the run.
	if code, _, stderr := runCLI("merge", filepath.Join(out, "shard-0"), "--out", filepath.Join(out, "half")); code == 0 ||
		!strings.Contains(stderr, "shard 1 of 2 is missing") {
		t.Errorf("merging shard 0 alone: exit %d:\n%s", code, stderr)
	}
	// The merge holds every row of both shards, the same levels, and
	// percentiles computed over the concatenated rows.
	merged := filepath.Join(out, "merged")
	code, stdout, stderr := runCLI("merge", out, "--out", merged)
	t.Logf("%s%s", stdout, stderr)
	if code != 0 {
		t.Fatalf("merge: exit %d", code)
	}
	doc := strictLoad(t, merged)
	all := append(append([]artifact.LoadRequest{}, rows[0]...), rows[1]...)
	if got := readRows(t, merged); len(got) != len(all) {
		t.Errorf("the merge holds %d rows, the shards %d", len(got), len(all))
	}
	// requests.csv: shard 0's file, then shard 1's rows under the same
	// header, byte for byte (CRLF lines as the recorder writes them).
	var csvs [2][]byte
	for i := range 2 {
		csvs[i], _ = os.ReadFile(filepath.Join(out, fmt.Sprintf("shard-%d", i), "requests.csv"))
	}
	_, rows1, _ := bytes.Cut(csvs[1], []byte("\r\n"))
	if got, _ := os.ReadFile(filepath.Join(merged, "requests.csv")); !bytes.Equal(got, append(append([]byte{}, csvs[0]...), rows1...)) {
		t.Errorf("merged requests.csv is not shard 0's then shard 1's rows:\n%q", got)
	}
	if len(doc.Levels) != 2 || doc.Settings.Shards != 2 || doc.Settings.RunID != "side-by-side" {
		t.Fatalf("merged load.json: %d levels, settings %+v", len(doc.Levels), doc.Settings)
	}
	for k, l := range doc.Levels {
		var ttft, first []float64
		for _, r := range all {
			if r.Level == l.Level && !r.Warmup && r.TTFTMs != nil {
				ttft = append(ttft, *r.TTFTMs)
			}
			if r.Level == l.Level && !r.Warmup && r.FirstSentenceMs != nil {
				first = append(first, *r.FirstSentenceMs)
			}
		}
		sort.Float64s(ttft)
		sort.Float64s(first)
		if l.Level != docs[0].Levels[k].Level || l.Summary.Requests != calls || len(l.Shards) != 2 || l.StartSpreadMs == nil {
			t.Errorf("merged level %d: level %g, %d requests, %d shards, spread %v", k, l.Level, l.Summary.Requests, len(l.Shards), l.StartSpreadMs)
			continue
		}
		for _, c := range []struct {
			name string
			got  artifact.Dist
			xs   []float64
		}{{"ttft_ms", l.Summary.TTFTMs, ttft}, {"first_sentence_ms", l.Summary.FirstSentenceMs, first}} {
			// A record keeps its percentiles to the microsecond.
			p50, p95 := *artifact.Ms(interval.PercentileOf(c.xs, 50)), *artifact.Ms(interval.PercentileOf(c.xs, 95))
			if c.got.N != len(c.xs) || c.got.P50 == nil || *c.got.P50 != p50 || c.got.P95 == nil || *c.got.P95 != p95 {
				t.Errorf("merged level %g %s: n %d p50 %v p95 %v; over the rows n %d p50 %v p95 %v", l.Level, c.name, c.got.N,
					fmtPtr(c.got.P50), fmtPtr(c.got.P95), len(c.xs), p50, p95)
			}
		}
	}
	// The report says what each page is: a merge with its shards, one
	// shard's own calls.
	for dir, want := range map[string]string{merged: "the 2 shards of run side-by-side, merged", filepath.Join(out, "shard-1"): "Shard 1 of 2 of run side-by-side"} {
		if code, stdout, stderr := runCLI("report", dir); code != 0 {
			t.Errorf("report of %s: exit %d\n%s%s", dir, code, stdout, stderr)
		}
		if page, _ := os.ReadFile(filepath.Join(dir, "report.html")); !strings.Contains(string(page), want) {
			t.Errorf("%s/report.html does not say %q", dir, want)
		}
	}
}

// TestLoadShardRefusals: what a shard cannot do is refused before
// anything runs, naming the flag.
func TestLoadShardRefusals(t *testing.T) {
	t.Setenv("TTFTLAB_STATE", t.TempDir())
	at := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--shard", "0/2", "--start-at", at, "--duration", "1s"}, "--run-id"},
		{[]string{"--shard", "0/2", "--run-id", "r", "--duration", "1s"}, "--start-at TIME"},
		{[]string{"--shard", "0/2", "--run-id", "r", "--start-at", at}, "a shard needs --duration"},
		{[]string{"--shard", "2/2", "--run-id", "r", "--start-at", at, "--duration", "1s"}, "want I/N"},
		{[]string{"--shard", "0/2", "--run-id", "r", "--start-at", at, "--duration", "1s", "--search"}, "--search"},
		{[]string{"--shard", "0/2", "--run-id", "r", "--start-at", at, "--duration", "1s", "--runs", "2"}, "--runs"},
		{[]string{"--shard", "0/2", "--run-id", "r", "--start-at", at, "--duration", "1s", "--warmup", "3"}, "--warmup 3"},
		{[]string{"--shard", "0/2", "--run-id", "r", "--start-at", at, "--duration", "1s", "--model", "m.gguf"}, "never starts a server"},
		{[]string{"--shard", "0/2", "--run-id", "r", "--start-at", "8pm", "--duration", "1s"}, "RFC 3339"},
		{[]string{"--run-id", "r"}, "add --shard"},
		// Levels that leave a shard idle.
		{[]string{"--shard", "0/2", "--run-id", "r", "--start-at", at, "--duration", "1s", "--concurrency", "1,2"}, "--concurrency 1 is below the 2 shards"},
		{[]string{"--shard", "1/3", "--run-id", "r", "--start-at", at, "--duration", "1s", "--rate", "4", "--requests", "2"}, "--requests 2 is below the 3 shards"},
		// Every request warm-up.
		{[]string{"--warmup", "20"}, "--warmup 20 leaves no request to measure: a level makes 20"},
		{[]string{"--warmup", "10s", "--duration", "5s"}, "--warmup 10s leaves no request to measure"},
	} {
		code, stdout, stderr := runCLI(append([]string{"load", "--server", "http://127.0.0.1:1"}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("load %s: exit %d, want 2 and %q:\n%s%s", strings.Join(c.args, " "), code, c.want, stdout, stderr)
		}
	}
	// A shard finds no server: it says so and starts none.
	code, _, stderr := runCLI("load", "--server", "http://127.0.0.1:1", "--shard", "0/1", "--run-id", "r", "--start-at", at,
		"--duration", "1s", "--rate", "1")
	if code == 0 || !strings.Contains(stderr, "a shard never starts one") {
		t.Errorf("a shard without a server: exit %d:\n%s", code, stderr)
	}
	// The environment of a Kubernetes Indexed Job stands for --shard.
	t.Setenv("TTFTLAB_SHARDS", "3")
	code, _, stderr = runCLI("load", "--server", "http://127.0.0.1:1", "--run-id", "r")
	if code != 2 || !strings.Contains(stderr, "JOB_COMPLETION_INDEX is not") {
		t.Errorf("TTFTLAB_SHARDS without JOB_COMPLETION_INDEX: exit %d:\n%s", code, stderr)
	}
	t.Setenv("JOB_COMPLETION_INDEX", "1")
	code, _, stderr = runCLI("load", "--server", "http://127.0.0.1:1", "--run-id", "r", "--start-at", at)
	if code != 2 || !strings.Contains(stderr, "a shard needs --duration") {
		t.Errorf("shard 1 of 3 from the environment: exit %d:\n%s", code, stderr)
	}
}

// TestLoadShardsStartAt: the form a Kubernetes Indexed Job uses — the
// run id and the start time from the environment, the same for both —
// with a closed loop: two shard processes side by side each begin the level no
// sooner than the start given, run the calls of their own parity between
// them exactly once each, and merge into one level of every call.
func TestLoadShardsStartAt(t *testing.T) {
	t.Parallel()
	srv := startLlama(t, "-np", "4", "-c", "8192")
	out := t.TempDir()
	start := time.Now().Add(3 * time.Second).Truncate(time.Second).UTC()
	runShards(t, 2, []string{"TTFTLAB_RUN_ID=from-env", "TTFTLAB_START_AT=" + start.Format(time.RFC3339)}, "--server", srv.URL, "--concurrency", "3", "--requests", "6", "--duration", "3s",
		"--docs", "0", "--max-tokens", "16", "--no-report", "--out", out, "--slo", "ttft_ms<=60000@p95")
	calls := map[int]int{}
	for i := range 2 {
		dir := filepath.Join(out, fmt.Sprintf("shard-%d", i))
		doc := strictLoad(t, dir)
		if doc.Settings.RunID != "from-env" || doc.Settings.StartAtUnixMs != float64(start.UnixMilli()) || len(doc.Levels) != 1 {
			t.Fatalf("shard %d: run %q, start %v (want %v), %d levels", i, doc.Settings.RunID, doc.Settings.StartAtUnixMs, start.UnixMilli(), len(doc.Levels))
		}
		if began := doc.Levels[0].Summary.StartedUnixMs; began == nil || *began < doc.Settings.StartAtUnixMs {
			t.Errorf("shard %d began at %v, before --start-at %v", i, began, doc.Settings.StartAtUnixMs)
		}
		for _, r := range readRows(t, dir) {
			calls[r.Call]++
			if (r.Call-1)%2 != i {
				t.Errorf("shard %d ran call %d", i, r.Call)
			}
		}
	}
	if len(calls) != 6 {
		t.Errorf("the shards ran calls %v, want 1 to 6 once each", calls)
	}
	for c, n := range calls {
		if n != 1 || c < 1 || c > 6 {
			t.Errorf("call %d ran %d times", c, n)
		}
	}
	merged := filepath.Join(out, "merged")
	if code, stdout, stderr := runCLI("merge", out, "--out", merged, "--no-report"); code != 0 {
		t.Fatalf("merge: exit %d\n%s%s", code, stdout, stderr)
	}
	if doc := strictLoad(t, merged); len(doc.Levels) != 1 || doc.Levels[0].Summary.Requests != 6 || doc.Levels[0].Summary.Calls != 6 {
		t.Errorf("merged: %+v", doc.Levels)
	}
}

// TestShardWaitsOnStaleReadyFile: a ready-0 file that no live shard holds
// (left by a shard 0 stopped while it waited, holding a time and no
// lease) does not let shard 1 of the same run start its level alone: it
// waits on, saying which file does not count and why; Ctrl-C ends the
// wait (exit 130) and takes shard 1's own ready file away.
func TestShardWaitsOnStaleReadyFile(t *testing.T) {
	t.Parallel()
	url := loadFaultServer(t, func(int64) (int, string, string) { return 0, "", "" })
	barrier, out := t.TempDir(), t.TempDir()
	run := filepath.Join(barrier, "stale-run")
	if err := os.MkdirAll(run, 0o755); err != nil {
		t.Fatal(err)
	}
	left := time.Now().UTC().Add(-time.Minute).Format(time.RFC3339Nano) + "\n"
	if err := os.WriteFile(filepath.Join(run, "ready-0"), []byte(left), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd, stdout, stderr := startTTFTLabOut(t, "ready; waiting", "load", "--shard", "1/2", "--run-id", "stale-run", "--barrier", barrier,
		"--server", url, "--rate", "5", "--requests", "4", "--duration", "1s", "--docs", "0", "--out", out, "--no-report")
	const waits, starts = "still waiting for shard(s) 0", "level 5 due at"
	deadline := time.Now().Add(time.Minute)
	for !strings.Contains(stdout.buf.String(), waits) && !strings.Contains(stdout.buf.String(), starts) && time.Now().Before(deadline) {
		select {
		case <-stdout.done:
			deadline = time.Now()
		case <-time.After(50 * time.Millisecond):
		}
	}
	console := stdout.buf.String()
	if strings.Contains(console, starts) || !strings.Contains(console, waits) ||
		!strings.Contains(console, filepath.Join(run, "ready-0")+" holds a time but no lease") {
		t.Errorf("shard 1 did not wait on a stale ready-0, naming it:\n%s%s", console, stderr)
	}
	cmd.Process.Signal(os.Interrupt)
	if code := waitExit(t, cmd, 20*time.Second); code != 130 {
		t.Errorf("exit %d, want 130:\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(run, "ready-1")); !os.IsNotExist(err) {
		t.Errorf("shard 1 left its ready file after Ctrl-C in the wait: %v", err)
	}
}

// TestLoadShardStartAtPassedBlamesStartAt: a shard whose --start-at
// passed 30 s ago says its first level started late because the shard was
// ready only after --start-at, not because of --level-gap (there is no
// level before the first). Fails before this change.
func TestLoadShardStartAtPassedBlamesStartAt(t *testing.T) {
	t.Parallel()
	url := loadFaultServer(t, func(int64) (int, string, string) { return 0, "", "" })
	at := time.Now().Add(-30 * time.Second).UTC().Format(time.RFC3339)
	code, stdout, stderr := runCLI("load", "--server", url, "--shard", "0/1", "--run-id", "r", "--start-at", at, "--duration", "1s",
		"--concurrency", "1", "--requests", "2", "--docs", "0", "--out", t.TempDir(), "--no-report")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "after it was due: the shard was ready only after --start-at") || strings.Contains(stdout, "ran past --level-gap") {
		t.Errorf("the first level's lateness blames the wrong thing:\n%s", stdout)
	}
}

// TestLoadShardBarrierUnwritableSaysNoReady: a --barrier folder that
// cannot be made fails naming it, without first saying "ready; waiting"
// (the shard never was). Fails before this change.
func TestLoadShardBarrierUnwritableSaysNoReady(t *testing.T) {
	t.Parallel()
	url := loadFaultServer(t, func(int64) (int, string, string) { return 0, "", "" })
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	barrier := filepath.Join(file, "barrier") // under a file: mkdir fails, even as root
	code, stdout, stderr := runCLI("load", "--server", url, "--shard", "0/2", "--run-id", "r", "--barrier", barrier, "--duration", "1s",
		"--concurrency", "2", "--requests", "2", "--docs", "0", "--out", t.TempDir(), "--no-report")
	if code == 0 || !strings.Contains(stderr, "--barrier "+barrier) || strings.Contains(stdout+stderr, "ready; waiting") {
		t.Errorf("exit %d:\n%s%s", code, stdout, stderr)
	}
}

// TestLoadShardStartAtPassedLaterLevels: with --start-at 30 s in the past
// the levels after the first are late only because the first was (the
// levels run back to back until they catch up with their schedule), so
// they too blame --start-at, not --level-gap. Fails before this change
// (the second level said the level before ran past --level-gap).
func TestLoadShardStartAtPassedLaterLevels(t *testing.T) {
	t.Parallel()
	url := loadFaultServer(t, func(int64) (int, string, string) { return 0, "", "" })
	at := time.Now().Add(-30 * time.Second).UTC().Format(time.RFC3339)
	code, stdout, stderr := runCLI("load", "--server", url, "--shard", "0/1", "--run-id", "r", "--start-at", at, "--duration", "1s",
		"--level-gap", "1s", "--concurrency", "1,2", "--requests", "2", "--docs", "0", "--out", t.TempDir(), "--no-report")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	if strings.Count(stdout, "after it was due: ") != 2 || strings.Contains(stdout, "ran past --level-gap") ||
		strings.Count(stdout, "--start-at") < 2 {
		t.Errorf("the later level's lateness blames the wrong thing:\n%s", stdout)
	}
}
