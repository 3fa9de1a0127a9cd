package loadtext_test

import (
	"slices"
	"strings"
	"testing"

	"ttftlab/internal/artifact"
	"ttftlab/internal/loadtext"
)

// hasLine fails unless lines hold each of want, whole.
func hasLine(t *testing.T, lines []string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !slices.Contains(lines, w) {
			t.Errorf("no line %q in:\n%s", w, strings.Join(lines, "\n"))
		}
	}
}

// noLine fails when a line of lines contains part.
func noLine(t *testing.T, lines []string, part string) {
	t.Helper()
	for _, l := range lines {
		if strings.Contains(l, part) {
			t.Errorf("line %q should not be there", l)
		}
	}
}

// levelLines are a level's lines in a table of its own, then its legend.
func levelLines(c levelCase) (lines, legend []string) {
	tab := &loadtext.Table{Mode: c.mode, Engine: c.engine, STTEngine: c.sttEngine, Scope: c.scope}
	for i, l := range c.levels {
		lines = append(lines, tab.Level(c.labels[i], l)...)
	}
	return lines, tab.Legend()
}

func tableCase(t *testing.T, name string) levelCase {
	t.Helper()
	for _, c := range tableCases() {
		if c.name == name {
			return c
		}
	}
	t.Fatalf("no case %q", name)
	return levelCase{}
}

