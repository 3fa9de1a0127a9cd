package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"ttftlab/internal/artifact"
	"ttftlab/internal/stream/streamtest"
)

// writeTrace writes a trace file named name in a folder of its own and
// returns its path.
func writeTrace(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// answerAfter is a chat server that answers every request after wait
// with a two-sentence answer.
func answerAfter(t *testing.T, wait time.Duration) string {
	t.Helper()
	return fakeLlama(t, "replay", 8, func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(wait)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, chatChunk("Yes, we open at nine.")+chatChunk(" Bye.")+chatEnd)
		w.(http.Flusher).Flush()
	})
}

// rowsByCall are the rows of a run by call, each call's in turn order.
func rowsByCall(rows []artifact.LoadRequest) map[int][]artifact.LoadRequest {
	by := map[int][]artifact.LoadRequest{}
	for _, r := range rows {
		by[r.Call] = append(by[r.Call], r)
	}
	for _, rs := range by {
		sort.Slice(rs, func(i, j int) bool { return rs[i].Turn < rs[j].Turn })
	}
	return by
}

func num(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// TestLoadTraceRefusesBadTraces: a trace with a line that is not JSON, a
// negative time, a missing field or times that go back fails with exit 2
// naming the file, the line and the field, and the server is never asked
// anything: the trace is read whole before any request.
func TestLoadTraceRefusesBadTraces(t *testing.T) {
	t.Parallel()
	var asked atomic.Int64
	fake := &streamtest.FakeLlama{Pieces: []string{"Yes."}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		fake.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	line := func(ts int, in, out string) string {
		return fmt.Sprintf(`{"timestamp":%d,%s%s"hash_ids":[1,2]}`, ts, in, out) + "\n"
	}
	in, out := `"input_length":600,`, `"output_length":20,`
	for _, c := range []struct {
		name, text string
		format     string
		want       string // after "FILE:"
	}{
		{"not-json.jsonl", line(0, in, out) + "{not json\n", "", "2: "},
		{"negative.jsonl", line(0, in, out) + line(-5, in, out), "", "2: timestamp: "},
		{"missing.jsonl", line(0, in, out) + line(10, in, ""), "", "2: output_length: "},
		{"back.jsonl", line(0, in, out) + line(1000, in, out) + line(500, in, out), "", "3: timestamp: "},
		{"calls-missing.jsonl", `{"call":"a","start_ms":0,"text":"Hi."}` + "\n" + `{"start_ms":10,"text":"Hello?"}` + "\n", "calls", "2: call: "},
		{"calls-negative.jsonl", `{"call":"a","start_ms":-1,"text":"Hi."}` + "\n", "calls", "1: start_ms: "},
		{"calls-back.csv", "call,start_ms,text\na,1000,Hi.\nb,500,Hello?\n", "", "3: start_ms: "},
	} {
		path := writeTrace(t, c.name, c.text)
		args := []string{"load", "--server", srv.URL, "--trace", path, "--out", t.TempDir(), "--no-report"}
		if c.format != "" {
			args = append(args, "--trace-format", c.format)
		}
		code, stdout, stderr := runCLI(args...)
		if want := "--trace " + path + ":" + c.want; code != 2 || !strings.Contains(stderr, want) {
			t.Errorf("%s: exit %d, want 2 saying %q:\n%s%s", c.name, code, want, stdout, stderr)
		}
	}
	if n := asked.Load(); n != 0 {
		t.Errorf("the server was asked %d times: a bad trace must fail before any request", n)
	}
}

// TestLoadTraceFlags: the flags a trace sets are refused with it, saying
// why; the trace's own flags are refused without it; a ramp's and a
// steady start's flags are checked.
func TestLoadTraceFlags(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--trace", "t.jsonl", "--concurrency", "4"}, "--concurrency with --trace: the trace sets when each call starts"},
		{[]string{"--trace", "t.jsonl", "--rate", "2"}, "--rate with --trace"},
		{[]string{"--trace", "t.jsonl", "--search"}, "--search with --trace"},
		{[]string{"--trace", "t.jsonl", "--requests", "10"}, "--requests with --trace: the trace sets the calls"},
		{[]string{"--trace", "t.jsonl", "--turns", "3"}, "--turns with --trace: the trace sets each call's turns"},
		{[]string{"--trace", "t.jsonl", "--think", "1s"}, "--think with --trace"},
		{[]string{"--trace", "t.jsonl", "--duration", "1m"}, "--duration with --trace"},
		{[]string{"--trace", "t.jsonl", "--arrival", "poisson"}, "--arrival with --trace"},
		{[]string{"--trace", "t.jsonl", "--ramp", "10s"}, "--ramp with --trace"},
		{[]string{"--trace", "t.jsonl", "--steady-start"}, "--steady-start with --trace"},
		{[]string{"--trace", "t.jsonl", "--until-decided", "--slo", "ttft_ms<=100@p50"}, "--until-decided with --trace"},
		{[]string{"--trace", "t.jsonl", "--trace-format", "azure"}, `--trace-format "azure": want mooncake or calls`},
		{[]string{"--trace", "t.jsonl", "--trace-from", "10s", "--trace-to", "5s"}, "--trace-to 5s is not after --trace-from 10s"},
		{[]string{"--trace", "t.jsonl", "--trace-speed", "0"}, "want a number above 0"},
		{[]string{"--trace", "t.jsonl", "--trace-from", "-1s"}, "want a time on the trace's own clock, 0 or more"},
		{[]string{"--trace", filepath.Join(t.TempDir(), "none.jsonl")}, "none.jsonl: cannot read it"},
		{[]string{"--trace-speed", "2"}, "--trace-speed is for a replayed trace: add --trace FILE"},
		{[]string{"--trace-max", "4"}, "--trace-max is for a replayed trace"},
		{[]string{"--ramp-keep"}, "--ramp-keep is for a ramp: add --ramp DUR"},
		{[]string{"--ramp-shape", "exp"}, "--ramp-shape is for a ramp"},
		{[]string{"--ramp", "5s", "--ramp-shape", "cubic"}, `--ramp-shape "cubic": want linear or exp`},
		{[]string{"--ramp", "30s", "--duration", "30s"}, "--ramp 30s is not shorter than --duration 30s"},
		{[]string{"--steady-start"}, "--steady-start starts calls part-way through their turns"},
	} {
		args := append([]string{"load", "--server", "http://127.0.0.1:1", "--out", t.TempDir()}, c.args...)
		if code, _, stderr := runCLI(args...); code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, want 2 saying %q: %s", c.args, code, c.want, stderr)
		}
	}
}

