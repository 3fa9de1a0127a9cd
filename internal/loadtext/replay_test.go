package loadtext_test

import (
	"strings"
	"testing"

	"ttftlab/internal/artifact"
	"ttftlab/internal/loadtext"
)

// traceDoc is a replay of a Mooncake trace at twice its speed, windowed,
// capped at 8 calls at once; its one level met its SLO.
func traceDoc() artifact.Load {
	l := level(2)
	l.Concurrency = nil
	return artifact.Load{
		Settings: artifact.LoadSettings{Server: "http://127.0.0.1:8080", Mode: "trace", Levels: []float64{2}, Calls: 40, Requests: 40, Turns: 1,
			Docs: 4, MaxTokens: 64, SLO: []artifact.SLO{{Metric: "ttft_ms", Percentile: 95, LimitMs: 800, Text: "ttft_ms<=800@p95"}},
			Trace: &artifact.LoadTrace{File: "/t/day.jsonl", Format: "mooncake", SHA256: "ab", Lines: 100, Calls: 40, Requests: 40,
				SpanMs: 45123.4, Speed: 2, FromMs: f(90000), ToMs: f(180000), Max: 8, Block: 512, SharedShare: f(0.375)}},
		Levels: []artifact.LoadLevel{l},
	}
}

func TestTraceRunLines(t *testing.T) {
	set := traceDoc().Settings
	sameAs(t, "a replay", loadtext.RunLines(set), []string{
		"ttftlab load: server http://127.0.0.1:8080, replaying /t/day.jsonl (mooncake, blocks of 512 tokens, 38% of input tokens shared): " +
			"40 calls, 40 requests over 45.123 s at x2 speed, window 90 s to 180 s of its clock, at most 8 calls at once",
		"SLO: ttft_ms<=800@p95",
	})
	tr := set.Trace
	tr.Format = "calls"
	if got, want := loadtext.RunLines(set)[0], ", at most 8 calls at once, 4 docs, max_tokens 64 where a turn gives no output length"; !strings.HasSuffix(got, want) {
		t.Errorf("a call log's heading %q does not end %q", got, want)
	}
	tr.Format, tr.SharedShare, tr.Block, tr.FromMs, tr.ToMs, tr.Max, tr.Speed = "calls", nil, 0, nil, nil, 0, 1
	if got, want := loadtext.TraceText(tr), "replaying /t/day.jsonl (calls): 40 calls, 40 requests over 45.123 s at x1 speed, the whole trace, "+
		"no cap on calls at once"; got != want {
		t.Errorf("a call log:\n got %q\nwant %q", got, want)
	}
	tr.FromMs = f(1500)
	if got := loadtext.TraceText(tr); !strings.Contains(got, ", window from 1.5 s of its clock,") {
		t.Errorf("a window from: %q", got)
	}
	tr.FromMs, tr.ToMs = nil, f(3600000)
	if got := loadtext.TraceText(tr); !strings.Contains(got, ", window up to 3600 s of its clock,") {
		t.Errorf("a window up to: %q", got)
	}
	tr.Max = 1
	if got := loadtext.TraceText(tr); !strings.HasSuffix(got, ", at most 1 call at once") {
		t.Errorf("a cap of one: %q", got)
	}

	set.Shard, set.RunID, set.StartAtUnixMs = &artifact.LoadShard{Index: 1, Count: 3, Host: "b"}, "r1", 1772366405250
	sameAs(t, "a shard of a replay", loadtext.RunLines(set)[2:], []string{
		"shard 1 of 3 of run r1 on b: calls 2, 5, ... of the trace's 40, each at its time from 2026-03-01 12:00:05.250 UTC",
	})
}

// TestRampAndSteadyHeading: the heading says how each level starts.
func TestRampAndSteadyHeading(t *testing.T) {
	set := searchDoc().Settings
	set.SearchMax = 0
	set.Ramp = &artifact.LoadRamp{DurationMs: 30000, Shape: "exp"}
	set.SteadyStart = true
	sameAs(t, "a ramp and steady calls", loadtext.RunLines(set)[2:], []string{
		"ramp: each level grows over its first 30 s (exp), the requests due meanwhile marked ramp and left out of its figures (--ramp-keep keeps them)",
		"steady start: the first calls begin at staggered turns, their earlier turns in the prompt as history (history_turns in requests.jsonl), " +
			"as if they had been running",
	})
	set.Ramp.Keep, set.SteadyStart = true, false
	sameAs(t, "a ramp kept", loadtext.RunLines(set)[2:], []string{
		"ramp: each level grows over its first 30 s (exp), the requests due meanwhile marked ramp and kept in its figures (--ramp-keep)",
	})
}