func TestLevelMet(t *testing.T) {
	lines, legend := levelLines(tableCase(t, "met"))
	want := []string{
		"1            40        40/40     210/   512/   640 (n=40)      8/   612/   700 (n=40)     123.5    100%  met",
		"  ttft      p50 210 [189, 231]  p95 512 [461, 563]  p99 640 [576, 704]  (n=40, 95% intervals)",
		"  1st sent  p50 8.2 [7.4, 9.1]  p95 612 [551, 674]  p99 700 [630, 771]  (n=40, 95% intervals)",
		"  SLO ttft_ms p95 512 ms (limit 800 ms, n=40): met",
	}
	if !slices.Equal(lines, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	// Nothing starred: the legend says nothing of "*".
	if len(legend) != 4 || legend[0] != "" || !strings.HasPrefix(legend[3], "sentence (n: how many). The SLO") {
		t.Errorf("legend:\n%s", strings.Join(legend, "\n"))
	}
}

func TestLevelStarsWhatItsIntervalLineCannotBound(t *testing.T) {
	lines, legend := levelLines(tableCase(t, "thin tails"))
	hasLine(t, lines,
		"2            10        10/10     150/  400*/  420* (n=10)    300/   650/  680* (n=10)     123.5    100%  met",
		"  ttft      p50 150 [135, 165]  p95 too few samples  p99 too few samples  (n=10, 95% intervals)",
		// A p95 over 10 requests is a thin tail; a p50 is not.
		"  SLO ttft_ms p95 400 ms* (limit 800 ms, n=10): met",
		"  SLO first_sentence_ms p50 300 ms (limit 1000 ms, n=10): met")
	hasLine(t, legend, "*: too few samples to bound this percentile (no 95 % interval: the line below says so); under 20")

	// A p90 has no interval on record: starred when its figure's
	// distribution is too thin for it (8 values), though the SLO is over
	// 40 requests.
	lines, _ = levelLines(tableCase(t, "p90 thin in its figure"))
	hasLine(t, lines, "  SLO first_sentence_ms p90 600 ms* (limit 1000 ms, n=40): met")

	// A value on a failed request is not starred, nor does it mark.
	l := failing(1, 3)
	l.Summary.TTFTMs = dist(37, 210, 512, 640)
	l.SLO[0].N = 10
	tab := &loadtext.Table{}
	hasLine(t, tab.Level("1", l), "  SLO ttft_ms p95 none: the percentile falls on a failed or missing request (limit 800 ms, n=10): missed")
	if len(tab.Legend()) != 4 {
		t.Errorf("a value that is none marked the table: %q", tab.Legend())
	}
}

func TestLevelFailures(t *testing.T) {
	lines, _ := levelLines(tableCase(t, "failure kinds"))
	long := strings.Repeat("a server that says a lot ", 20)[:300] + "..."
	hasLine(t, lines,
		"4            40        15/40     210/   512/   640 (n=15)      8/   612/   700 (n=40)     123.5       -  missed",
		"  failed 25 of 40 requests:",
		"    http 503          10  e.g. "+long,
		"    timeout            8  e.g. no byte in 30 s",
		"    reset              4  e.g. connection reset by peer",
		"    ... and 2 more kinds (requests.jsonl has every message)")
	noLine(t, lines, "http 429")
}

func TestLevelClient(t *testing.T) {
	lines, _ := levelLines(tableCase(t, "client"))
	hasLine(t, lines,
		"  client busy: 88% of 2 cores; its reader waited 0 ms for a CPU (0.0% of the level, 0.00 ms a time on average): chunks "+
			"that came meanwhile share a read and its stamp; run the client on another machine or fewer calls",
		"  client busy: 5% of 8 cores; its reader waited 240 ms for a CPU (2.0% of the level, 0.20 ms a time on average): chunks "+
			"that came meanwhile share a read and its stamp; run the client on another machine or fewer calls")
	// Level 7 waited as long in all, but 5 µs a time: no warning.
	if n := strings.Count(strings.Join(lines, "\n"), "client busy"); n != 2 {
		t.Errorf("%d client lines, want 2", n)
	}
}

func TestLevelNotSteady(t *testing.T) {
	lines, _ := levelLines(tableCase(t, "not steady"))
	hasLine(t, lines,
		"  not steady: queue_ms + ttft_ms moved over the level (p50 of each third 100 [98, inf] -> 180 [178, inf] -> 260 [258, inf] ms): "+
			"its first and last thirds disagree; try --warmup",
		"  not steady: queue_ms + ttft_ms moved over the level (p50 of each third 100 [98, inf] -> 900 [898, inf] -> inf [inf, inf] ms): "+
			"its first and last thirds disagree; a third is mostly requests that failed or never reached the figure (inf)")
	// Unknown (too few requests a third), or over-saturated: no line.
	for _, l := range []artifact.LoadLevel{interrupted(1), overSaturated(1)} {
		noLine(t, (&loadtext.Table{}).Level("1", l), "not steady")
	}
}

// TestLevelTransient: a level whose steady window cut a transient says
// how many requests it left out; one whose window is whole says nothing.
func TestLevelTransient(t *testing.T) {
	lines, _ := levelLines(tableCase(t, "transient"))
	hasLine(t, lines, "  steady from request 16 (MSER-5 on ttft_ms): the 15 before it left out of the level's figures as its warm-up")
	if n := strings.Count(strings.Join(lines, "\n"), "steady from"); n != 1 {
		t.Errorf("%d window lines, want 1", n)
	}
}

// TestLevelDrifting: a level steady by its thirds whose batch means'
// rank correlation with time is significant warns; one not drifting
// does not.
func TestLevelDrifting(t *testing.T) {
	lines, _ := levelLines(tableCase(t, "drifting"))
	hasLine(t, lines, "  drifting: queue_ms + ttft_ms rose across the level's steady window (Spearman's rho 0.71 of 12 batch means of 5 "+
		"against time, p 0.0092; p50 of each third 100 [98, inf] -> 115 [113, inf] -> 130 [128, inf] ms): its figures mix what came before and after")
	noLine(t, (&loadtext.Table{}).Level("1", level(1)), "drifting")
}

// TestLevelSLOIntervals: an SLO's value is printed with its interval
// (the one that takes a call's requests as correlated), and an interval
// that holds the limit says the verdict is undecided by it.
func TestLevelSLOIntervals(t *testing.T) {
	lines, _ := levelLines(tableCase(t, "slo intervals"))
	hasLine(t, lines, "  SLO ttft_ms p95 512 ms [480, 530] (limit 800 ms, n=40): met",
		"  SLO ttft_ms p95 780 ms [700, 900] (limit 800 ms, n=40): met (undecided: the interval holds the limit)")
}

func TestLevelNoContent(t *testing.T) {
	lines, _ := levelLines(tableCase(t, "no content"))
	hasLine(t, lines,
		"10           40        40/40     200/   500/   600 (n=37)       -              (n=0)      123.5    100%  met",
		"  3 of the 40 requests that ended without an error streamed no content (no first token): the server answered with nothing to time",
		"  at least 8 of the 38 requests that ended without an error streamed no content (no first token): the server answered with nothing to time")
	// An empty distribution has no interval line.
	noLine(t, (&loadtext.Table{}).Level("10", tableCase(t, "no content").levels[0]), "1st sent  p50")
	// A speech-to-speech session's turns stream no LLM content: not a
	// thing to warn of.
	noLine(t, (&loadtext.Table{Sessions: true}).Level("10", tableCase(t, "no content").levels[0]), "streamed no content")
}

func TestLevelSpoken(t *testing.T) {
	lines, _ := levelLines(tableCase(t, "spoken"))
	hasLine(t, lines,
		"  1st audio p50 350 [315, 385]  p95 700 [630, 770]  p99 too few samples  (n=40, 95% intervals)",
		"  underrun  p50 0.0 [0.0, 0.0]  p95 12 [11, 14]  p99 40 [36, 44]  (n=40, 95% intervals)",
		"  SLO first_audio_ms p99 900 ms* (limit 1000 ms, n=40): met",
		"  speech: espeak-ng used 83.2 ms of CPU per second of audio (on this machine, beside the client)")
	lines, _ = levelLines(tableCase(t, "spoken without engine"))
	noLine(t, lines, "speech:")
}

// TestLevelCallerSpoke: a level whose callers spoke shows mouth to ear,
// the final transcript and the endpointing with their intervals, its SLO
// on mouth_to_ear_ms, and what the default speech-to-text engine cost
// beside the speech engine's line; without that engine, no such line.
func TestLevelCallerSpoke(t *testing.T) {
	lines, _ := levelLines(tableCase(t, "caller spoke"))
	hasLine(t, lines,
		"  mouth-ear p50 1200 [1080, 1320]  p95 1450 [1305, 1595]  p99 too few samples  (n=40, 95% intervals)",
		"  stt final p50 300 [270, 330]  p95 420 [378, 462]  p99 500 [450, 550]  (n=40, 95% intervals)",
		"  endpoint  p50 150 [135, 165]  p95 200 [180, 220]  p99 260 [234, 286]  (n=20, 95% intervals)",
		"  SLO mouth_to_ear_ms p95 1450 ms (limit 1500 ms, n=40): met",
		"  speech: espeak-ng used 83.2 ms of CPU per second of audio (on this machine, beside the client)",
		"  speech-to-text: pocketsphinx 5.1.1 used 612.5 ms of CPU per second of the callers' audio (on this machine, beside the client)")
	lines, _ = levelLines(tableCase(t, "caller spoke without engine"))
	noLine(t, lines, "speech-to-text:")
	lines, _ = levelLines(tableCase(t, "spoken"))
	noLine(t, lines, "mouth-ear")
}

func TestLevelVerdicts(t *testing.T) {
	lines, _ := levelLines(tableCase(t, "interrupted"))
	if !strings.HasSuffix(lines[0], "  interrupted") {
		t.Errorf("row %q", lines[0])
	}
	lines, _ = levelLines(tableCase(t, "held but failed"))
	hasLine(t, lines, "  missed: every SLO held, but 1 of 40 requests failed; a level holds only when none fails")
	// Interrupted or over-saturated, a level that failed requests missed
	// for those reasons too: no "every SLO held".
	for _, name := range []string{"interrupted", "over-saturated"} {
		lines, _ = levelLines(tableCase(t, name))
		noLine(t, lines, "every SLO held")
	}
	lines, legend := levelLines(tableCase(t, "second round"))
	if !strings.HasPrefix(lines[0], "12 #2        40") || !strings.HasSuffix(lines[0], "62%  missed") {
		t.Errorf("row %q", lines[0])
	}
	hasLine(t, legend, "sentence (n: how many), over every shard's requests. The SLO and goodput count a failed request as infinitely late.")
}

func TestCapacityLine(t *testing.T) {
	want := map[string]string{
		"no level ran":                    "capacity: none: no level ran",
		"none ran, one asked for":         "capacity: none: already 2 calls at once misses the SLO",
		"first missed":                    "capacity: none: already 1 call at once misses the SLO",
		"first failed every request":      "capacity: none: already 1 call at once failed every request",
		"first held but failed":           "capacity: none: already 1 call at once has failed requests (1 of 40)",
		"first over-saturated":            "capacity: none: already 0.5 calls/s misses the SLO (over-saturated: its lateness kept rising)",
		"first interrupted":               "capacity: none: already 1 call at once misses the SLO (interrupted: the run was stopped in it)",
		"at least, above by value":        "capacity: 2 calls at once (ttft_ms p95 512 ms <= 800 ms); at 4: 1234 ms",
		"at least, above failed":          "capacity: 0.25 calls/s (ttft_ms p95 512 ms <= 800 ms); at 0.5: no value: 3 of 40 failed",
		"at least, above missing":         "capacity: 1 call at once (ttft_ms p95 512 ms <= 800 ms); at 2: no value: 5 of 40 without the figure",
		"at least, above held but failed": "capacity: 1 call at once (ttft_ms p95 512 ms <= 800 ms); at 2: 512 ms, but 1 of 40 requests failed",
		"at least, above over-saturated":  "capacity: 1 calls/s (ttft_ms p95 512 ms <= 800 ms); at 2: 2400 ms (over-saturated: its lateness kept rising)",
		"at least, above interrupted":     "capacity: 1 call at once (ttft_ms p95 512 ms <= 800 ms); at 2: no value: 7 of 40 failed (interrupted: the run was stopped in it)",
		"every level held":                "capacity: 4 calls at once (ttft_ms p95 512 ms <= 800 ms); every level held: try higher ones",
		"highest held, one below missed": "capacity: 4 calls at once (ttft_ms p95 512 ms <= 800 ms); the highest level held, but 2 below it did not: " +
			"rerun it, or try higher ones",
		"highest held, two below missed": "capacity: 2 calls/s (ttft_ms p95 512 ms <= 800 ms); the highest level held, but 1, 1.5 below it did not: " +
			"rerun them, or try higher ones",
	}
	for _, c := range capacityCases() {
		var capacity, above *artifact.LoadLevel
		if c.capacity >= 0 {
			capacity = &c.levels[c.capacity]
		}
		if c.above >= 0 {
			above = &c.levels[c.above]
		}
		if got := loadtext.CapacityLine(c.mode, c.levels, capacity, above, c.lowest); got != want[c.name] {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, want[c.name])
		}
		delete(want, c.name)
	}
	if len(want) > 0 {
		t.Errorf("cases not run: %v", want)
	}
}

