package loadtext_test

import (
	"slices"
	"strings"
	"testing"

	"ttftlab/internal/artifact"
	"ttftlab/internal/loadtext"
)

func sameAs(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s:\n got\n%s\nwant\n%s", what, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestRunLines(t *testing.T) {
	set := searchDoc().Settings
	set.SearchMax, set.SearchBudget, set.Levels = 0, 0, []float64{1, 2, 4}
	sameAs(t, "a sweep", loadtext.RunLines(set), []string{
		"ttftlab load: server http://127.0.0.1:8080, concurrency levels 1,2,4, per level 40 calls of 1 turn each (40 requests), 4 docs, max_tokens 64",
		"SLO: ttft_ms p95 <= 800ms",
	})

	set.Mode, set.Levels, set.Turns, set.Requests = "rate", []float64{0.5, 1.25, 1234567}, 3, 120
	set.SLO = append(set.SLO, artifact.SLO{Text: "first_sentence_ms p50 <= 1s"})
	sameAs(t, "a sweep of rates", loadtext.RunLines(set), []string{
		"ttftlab load: server http://127.0.0.1:8080, rate levels 0.5,1.25,1234567, per level 40 calls of 3 turns each (120 requests), 4 docs, max_tokens 64",
		"SLO: ttft_ms p95 <= 800ms, first_sentence_ms p50 <= 1s",
	})

	set.SearchMax, set.SearchStart, set.Levels = 64, 0.5, []float64{}
	if got := loadtext.RunLines(set)[0]; !strings.Contains(got, ", rate levels searched from 0.5 up to 64 calls/s, per level") {
		t.Errorf("a search of rates: %q", got)
	}
	set.Mode = "concurrency"
	if got := loadtext.RunLines(set)[0]; !strings.Contains(got, ", concurrency levels searched in 1..64, per level") {
		t.Errorf("a search: %q", got)
	}

	set.STT = &artifact.LoadSTT{URL: "ws://127.0.0.1:9000", API: "realtime", Engine: "pocketsphinx 5.1.1"}
	sameAs(t, "callers speak", loadtext.RunLines(set)[2:], []string{
		"callers speak: every turn's question spoken by espeak-ng to speech-to-text pocketsphinx 5.1.1 at ws://127.0.0.1:9000 (realtime), its transcript asked, the answer spoken",
	})
	set.STT.Engine, set.STT.CallerAudio = "", "/q"
	if got := loadtext.RunLines(set)[2]; !strings.Contains(got, " spoken from the WAV files of /q to speech-to-text a server of the user's at ws://") {
		t.Errorf("callers speak to a user's server: %q", got)
	}

	set = searchDoc().Settings
	set.SearchMax, set.Levels, set.Turns = 0, []float64{1, 8}, 3
	set.Realtime = &artifact.LoadRealtime{Server: "ws://127.0.0.1:8765"}
	sameAs(t, "speech-to-speech sessions", loadtext.RunLines(set)[:1], []string{
		"ttftlab load: realtime sessions with ws://127.0.0.1:8765, concurrency levels 1,8, per level 40 sessions of 3 turns each (120 turns)",
	})
	set.Realtime.BargeAfterMs = artifact.Ms(800)
	if got := loadtext.RunLines(set)[0]; !strings.HasSuffix(got, "(120 turns), each turn but the last barged into 800 ms after its first audio") {
		t.Errorf("sessions that barge in: %q", got)
	}

	set = searchDoc().Settings
	set.SearchMax, set.Levels, set.RunID = 0, []float64{1, 2}, "r1"
	set.Shard = &artifact.LoadShard{Index: 1, Count: 3, Host: "b"}
	set.StartAtUnixMs, set.DurationMs, set.LevelGapMs = 1772366405250.75, 30000, 2500
	sameAs(t, "a shard", loadtext.RunLines(set)[2:], []string{
		"shard 1 of 3 of run r1 on b: calls 2, 5, ... of each level's 40; 2 level(s), the first due at 2026-03-01 12:00:05.250 UTC, each 30 s then a 2.5 s gap",
	})
}