// callLog is a call log of two calls: "a" of three turns, each spoken for
// a while and followed by a pause, and "b" of one, starting while "a"
// runs.
const callLog = `{"call":"a","start_ms":0,"text":"Hello, is the shop open today?","speak_ms":200,"pause_ms":300}
{"call":"a","start_ms":0,"text":"And on Sunday?","speak_ms":150,"pause_ms":250}
{"call":"a","text":"Thanks, bye.","speak_ms":100}
{"call":"b","start_ms":400,"text":"Do you deliver?","speak_ms":50,"output_tokens":12}
`

// TestLoadTraceCallLog: a call log replayed against a fake: its calls
// and turns as written, each row naming its call and line; a call's
// first request due when its caller stops speaking (its start plus its
// speaking time, exactly); each later turn due the turn's pause and its
// own speaking time after the previous turn's answer ended, which the
// rows' own start and total bound from below (the answer ended no sooner)
// and the pause from above (a timing that counts the pause from anywhere
// else, or twice, is off by at least the answer's length or a pause).
// load.json records the trace; the replay is one level named by its
// speed, without a capacity.
func TestLoadTraceCallLog(t *testing.T) {
	t.Parallel()
	url := answerAfter(t, 40*time.Millisecond)
	path := writeTrace(t, "calls.jsonl", callLog)
	out := t.TempDir()
	code, stdout, stderr := runCLI("load", "--server", url, "--trace", path, "--docs", "0", "--no-report", "--out", out,
		"--slo", "ttft_ms<=60000@p95")
	t.Logf("%s%s", stdout, stderr)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	doc := strictLoad(t, out)
	sum := sha256.Sum256([]byte(callLog))
	set := doc.Settings
	if tr := set.Trace; set.Mode != "trace" || len(set.Levels) != 1 || set.Levels[0] != 1 || tr == nil || tr.File != path ||
		tr.Format != "calls" || tr.SHA256 != hex.EncodeToString(sum[:]) || tr.Lines != 4 || tr.Calls != 2 || tr.Requests != 4 ||
		tr.Speed != 1 || tr.Max != 0 || tr.SharedShare != nil || tr.FromMs != nil || tr.ToMs != nil || set.Calls != 2 || set.Requests != 4 || set.Turns != 3 {
		t.Errorf("settings: mode %q levels %v calls %d requests %d turns %d trace %+v", set.Mode, set.Levels, set.Calls, set.Requests, set.Turns, set.Trace)
	}
	if len(doc.Levels) != 1 || doc.Capacity != nil || doc.Levels[0].Summary.Requests != 4 || doc.Levels[0].Summary.Failed != 0 {
		t.Errorf("levels %+v, capacity %+v: want one level of 4 requests, none failed, and no capacity", doc.Levels, doc.Capacity)
	}
	for _, want := range []string{"replaying " + path + " (calls): 2 calls, 4 requests", "trace x1 "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the console does not say %q", want)
		}
	}
	if strings.Contains(stdout, "capacity:") {
		t.Errorf("the console gives a replay a capacity")
	}
	by := rowsByCall(readRows(t, out))
	a, b := by[1], by[2]
	if len(by) != 2 || len(a) != 3 || len(b) != 1 {
		t.Fatalf("rows by call: %d calls, %d and %d turns; want 2 calls of 3 and 1", len(by), len(a), len(b))
	}
	type turn struct{ speak, pause float64 }
	written := []turn{{200, 300}, {150, 250}, {100, 0}}
	for k, r := range a {
		if r.Turn != k+1 || r.TraceCall != "a" || r.TraceLine != k+1 || r.ErrorKind != nil {
			t.Errorf("call 1 row %d: turn %d, trace_call %q, trace_line %d, error %v", k, r.Turn, r.TraceCall, r.TraceLine, r.ErrorKind)
		}
		if r.LateMs == nil || *r.LateMs < 0 || r.QueueMs == nil || *r.QueueMs < *r.LateMs {
			t.Errorf("call 1 turn %d: late_ms %v, queue_ms %v", r.Turn, num(r.LateMs), num(r.QueueMs))
		}
	}
	if r := b[0]; r.Turn != 1 || r.TraceCall != "b" || r.TraceLine != 4 {
		t.Errorf("call 2: turn %d, trace_call %q, trace_line %d", r.Turn, r.TraceCall, r.TraceLine)
	}
	if got := num(a[0].ScheduledMs); got != 0+200 {
		t.Errorf("call a's first turn due at %v ms, want its start plus its speaking, 200", got)
	}
	if got := num(b[0].ScheduledMs); got != 400+50 {
		t.Errorf("call b's turn due at %v ms, want its start plus its speaking, 450", got)
	}
	for k := 0; k+1 < len(a); k++ {
		ended := num(a[k].StartMs) + num(a[k].TotalMs)
		want := written[k].pause + written[k+1].speak
		gap := num(a[k+1].ScheduledMs) - ended
		// The three figures are rounded to the microsecond each.
		if !(gap >= want-0.002 && gap-want < written[k].pause) {
			t.Errorf("call a turn %d due %.3f ms after turn %d's answer ended (start %v + total %v), want %g (pause %g + speaking %g)",
				k+2, gap, k+1, num(a[k].StartMs), num(a[k].TotalMs), want, written[k].pause, written[k+1].speak)
		}
	}
}