func TestText(t *testing.T) {
	for x, want := range map[float64]string{0: "0.0", 0.04: "0.0", 9.94: "9.9", 9.96: "10.0", 10: "10", 10.5: "10", 11.5: "12", -3.25: "-3.2", -12.5: "-12"} {
		if got := artifact.ShowMs(x); got != want {
			t.Errorf("artifact.ShowMs(%g) = %q, want %q", x, got, want)
		}
	}
	for _, c := range []struct {
		value *float64
		ci    [2]*float64
		want  string
	}{
		{f(812), [2]*float64{f(790), f(838.4)}, "[790, 838]"},
		{f(5), [2]*float64{nil, f(7.25)}, "[0, 7.2]"},
		{f(812), [2]*float64{f(790), nil}, "[790, inf]"},
		{nil, [2]*float64{nil, nil}, "[inf, inf]"},
	} {
		if got := loadtext.Bounds(c.value, c.ci); got != c.want {
			t.Errorf("Bounds = %q, want %q", got, c.want)
		}
	}
	if got, want := loadtext.ThirdsText(*trend(false, true, f(12), f(80), nil)), "p50 of each third 12 [10, inf] -> 80 [78, inf] -> inf [inf, inf] ms"; got != want {
		t.Errorf("ThirdsText = %q, want %q", got, want)
	}
	for _, c := range []struct {
		mode  string
		level float64
		want  string
	}{{"rate", 1, " calls/s"}, {"concurrency", 1, " call at once"}, {"concurrency", 0.5, " calls at once"}} {
		if got := loadtext.Unit(c.mode, c.level); got != c.want {
			t.Errorf("Unit(%s, %g) = %q", c.mode, c.level, got)
		}
	}
	if got := loadtext.Header("rate"); !strings.HasPrefix(got, "\nrate/s    calls  requests ok  ttft p50/95/99") {
		t.Errorf("Header = %q", got)
	}
	if got := loadtext.Header("concurrency"); !strings.HasPrefix(got, "\nat once   calls") || !strings.HasSuffix(got, "goodput  SLO") {
		t.Errorf("Header = %q", got)
	}
}