func TestLevelEvents(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{loadtext.Label(4, 1), "4"},
		{loadtext.Label(0.25, 3), "0.25 #3"},
		{loadtext.Label(1234567, 2), "1.23457e+06 #2"},
		{loadtext.DueLine(4, 1772366405999.9), "level 4 due at 2026-03-01 12:00:05.999 UTC"},
		{loadtext.LateStartLine(812.5, 0, false), "  started 812 ms after it was due: the shard was ready only after --start-at; the merge shows the spread"},
		{loadtext.LateStartLine(75, 2, true), "  started 75 ms after it was due: the levels before it started late, the first because the shard " +
			"was ready only after --start-at; the merge shows the spread"},
		{loadtext.LateStartLine(75, 2, false), "  started 75 ms after it was due: the level before ran past --level-gap; the merge shows the spread"},
		{loadtext.AllFailedLine(), "  every request at this level failed: the sweep stops here"},
		{loadtext.OverSaturatedLine(*overSaturated(2).OverSaturated, 21, 40), "  over-saturated: queue_ms + ttft_ms kept rising " +
			"(p50 of each third 300 [298, inf] -> 900 [898, inf] -> inf [inf, inf] ms); no new call started after 21 of 40 had ended"},
	} {
		if c.got != c.want {
			t.Errorf("\n got %q\nwant %q", c.got, c.want)
		}
	}
}

// legendLen is how many lines a legend without "*" has.
const legendLen = 4

func TestEndLinesSweep(t *testing.T) {
	doc := searchDoc()
	doc.Settings.SearchMax = 0
	doc.Capacity = &artifact.Capacity{Level: 4, Next: &artifact.CapacityNext{Level: 8}}
	tab := &loadtext.Table{Mode: "concurrency"}
	lines := loadtext.EndLines(doc, "runs/load", tab)
	sameAs(t, "a sweep's end", lines[legendLen:], []string{
		"capacity: 4 calls at once (ttft_ms p95 512 ms <= 800 ms); at 8: 1500 ms",
		"artifacts in runs/load: load.json, requests.jsonl, requests.csv, server.jsonl",
	})
	sameAs(t, "its legend", lines[:legendLen], tab.Legend())
	// Speech-to-speech sessions have no LLM server to watch.
	doc.Settings.Realtime = &artifact.LoadRealtime{Server: "ws://127.0.0.1:8765"}
	if got := loadtext.EndLines(doc, "runs/load", tab); got[len(got)-1] != "artifacts in runs/load: load.json, requests.jsonl, requests.csv" {
		t.Errorf("sessions' artifacts: %q", got[len(got)-1])
	}
	doc.Settings.Realtime = nil

	// No level held: the first one missed.
	doc.Capacity = nil
	if got := loadtext.EndLines(doc, "o", tab)[legendLen]; got != "capacity: none: already 1 call at once misses the SLO" {
		t.Errorf("no capacity: %q", got)
	}
	// A star in the table is explained at its end.
	tab.Level("2", tableCase(t, "thin tails").levels[0])
	hasLine(t, loadtext.EndLines(doc, "o", tab), "  requests a p95 (100 a p99) is the largest value or near it, not the tail it names.")
}

func TestEndLinesSearch(t *testing.T) {
	doc := searchDoc()
	sameAs(t, "a decided search", loadtext.EndLines(doc, "o", &loadtext.Table{})[legendLen:], []string{
		"capacity: 4 calls at once (ttft_ms p95 700 ms [650, 760] (n=80)); at 8: ttft_ms p95 1500 ms [1300, inf] (n=40), 2 failed",
		"search: 1 held, 2 held, 4 held, 8 over-saturated, 4 held (round 2, 80 requests)",
		"artifacts in o: load.json, requests.jsonl, requests.csv, server.jsonl",
	})

	// Every level held up to --search-max.
	doc = searchDoc()
	doc.Levels = doc.Levels[:3]
	doc.Settings.SearchMax = 4
	doc.Capacity.Next, doc.Capacity.Search = nil, doc.Capacity.Search[:3]
	hasLine(t, loadtext.EndLines(doc, "o", &loadtext.Table{}),
		"capacity: 4 calls at once (ttft_ms p95 700 ms [650, 760] (n=80)); every level held up to --search-max 4",
		"search: 1 held, 2 held, 4 held")

	// No level held, the first over-saturated with a value none.
	doc = searchDoc()
	first := pooled(overSaturated(1), nil, f(900), nil, 40, 0, false, true)
	doc.Levels = []artifact.LoadLevel{first}
	doc.Capacity = &artifact.Capacity{Level: 0, Next: &artifact.CapacityNext{Level: 1}, Decided: doc.Capacity.Decided,
		Search: []artifact.SearchStep{{Level: 1, Round: 1, OverSaturated: true}}}
	doc.Settings.Mode = "rate"
	hasLine(t, loadtext.EndLines(doc, "o", &loadtext.Table{}),
		"capacity: none: already 1 calls/s misses: ttft_ms p95 none [900, inf] (n=40), over-saturated",
		"search: 1 over-saturated")
}