// TestLoadTraceCapQueues: with --trace-max 1, a call due while another
// holds the only place waits for it: its row's queue_ms (since it was
// due) is above its late_ms (since the place came free), it starts once
// the first call's answer ended, and nothing is dropped.
func TestLoadTraceCapQueues(t *testing.T) {
	t.Parallel()
	url := answerAfter(t, 400*time.Millisecond)
	path := writeTrace(t, "two.jsonl", `{"call":"long","start_ms":0,"input_tokens":8}`+"\n"+`{"call":"second","start_ms":100,"input_tokens":8}`+"\n")
	out := t.TempDir()
	code, stdout, stderr := runCLI("load", "--server", url, "--trace", path, "--trace-max", "1", "--docs", "0", "--no-report", "--out", out,
		"--slo", "ttft_ms<=60000@p95")
	t.Logf("%s%s", stdout, stderr)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	doc := strictLoad(t, out)
	if tr := doc.Settings.Trace; tr == nil || tr.Max != 1 {
		t.Errorf("settings.trace %+v, want max 1", tr)
	}
	if s := doc.Levels[0].Summary; s.Requests != 2 || s.OK != 2 {
		t.Errorf("%d requests, %d ok: want both, none dropped", s.Requests, s.OK)
	}
	by := rowsByCall(readRows(t, out))
	if len(by[1]) != 1 || len(by[2]) != 1 {
		t.Fatalf("rows by call: %v", by)
	}
	first, second := by[1][0], by[2][0]
	if second.TraceCall != "second" || second.QueueMs == nil || second.LateMs == nil || !(*second.QueueMs > *second.LateMs) {
		t.Errorf("the second call (%q): queue_ms %v, late_ms %v: want queue_ms above late_ms, the cap's hold",
			second.TraceCall, num(second.QueueMs), num(second.LateMs))
	}
	if ended := num(first.StartMs) + num(first.TotalMs); !(num(second.StartMs) >= ended-0.002) {
		t.Errorf("the second call started at %v ms, before the first one's answer ended (%v ms)", num(second.StartMs), ended)
	}
	if q, l := num(first.QueueMs), num(first.LateMs); math.Abs(q-l) > 0.0015 {
		t.Errorf("the first call, never held: queue_ms %v but late_ms %v", q, l)
	}
}