func TestMergeLines(t *testing.T) {
	doc := mergeDoc()
	lines := loadtext.MergeLines(doc, []string{"a note"}, "out/merged")
	hasLine(t, lines,
		"ttftlab merge: run r1, 2 shards, server http://127.0.0.1:8080, concurrency levels 2,4",
		"SLO: ttft_ms p95 <= 800ms, first_sentence_ms p50 <= 1.5s",
		loadtext.Header("concurrency"),
		"  shard 0 on a: 20 requests, shard 1 on b: 20 requests; start spread 3.2 ms",
		"  over-saturated: queue_ms + ttft_ms kept rising in a shard (p50 of each third 300 [298, inf] -> 900 [898, inf] -> inf [inf, inf] ms, "+
			"over that shard's requests), which then started no new call: the level does not hold",
		"  shard 0: 20 requests (3 failed), shard 1 on b: 20 requests; start spread unknown (a shard has no start on record)",
		"sentence (n: how many), over every shard's requests. The SLO and goodput count a failed request as infinitely late.",
		"*: too few samples to bound this percentile (no 95 % interval: the line below says so); under 20",
		"note: a note",
		"capacity: 2 calls at once (ttft_ms p95 512 ms <= 800 ms); at 4: 2400 ms (over-saturated: its lateness kept rising)",
		"artifacts in out/merged: load.json, requests.jsonl, requests.csv, server.jsonl; ttftlab report out/merged draws it")

	doc.Levels = nil
	lines = loadtext.MergeLines(doc, nil, "o")
	hasLine(t, lines, "capacity: none: no level was merged")
	noLine(t, lines, "note:")
}