func TestEndLinesUndecided(t *testing.T) {
	no := false
	doc := searchDoc()
	doc.Levels[2] = pooled(level(4), f(780), f(700), f(850), 120, 0, true, false)
	doc.Levels[3] = pooled(missed(8, 820), f(820), f(760), f(900), 120, 0, false, false)
	doc.Settings.SLO = append(doc.Settings.SLO, artifact.SLO{Metric: "first_sentence_ms", Percentile: 50, LimitMs: 1500})
	doc.Capacity.Decided, doc.Capacity.Between = &no, []float64{4, 8}
	hasLine(t, loadtext.EndLines(doc, "o", &loadtext.Table{}),
		"capacity between 4 and 8 calls at once, undecided: at 4: ttft_ms p95 780 ms [700, 850] (n=120); at 8: ttft_ms p95 820 ms "+
			"[760, 900] (n=120) (limit 800 ms, 1500 ms; an interval still holds it after --search-budget 120 calls)")

	// Undecided at the largest level: nothing above it was tried.
	doc.Levels, doc.Capacity.Between, doc.Capacity.Next = doc.Levels[:3], []float64{4}, nil
	doc.Settings.SearchMax = 4
	hasLine(t, loadtext.EndLines(doc, "o", &loadtext.Table{}),
		"capacity undecided at 4 calls at once, the largest level (--search-max): at 4: ttft_ms p95 780 ms [700, 850] (n=120) "+
			"(limit 800 ms, 1500 ms; an interval still holds it after --search-budget 120 calls); nothing above it was tried: give a higher --search-max")
}

func TestEndLinesShard(t *testing.T) {
	doc := searchDoc()
	doc.Settings.SearchMax, doc.Capacity = 0, nil
	for _, c := range []struct {
		index int
		out   string
		want  []string
	}{
		{0, "runs/x/shard-0", []string{"artifacts in runs/x/shard-0: load.json, requests.jsonl, requests.csv, server.jsonl",
			"shard 0 of 2: these figures are over this shard's calls alone; once every shard has ended, `ttftlab merge runs/x --out runs/x/merged` gives the run's"}},
		{1, "shard-1", []string{"artifacts in shard-1: load.json, requests.jsonl, requests.csv",
			"shard 1 of 2: these figures are over this shard's calls alone; once every shard has ended, `ttftlab merge . --out ./merged` gives the run's"}},
		{1, "runs/x/", []string{"artifacts in runs/x/: load.json, requests.jsonl, requests.csv",
			"shard 1 of 2: these figures are over this shard's calls alone; once every shard has ended, `ttftlab merge . --out ./merged` gives the run's"}},
		{1, "/shard-1", []string{"artifacts in /shard-1: load.json, requests.jsonl, requests.csv",
			"shard 1 of 2: these figures are over this shard's calls alone; once every shard has ended, `ttftlab merge  --out /merged` gives the run's"}},
	} {
		doc.Settings.Shard = &artifact.LoadShard{Index: c.index, Count: 2}
		lines := loadtext.EndLines(doc, c.out, &loadtext.Table{})
		sameAs(t, c.out, lines[len(lines)-2:], c.want)
	}
}