// TestLoadRampLeavesOutItsRequests: --ramp on a level of --rate marks
// every request due before the ramp's end ramp (and only those), counts
// them in summary.ramp and leaves them out of summary.requests as
// warm-up; with --ramp-keep they are counted in.
func TestLoadRampLeavesOutItsRequests(t *testing.T) {
	t.Parallel()
	url := answerAfter(t, 0)
	for _, keep := range []bool{false, true} {
		out := t.TempDir()
		args := []string{"load", "--server", url, "--rate", "20", "--requests", "16", "--ramp", "400ms", "--docs", "0", "--no-report",
			"--out", out, "--slo", "ttft_ms<=60000@p95"}
		if keep {
			args = append(args, "--ramp-keep")
		}
		code, stdout, stderr := runCLI(args...)
		if code != 0 {
			t.Fatalf("--ramp-keep %v: exit %d\n%s%s", keep, code, stdout, stderr)
		}
		if !strings.Contains(stdout, "ramp: each level grows over its first 0.4 s (linear)") {
			t.Errorf("--ramp-keep %v: the heading does not say the ramp:\n%s", keep, stdout)
		}
		doc := strictLoad(t, out)
		if r := doc.Settings.Ramp; r == nil || r.DurationMs != 400 || r.Shape != "linear" || r.Keep != keep {
			t.Errorf("--ramp-keep %v: settings.ramp %+v", keep, r)
		}
		rows := readRows(t, out)
		ramp := 0
		for _, r := range rows {
			if due := num(r.ScheduledMs); r.Ramp != (due < 400) {
				t.Errorf("--ramp-keep %v: call %d due at %v ms has ramp %v", keep, r.Call, due, r.Ramp)
			}
			if r.Ramp {
				ramp++
				if r.Warmup == keep {
					t.Errorf("--ramp-keep %v: a ramp row has warmup %v", keep, r.Warmup)
				}
			}
		}
		s := doc.Levels[0].Summary
		want := len(rows) - ramp
		if keep {
			want = len(rows)
		}
		if ramp == 0 || ramp == len(rows) || s.Ramp != ramp || s.Requests != want {
			t.Errorf("--ramp-keep %v: %d rows, %d of them ramp; summary ramp %d, requests %d (want %d)", keep, len(rows), ramp, s.Ramp, s.Requests, want)
		}
	}
}