func TestInterruptedLines(t *testing.T) {
	lines := loadtext.InterruptedLines(artifact.LoadSettings{Mode: "concurrency"}, interrupted(16))
	if !strings.HasPrefix(lines[0], "16 ") || !strings.HasSuffix(lines[0], "interrupted") {
		t.Errorf("row %q", lines[0])
	}
	hasLine(t, lines, "  interrupted: the figures are over the requests that ended before the stop; those it canceled count as failed (canceled)",
		"calls: the calls that ran; requests ok: of their requests (one per turn), those that ended without an error.")
	if lines := loadtext.InterruptedLines(artifact.LoadSettings{Mode: "concurrency"}, level(2)); lines != nil {
		t.Errorf("a level that ran to its end: %q", lines)
	}
}

// TestThinTailRule: the rule of the "*" (artifact.ThinTail) at its edges.
func TestThinTailRule(t *testing.T) {
	for _, c := range []struct {
		p    float64
		n    int
		thin bool
	}{{95, 19, true}, {95, 20, false}, {99, 99, true}, {99, 100, false}, {50, 1, true}, {50, 2, false}, {99.9, 999, true}, {99.9, 1000, false}} {
		if got := artifact.ThinTail(c.p, c.n); got != c.thin {
			t.Errorf("ThinTail(%g, %d) = %v", c.p, c.n, got)
		}
	}
	if artifact.TailNeeds(95) != 20 || artifact.TailNeeds(90) != 10 {
		t.Errorf("TailNeeds: %d, %d", artifact.TailNeeds(95), artifact.TailNeeds(90))
	}
	d := dist(40, 1, 2, 3, "p99")
	if d.Unbounded(50) || d.Unbounded(95) || !d.Unbounded(99) || (artifact.Dist{}).Unbounded(99) {
		t.Error("Unbounded follows the intervals on record")
	}
	if !dist(9, 1, 2, 3).Unbounded(90) || dist(10, 1, 2, 3).Unbounded(90) {
		t.Error("a p90, with no interval on record, is unbounded as a thin tail")
	}
}