// TestTraceLevel: a replay's level is named by its speed, whatever label
// it is given, in a first column wide enough for it, and the run ends
// without a capacity.
func TestTraceLevel(t *testing.T) {
	doc := traceDoc()
	tab := loadtext.NewTable(doc.Settings)
	header := strings.TrimPrefix(loadtext.Header("trace"), "\n")
	row := tab.Level(loadtext.Label(2, 1), doc.Levels[0])[0]
	if want := "trace x2        40        40/40"; !strings.HasPrefix(row, want) {
		t.Errorf("the row %q does not start %q", row, want)
	}
	// Its columns stand under the header's.
	if h, r := strings.Index(header, "ttft p50/95/99"), strings.Index(row, "210/"); h < 0 || r < 0 || r-h != 3 {
		t.Errorf("the row's ttft column starts at %d, the header's at %d:\n%s\n%s", r, h, header, row)
	}
	if got := loadtext.LevelName("trace", 0.5); got != "trace x0.5" {
		t.Errorf("LevelName: %q", got)
	}
	if got := loadtext.LevelName("rate", 2); got != "rate 2 calls/s" {
		t.Errorf("LevelName: %q", got)
	}
	if got := loadtext.LevelName("concurrency", 4); got != "concurrency 4" {
		t.Errorf("LevelName: %q", got)
	}
	end := loadtext.EndLines(doc, "o", tab)
	noLine(t, end, "capacity")
	hasLine(t, end, "artifacts in o: load.json, requests.jsonl, requests.csv, server.jsonl")

	doc.Settings.RunID, doc.Settings.Shards = "r1", 2
	merged := loadtext.MergeLines(doc, nil, "m")
	noLine(t, merged, "capacity")
	if !strings.Contains(merged[0], "ttftlab merge: run r1, 2 shards, server http://127.0.0.1:8080, replaying /t/day.jsonl (mooncake") {
		t.Errorf("merge heading %q", merged[0])
	}
	hasLine(t, merged, "trace x2        40        40/40     210/   512/   640 (n=40)      8/   612/   700 (n=40)     123.5    100%  met")
}

// TestLateLines: a level with late_ms says how late its requests started,
// and warns only when its p99 is above 10 ms.
func TestLateLines(t *testing.T) {
	for _, c := range []struct {
		p99  float64
		warn bool
	}{{9.5, false}, {10, false}, {10.5, true}, {250, true}} {
		l := level(1)
		late := dist(40, 0.3, c.p99/2, c.p99)
		late.Max = f(c.p99 + 10)
		l.Summary.LateMs = &late
		tab := &loadtext.Table{Mode: "concurrency"}
		lines := tab.Level("1", l)
		hasLine(t, lines, "  started late: p50 0.3 ms, p99 "+artifact.ShowMs(c.p99)+" ms, max "+artifact.ShowMs(c.p99+10)+" ms over 40 requests")
		warned := false
		for _, line := range lines {
			warned = warned || strings.HasPrefix(line, "  late: the client could not keep to the schedule (p99 "+artifact.ShowMs(c.p99)+" ms above 10 ms)")
		}
		if warned != c.warn {
			t.Errorf("p99 %g ms: warned %v, want %v:\n%s", c.p99, warned, c.warn, strings.Join(lines, "\n"))
		}
		hasLine(t, tab.Legend(), "started late: each request's start past the moment it could start (late_ms: its due time, or when a cap on")
	}
	// No late_ms (a file written before it): no line, nothing in the legend.
	tab := &loadtext.Table{Mode: "concurrency"}
	noLine(t, tab.Level("1", level(1)), "started late")
	noLine(t, tab.Legend(), "started late")
}

// TestRampLine: a level's ramp requests are counted, said left out or
// kept as the run's ramp has it.
func TestRampLine(t *testing.T) {
	l := level(4)
	l.Summary.Ramp = 7
	for _, c := range []struct {
		ramp *artifact.LoadRamp
		want string
	}{
		{&artifact.LoadRamp{DurationMs: 1000, Shape: "linear"}, "  7 ramp requests left out of the figures, as warm-up is"},
		{&artifact.LoadRamp{DurationMs: 1000, Shape: "linear", Keep: true}, "  7 ramp requests kept in the figures (--ramp-keep)"},
		{nil, "  7 requests were due during the ramp (ramp in requests.jsonl)"},
	} {
		tab := &loadtext.Table{Mode: "concurrency", Ramp: c.ramp}
		hasLine(t, tab.Level("4", l), c.want)
	}
	noLine(t, (&loadtext.Table{}).Level("4", level(4)), "ramp")
}