// TestLoadSteadyStart: --steady-start with a closed loop of 2 calls at
// once and 3 turns: call 2 begins at turn 2 with one turn of history,
// the calls after the first two at turn 1; each call runs on to its last
// turn, and only a call's first row carries history_turns.
func TestLoadSteadyStart(t *testing.T) {
	t.Parallel()
	url := answerAfter(t, 0)
	out := t.TempDir()
	code, stdout, stderr := runCLI("load", "--server", url, "--concurrency", "2", "--turns", "3", "--requests", "4", "--think", "50ms",
		"--steady-start", "--docs", "0", "--no-report", "--out", out, "--slo", "ttft_ms<=60000@p95")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	if doc := strictLoad(t, out); !doc.Settings.SteadyStart {
		t.Errorf("settings.steady_start not set")
	}
	if !strings.Contains(stdout, "steady start: the first calls begin at staggered turns") {
		t.Errorf("the heading does not say the steady start:\n%s", stdout)
	}
	by := rowsByCall(readRows(t, out))
	firstTurn := map[int]int{1: 1, 2: 2, 3: 1, 4: 1}
	if len(by) != 4 {
		t.Fatalf("%d calls, want 4", len(by))
	}
	for call, rs := range by {
		for k, r := range rs {
			want := firstTurn[call] + k
			history := 0
			if k == 0 {
				history = want - 1
			}
			if r.Turn != want || r.HistoryTurns != history {
				t.Errorf("call %d row %d: turn %d, history_turns %d; want turn %d, history %d", call, k, r.Turn, r.HistoryTurns, want, history)
			}
		}
		if last := rs[len(rs)-1].Turn; last != 3 {
			t.Errorf("call %d ended at turn %d, want 3", call, last)
		}
	}
}

// TestLoadTraceSizesItsServer: a server load starts for a replay gets as
// many slots as calls of the trace are in progress at once, each taken to
// last its answers at 25 tokens/s plus its speaking and pauses: the first
// two calls here overlap (1.5 s each, a second apart), the third comes
// long after; --trace-max and --slots say otherwise.
func TestLoadTraceSizesItsServer(t *testing.T) {
	t.Parallel()
	path := writeTrace(t, "three.jsonl", `{"call":"x","start_ms":0,"input_tokens":8,"output_tokens":25,"speak_ms":500}
{"call":"y","start_ms":1000,"input_tokens":8,"output_tokens":25,"speak_ms":500}
{"call":"z","start_ms":100000,"input_tokens":8,"output_tokens":25,"speak_ms":500}
`)
	for _, c := range []struct {
		args  []string
		slots int
	}{
		{nil, 2},
		{[]string{"--trace-speed", "0.5"}, 1}, // 2 s apart, each 1 s of speaking and 1 s of answer
		{[]string{"--trace-max", "5"}, 5},
		{[]string{"--slots", "3"}, 3},
	} {
		c2 := sizedLoad(t, append([]string{"--trace", path}, c.args...)...)
		if c2.flags.start.slots != c.slots {
			t.Errorf("%v: %d slots, want %d", c.args, c2.flags.start.slots, c.slots)
		}
	}
}

// TestLoadTraceShards: a call log split over 3 shards runs every call
// exactly once, on the shard of its number, at its time on the trace's
// clock, and the shards merge into one level of every call; a replay's
// shard needs no --duration but refuses --level-gap, and more shards than
// calls.
func TestLoadTraceShards(t *testing.T) {
	t.Parallel()
	url := answerAfter(t, 10*time.Millisecond)
	var log strings.Builder
	for i := range 6 {
		fmt.Fprintf(&log, `{"call":"c%d","start_ms":%d,"input_tokens":8}`+"\n", i+1, 150*i)
	}
	path := writeTrace(t, "six.jsonl", log.String())
	at := time.Now().Add(3 * time.Second).Truncate(time.Second).UTC().Format(time.RFC3339)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--shard", "0/2", "--level-gap", "5s"}, "--level-gap is the pause between levels"},
		{[]string{"--shard", "0/7"}, "keeps 6 calls, fewer than the 7 shards"},
		{[]string{"--shard", "0/3", "--trace-max", "2"}, "--trace-max 2 is below the 3 shards"},
	} {
		args := append([]string{"load", "--server", url, "--trace", path, "--run-id", "r", "--start-at", at, "--out", t.TempDir()}, c.args...)
		if code, _, stderr := runCLI(args...); code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, want 2 saying %q: %s", c.args, code, c.want, stderr)
		}
	}
	out := t.TempDir()
	runShards(t, 3, nil, "--server", url, "--trace", path, "--run-id", "replay3", "--start-at", at, "--docs", "0", "--no-report",
		"--out", out, "--slo", "ttft_ms<=60000@p95")
	seen := map[int]int{}
	for i := range 3 {
		dir := filepath.Join(out, fmt.Sprintf("shard-%d", i))
		for _, r := range readRows(t, dir) {
			seen[r.Call]++
			if (r.Call-1)%3 != i || r.TraceCall != fmt.Sprintf("c%d", r.Call) || num(r.ScheduledMs) != float64(150*(r.Call-1)) {
				t.Errorf("shard %d ran call %d (%q) due at %v ms", i, r.Call, r.TraceCall, num(r.ScheduledMs))
			}
		}
	}
	for call := 1; call <= 6; call++ {
		if seen[call] != 1 {
			t.Errorf("call %d ran %d times", call, seen[call])
		}
	}
	merged := filepath.Join(out, "merged")
	code, stdout, stderr := runCLI("merge", out, "--out", merged, "--no-report")
	if code != 0 {
		t.Fatalf("merge: exit %d\n%s%s", code, stdout, stderr)
	}
	doc := strictLoad(t, merged)
	if len(doc.Levels) != 1 || doc.Levels[0].Summary.Requests != 6 || doc.Settings.Trace == nil || doc.Capacity != nil {
		t.Errorf("merged: levels %+v, trace %+v, capacity %+v", doc.Levels, doc.Settings.Trace, doc.Capacity)
	}
}

// TestMergeRefusesDifferentTraces: shards that replayed traces of
// different contents are refused, naming both; shards that replayed the
// same trace from different paths merge, the merge holding the first
// shard's path.
func TestMergeRefusesDifferentTraces(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	shard := func(name string, i int, file, sha string) string {
		doc := tinyShard("T", i, 2)
		doc.Settings.Trace = &artifact.LoadTrace{File: file, Format: "mooncake", SHA256: sha, Lines: 4, Calls: 4, Requests: 4, Speed: 1}
		p := filepath.Join(dir, name)
		writeShard(t, p, doc, nil, nil)
		return p
	}
	a0, a1 := shard("a0", 0, "/data/day.jsonl", "aa"), shard("a1", 1, "/mnt/day.jsonl", "aa")
	b1 := shard("b1", 1, "/data/day.jsonl", "bb")
	plain := tinyShard("T", 1, 2)
	c1 := filepath.Join(dir, "c1")
	writeShard(t, c1, plain, nil, nil)
	for _, c := range []struct {
		second string
		want   []string
	}{
		{b1, []string{"the shards replayed different traces", "sha256 aa", "sha256 bb", a0, b1}},
		{c1, []string{"the shards replayed different traces", c1 + " none"}},
	} {
		out := filepath.Join(dir, "out")
		code, _, stderr := runCLI("merge", a0, c.second, "--out", out, "--no-report")
		if code != 1 {
			t.Errorf("%s: exit %d, want 1\n%s", c.second, code, stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%s: stderr lacks %q:\n%s", c.second, w, stderr)
			}
		}
	}
	out := filepath.Join(dir, "same")
	if code, stdout, stderr := runCLI("merge", a0, a1, "--out", out, "--no-report"); code != 0 {
		t.Fatalf("the same trace from two paths: exit %d\n%s%s", code, stdout, stderr)
	}
	if tr := strictLoad(t, out).Settings.Trace; tr == nil || tr.File != "/data/day.jsonl" || tr.SHA256 != "aa" {
		t.Errorf("merged settings.trace %+v", tr)
	}
}
