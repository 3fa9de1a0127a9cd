package load_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"ttftlab/internal/artifact"
	"ttftlab/internal/load"
	"ttftlab/internal/loadtext"
)

// The sweep's tests run Sweep on rows made up here (fakeRunner): each
// scenario's console and final load.json are held against testdata/sweep,
// what load.lua printed and wrote for the same rows when it still ran
// the sweep (recorded once, its calls.run and load_level fed these rows
// in the VM); each test also says in its own terms what it checks.

// hash is a fraction in [0, 1) fixed by its arguments: the made-up
// rows' noise.
func hash(level float64, round, i int) float64 {
	x := uint64(level*1000)*2654435761 ^ uint64(round)*40503 ^ uint64(i+1)*2246822519
	x ^= x >> 13
	x *= 0x9E3779B97F4A7C15
	x ^= x >> 29
	return float64(x%100000) / 100000
}

// t0 is the wall clock at a level's start when nothing fixes it: a whole
// number of ms.
const t0 = 1772366400000

// made is how a round's rows are made: the first sentence of call i
// (from 0), whether it failed, and the round's start on the wall clock.
type made struct {
	first  func(level float64, round, i int) float64
	failed func(level float64, round, i int) bool
	start  func(level float64, round int, due *float64) float64
	// calls, when set, is how many of the round's calls ran (an
	// over-saturated level ends early); over, whether the level's
	// over-saturation check found it (each request fed to it as it
	// ended).
	calls func(level float64, round, calls int) int
}

// result is a round's rows and extras as a runner gives them.
func (m made) result(set artifact.LoadSettings, rd load.Round) load.RoundResult {
	n := rd.Calls
	if m.calls != nil {
		n = m.calls(rd.Level, rd.Round, rd.Calls)
	}
	start := float64(t0)
	if m.start != nil {
		start = m.start(rd.Level, rd.Round, rd.DueUnixMs)
	}
	var rows []artifact.LoadRequest
	end := 0.0
	var over *load.OverSaturation
	if rd.OverSaturation != nil {
		over = &load.OverSaturation{SLO: *rd.OverSaturation}
	}
	for i := range n {
		fs := artifact.Ms(m.first(rd.Level, rd.Round, i))
		at := 25 * float64(i)
		r := artifact.LoadRequest{Level: rd.Level, Call: i + 1, Turn: 1, Request: artifact.Request{
			Index: i, Warmup: i < set.Warmup, StartMs: artifact.Ms(at + 0.125), RunMs: artifact.Ms(at + 1000),
			ScheduledMs: artifact.Ms(at), QueueMs: artifact.Ms(0.125 + 0.25*float64(i%3)),
			TTFTMs: artifact.Ms(*fs * 0.375), FirstSentenceMs: fs, TotalMs: artifact.Ms(*fs * 2), StallMs: artifact.Ms(1.5),
			Chunks: 12, PromptN: artifact.Num(100), CacheN: artifact.Num(float64(i % 2 * 64)), PredictedN: artifact.Num(12),
			T0UnixMs: artifact.Ms(start + at), GapsMs: []float64{1.25, *fs / 8, 3},
		}}
		if m.failed != nil && m.failed(rd.Level, rd.Round, i) {
			kind, msg := "http", "503 Service Unavailable: the server is busy"
			r.ErrorKind, r.Error, r.ErrorStatus = &kind, &msg, 503
			r.TTFTMs, r.FirstSentenceMs, r.StallMs, r.PredictedN, r.GapsMs, r.Chunks = nil, nil, nil, nil, nil, 0
			r.TotalMs = artifact.Ms(3.5)
		}
		end = max(end, *r.StartMs+*r.TotalMs)
		rows = append(rows, r)
		if over != nil && over.Ended(r) {
			break
		}
	}
	x := load.LevelExtras{StartedUnixMs: artifact.Ms(start), DurationMs: artifact.Ms(end + 0.5),
		Client: &artifact.ClientUse{Cores: 2, CPUMs: 42.5, Busy: 0.125, ReaderCPUMs: 3.25}}
	if over != nil {
		x.OverSaturated = over.Trend
	}
	return load.RoundResult{Rows: rows, Extras: x}
}

// scenario is one run: its settings and how its rows are made.
type scenario struct {
	name string
	set  artifact.LoadSettings
	made made
}

// settingsOf are a run's settings as `ttftlab load` gives them: 20 calls
// of one turn a level, the first sentence's p95 within 800 ms.
func settingsOf(mode string, levels ...float64) artifact.LoadSettings {
	return artifact.LoadSettings{Server: "http://127.0.0.1:8080", ServerKind: "llama.cpp", Mode: mode, Levels: levels, Calls: 20,
		Requests: 20, Turns: 1, MaxTokens: 64, Arrival: "constant", Seed: 1,
		SLO: []artifact.SLO{{Metric: "first_sentence_ms", Percentile: 95, LimitMs: 800, Text: "first_sentence_ms<=800@p95"}}, API: "chat"}
}

// linear is a first sentence of per ms a level, spread by spread ms.
func linear(per, spread float64) func(float64, int, int) float64 {
	return func(level float64, round, i int) float64 { return per*level + spread*hash(level, round, i) }
}

// searchSettings are a capacity search's settings: levels up to most,
// budget calls a level, the first sentence's p50 within limit.
func searchSettings(mode string, most, budget int, limit float64) artifact.LoadSettings {
	set := settingsOf(mode)
	set.Levels, set.SearchMax, set.SearchBudget = nil, most, budget
	set.SLO = []artifact.SLO{{Metric: "first_sentence_ms", Percentile: 50, LimitMs: limit, Text: fmt.Sprintf("first_sentence_ms<=%g@p50", limit)}}
	return set
}

func scenarios() []scenario {
	sweep := settingsOf("concurrency", 1, 2, 4, 8)
	sweep.Warmup = 2
	held := settingsOf("concurrency", 1, 2)
	held.SLO = append(held.SLO, artifact.SLO{Metric: "ttft_ms", Percentile: 50, LimitMs: 400, Text: "ttft_ms<=400@p50"})
	rate := settingsOf("rate", 1, 2, 4)
	rate.Calls, rate.Requests, rate.Arrival = 40, 40, "poisson"
	shard := settingsOf("concurrency", 2, 4, 8)
	shard.RunID, shard.Shard = "r1", &artifact.LoadShard{Index: 0, Count: 2, Host: "a"}
	shard.StartAtUnixMs, shard.DurationMs, shard.LevelGapMs, shard.WarmupMs = t0+0.25, 10000, 2500, 1000
	gap := shard
	gap.Shard = &artifact.LoadShard{Index: 1, Count: 2, Host: "b"}
	rateSearch := searchSettings("rate", 16, 40, 700)
	rateSearch.SearchStart = 2
	return []scenario{
		// 1, 2 held, 4 and 8 did not: the capacity is 2.
		{"sweep", sweep, made{first: linear(150, 100)}},
		{"every level held", held, made{first: linear(100, 50)}},
		{"none held", settingsOf("concurrency", 4, 8), made{first: linear(300, 50)}},
		// 2 fails every request: the sweep stops before 4.
		{"all failed", settingsOf("concurrency", 1, 2, 4), made{first: linear(100, 50),
			failed: func(level float64, _, _ int) bool { return level == 2 }}},
		// 2 holds every SLO but two requests fail; 4's lateness keeps
		// rising and it ends early, over-saturated.
		{"over-saturated", rate, made{
			first: func(level float64, round, i int) float64 {
				if level == 4 {
					return 100 + 40*float64(i) + 10*hash(level, round, i)
				}
				return 100*level + 50*hash(level, round, i)
			},
			failed: func(level float64, _, i int) bool { return level == 2 && i == 7 },
		}},
		// Doubling to 8, bisection to 6 and 7; 6 confirmed below, 7
		// above.
		{"search", searchSettings("concurrency", 16, 50, 642), made{first: linear(100, 60)}},
		// 6 and 7 stay in doubt after the budget: undecided between them.
		{"search undecided", searchSettings("concurrency", 16, 40, 650), made{first: func(level float64, round, i int) float64 {
			switch level {
			case 6:
				return 550 + 180*hash(level, round, i)
			case 7:
				return 580 + 180*hash(level, round, i)
			}
			return 100*level + 60*hash(level, round, i)
		}}},
		// Already 1 misses.
		{"search none held", searchSettings("concurrency", 8, 20, 650), made{first: linear(900, 50)}},
		// Every level up to 4 held.
		{"search every level held", searchSettings("concurrency", 4, 20, 650), made{first: linear(100, 50)}},
		// A search of rates from 2: 4 fails a request, 8 is over the limit.
		{"search of rates", rateSearch, made{first: linear(80, 40),
			failed: func(level float64, _, i int) bool { return level == 4 && i == 3 }}},
		// Shard 0 was ready late: its first level started 120 ms after
		// it was due, the second too (still catching up), the third on
		// time.
		{"shard late from start", shard, made{first: linear(50, 50), start: func(level float64, _ int, due *float64) float64 {
			return *due + map[float64]float64{2: 120.5, 4: 75, 8: 3}[level]
		}}},
		// Shard 1 started on time; its second level late (the first ran
		// past --level-gap), its third late too, but not from the start.
		{"shard level gap", gap, made{first: linear(50, 50), start: func(level float64, _ int, due *float64) float64 {
			return *due + map[float64]float64{2: 10, 4: 250, 8: 60}[level]
		}}},
	}
}

// fakeRunner runs rounds from made, and stops (its error) at a level's
// round with the rows made until then.
type fakeRunner struct {
	set    artifact.LoadSettings
	made   made
	rounds []load.Round
	// stopAt is the round (its place among the rounds run, from 1) the
	// runner stops in, keeping keep of its rows, with err.
	stopAt, keep int
	err          error
	// ttsCPUMs, when set, is the default speech engine's CPU over each
	// round, whose answers were spoken: 1 s of audio each.
	ttsCPUMs float64
	// sttCPUMs, when set, is the default speech-to-text engine's CPU over
	// each round, whose callers spoke: 2 s of audio each turn, mouth to
	// ear 1 s after the first sentence.
	sttCPUMs float64
}

func (f *fakeRunner) Run(ctx context.Context, rd load.Round) (load.RoundResult, error) {
	f.rounds = append(f.rounds, rd)
	res := f.made.result(f.set, rd)
	if f.ttsCPUMs > 0 {
		for i := range res.Rows {
			res.Rows[i].AudioMs = artifact.Ms(1000)
		}
		res.Extras.TTSCPUMs = &f.ttsCPUMs
	}
	if f.sttCPUMs > 0 {
		for i := range res.Rows {
			r := &res.Rows[i]
			r.CallerAudioMs = artifact.Ms(2000)
			if r.FirstSentenceMs != nil {
				r.MouthToEarMs = artifact.Ms(*r.FirstSentenceMs + 1000) // the caller spoke, the answer was heard
			}
		}
		res.Extras.STTCPUMs = &f.sttCPUMs
	}
	if len(f.rounds) == f.stopAt {
		res.Rows = res.Rows[:f.keep]
		res.Extras.OverSaturated = nil
		return res, f.err
	}
	return res, ctx.Err()
}

// saves keeps what Sweep saved, each as load.json would hold it.
type saves struct {
	docs []artifact.Load
	// failAt fails the n-th save (from 1) with err.
	failAt int
	err    error
}

func (s *saves) save(doc artifact.Load) error {
	// A copy through JSON: what was written then, not what the sweep
	// changes after.
	data, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	var kept artifact.Load
	if err := artifact.DecodeStrict(data, &kept); err != nil {
		return err
	}
	s.docs = append(s.docs, kept)
	if len(s.docs) == s.failAt {
		return s.err
	}
	return nil
}

// dir is the run's folder the console names.
const dir = "out/load"

// sweepOf runs a scenario's sweep with f and s.
func sweepOf(t *testing.T, sc scenario, f *fakeRunner, s *saves) (artifact.Load, string, error) {
	t.Helper()
	f.set, f.made = sc.set, sc.made
	doc := artifact.Load{Settings: sc.set, Model: &artifact.RunModel{}, Server: &artifact.RunServer{Args: []string{}}}
	var out bytes.Buffer
	got, err := load.Sweep(context.Background(), doc, f, s.save, &out, dir)
	return got, out.String(), err
}

// generic is a value as JSON has it, to compare records member by member.
func generic(t *testing.T, v any) any {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var g any
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	return g
}

// golden is testdata/sweep/NAME.txt or .json.
func golden(t *testing.T, name, ext string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "sweep", strings.ReplaceAll(name, " ", "_")+ext))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestSweepAsLoadLua: each scenario's console and load.json (levels,
// settings.levels, capacity with a search's path) are what load.lua
// printed and wrote for the same rows.
func TestSweepAsLoadLua(t *testing.T) {
	t.Parallel()
	for _, sc := range scenarios() {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			s := &saves{}
			doc, console, err := sweepOf(t, sc, &fakeRunner{}, s)
			if err != nil {
				t.Fatal(err)
			}
			if want := string(golden(t, sc.name, ".txt")); console != want {
				t.Errorf("console:\n%s\nwant (load.lua's):\n%s", console, want)
			}
			var want artifact.Load
			if err := artifact.DecodeStrict(golden(t, sc.name, ".json"), &want); err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				what      string
				got, want any
			}{
				{"levels", doc.Levels, want.Levels},
				{"settings.levels", doc.Settings.Levels, want.Settings.Levels},
				{"capacity", doc.Capacity, want.Capacity},
			} {
				if g, w := generic(t, c.got), generic(t, c.want); !reflect.DeepEqual(g, w) {
					gj, _ := json.MarshalIndent(g, "", " ")
					wj, _ := json.MarshalIndent(w, "", " ")
					t.Errorf("%s:\n%s\nwant (load.lua's):\n%s", c.what, gj, wj)
				}
			}
			if last := s.docs[len(s.docs)-1]; !reflect.DeepEqual(generic(t, last), generic(t, doc)) {
				t.Errorf("the last save is not the record Sweep returned")
			}
		})
	}
}

// scenario is the scenario of that name.
func scenarioOf(t *testing.T, name string) scenario {
	t.Helper()
	for _, sc := range scenarios() {
		if sc.name == name {
			return sc
		}
	}
	t.Fatalf("no scenario %q", name)
	return scenario{}
}

// levelsOf are the levels of records.
func levelsOf(levels []artifact.LoadLevel) []float64 {
	out := []float64{}
	for _, l := range levels {
		out = append(out, l.Level)
	}
	return out
}

// TestSweepRounds: what the runner is asked: each level of a sweep once,
// in order, K its place, the settings' calls; an open loop's rounds
// carry the first SLO for the over-saturation check, a closed loop's
// none; a search's further rounds of a level keep its K and get what
// the budget leaves (50 calls, 20 a round: 20, 20, 10).
func TestSweepRounds(t *testing.T) {
	t.Parallel()
	type want struct {
		level       float64
		k, round, n int
	}
	for _, c := range []struct {
		name string
		want []want
		rate bool
	}{
		{"sweep", []want{{1, 0, 1, 20}, {2, 1, 1, 20}, {4, 2, 1, 20}, {8, 3, 1, 20}}, false},
		{"over-saturated", []want{{1, 0, 1, 40}, {2, 1, 1, 40}, {4, 2, 1, 40}}, true},
		{"search", []want{{1, 0, 1, 20}, {2, 1, 1, 20}, {4, 2, 1, 20}, {8, 3, 1, 20}, {6, 4, 1, 20}, {7, 5, 1, 20}, {6, 4, 2, 20},
			{6, 4, 3, 10}}, false},
	} {
		f := &fakeRunner{}
		if _, _, err := sweepOf(t, scenarioOf(t, c.name), f, &saves{}); err != nil {
			t.Fatal(err)
		}
		var got []want
		for _, rd := range f.rounds {
			got = append(got, want{rd.Level, rd.K, rd.Round, rd.Calls})
			if rd.DueUnixMs != nil {
				t.Errorf("%s: an unsharded round is due at %v", c.name, *rd.DueUnixMs)
			}
			if (rd.OverSaturation != nil) != c.rate || c.rate && *rd.OverSaturation != scenarioOf(t, c.name).set.SLO[0] {
				t.Errorf("%s: round %+v checks over-saturation %+v", c.name, got[len(got)-1], rd.OverSaturation)
			}
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: rounds %v, want %v", c.name, got, c.want)
		}
	}
}

// TestSweepSaves: what save receives: first the record with no level and
// no capacity (a search's settings.levels empty), then after each round
// the levels so far (a search's with each level's pooled verdict over
// its rounds so far, its settings.levels in the order it first ran
// them), the capacity null until the last save, which has it, a
// search's levels sorted.
func TestSweepSaves(t *testing.T) {
	t.Parallel()
	t.Run("sweep", func(t *testing.T) {
		t.Parallel()
		s := &saves{}
		doc, _, err := sweepOf(t, scenarioOf(t, "sweep"), &fakeRunner{}, s)
		if err != nil {
			t.Fatal(err)
		}
		if len(s.docs) != 1+4+1 {
			t.Fatalf("%d saves, want 6", len(s.docs))
		}
		for i, d := range s.docs[:5] {
			if len(d.Levels) != i || d.Capacity != nil || !reflect.DeepEqual(d.Settings.Levels, []float64{1, 2, 4, 8}) {
				t.Errorf("save %d: levels %v, capacity %+v, settings.levels %v", i+1, levelsOf(d.Levels), d.Capacity, d.Settings.Levels)
			}
		}
		if c := doc.Capacity; c == nil || c.Level != 4 || c.Next == nil || c.Next.Level != 8 || c.Search != nil || c.Decided != nil {
			t.Errorf("capacity %+v, want 4 with 8 next", c)
		}
	})
	t.Run("search", func(t *testing.T) {
		t.Parallel()
		s := &saves{}
		doc, _, err := sweepOf(t, scenarioOf(t, "search"), &fakeRunner{}, s)
		if err != nil {
			t.Fatal(err)
		}
		if len(s.docs) != 1+8+1 {
			t.Fatalf("%d saves, want 10", len(s.docs))
		}
		if first := s.docs[0]; first.Settings.Levels == nil || len(first.Settings.Levels) != 0 || len(first.Levels) != 0 {
			t.Errorf("the first save: settings.levels %v, levels %v", first.Settings.Levels, levelsOf(first.Levels))
		}
		run := []float64{1, 2, 4, 8, 6, 7, 7, 7}
		for i, d := range s.docs[1:9] {
			n := min(i+1, 6)
			if d.Capacity != nil || !reflect.DeepEqual(d.Settings.Levels, run[:n]) || !reflect.DeepEqual(levelsOf(d.Levels), run[:n]) {
				t.Errorf("save %d: levels %v, settings.levels %v, capacity %+v", i+2, levelsOf(d.Levels), d.Settings.Levels, d.Capacity)
				continue
			}
			for _, l := range d.Levels {
				if l.Pooled == nil {
					t.Errorf("save %d: level %g has no pooled verdict", i+2, l.Level)
				}
			}
		}
		// Level 6 (the fifth level) pooled over its rounds so far.
		for i, rounds := range map[int]int{5: 1, 6: 1, 7: 2, 8: 3} {
			if p := s.docs[i].Levels[4].Pooled; p.Rounds != rounds || p.Calls != min(20*rounds, 50) {
				t.Errorf("save %d: level 6 pooled over %d rounds, %d calls; want %d rounds", i+1, p.Rounds, p.Calls, rounds)
			}
		}
		if got := levelsOf(doc.Levels); !reflect.DeepEqual(got, []float64{1, 2, 4, 6, 7, 8}) {
			t.Errorf("levels %v, want sorted", got)
		}
		if !reflect.DeepEqual(doc.Settings.Levels, []float64{1, 2, 4, 8, 6, 7}) {
			t.Errorf("settings.levels %v, want the order the search ran them", doc.Settings.Levels)
		}
		c := doc.Capacity
		if c == nil || c.Level != 6 || c.Next == nil || c.Next.Level != 7 || c.Decided == nil || !*c.Decided || c.Between != nil ||
			len(c.Search) != 8 {
			t.Fatalf("capacity %+v, want 6 decided, 7 next, 8 steps", c)
		}
		last := c.Search[7]
		if last.Level != 6 || last.Round != 3 || last.Calls != 10 || last.Requests != 50 || last.Side != "below" || !last.Met ||
			last.ValueMs == nil || last.CIMs == nil || last.CIMs[1] == nil || *last.CIMs[1] > 642 {
			t.Errorf("last step %+v, want 6's third round of 10 calls, below the limit over 50 requests", last)
		}
		if p := doc.Levels[3].Pooled; p.Rounds != 3 || p.Calls != 50 || !p.Decided || !p.Met || p.SLO[0].Side != "below" ||
			doc.Levels[3].Summary.Requests != 20 {
			t.Errorf("level 6: pooled %+v, summary of %d requests; want 3 rounds pooled, the first round's summary",
				p, doc.Levels[3].Summary.Requests)
		}
	})
	for _, c := range []struct {
		name     string
		capacity float64
		next     float64
		decided  bool
		between  []float64
		lastLine string
	}{
		{"search undecided", 5, 6, false, []float64{5, 6}, "capacity between 5 and 6 calls at once, undecided: "},
		{"search none held", 0, 1, true, nil, "capacity: none: already 1 call at once misses: "},
		{"search every level held", 4, 0, true, nil, "; every level held up to --search-max 4"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			doc, console, err := sweepOf(t, scenarioOf(t, c.name), &fakeRunner{}, &saves{})
			if err != nil {
				t.Fatal(err)
			}
			cp := doc.Capacity
			next := 0.0
			if cp.Next != nil {
				next = cp.Next.Level
			}
			if cp.Level != c.capacity || next != c.next || *cp.Decided != c.decided || !reflect.DeepEqual(cp.Between, c.between) {
				t.Errorf("capacity %+v, want %g with %g next, decided %v, between %v", cp, c.capacity, c.next, c.decided, c.between)
			}
			if !strings.Contains(console, c.lastLine) {
				t.Errorf("console lacks %q:\n%s", c.lastLine, console)
			}
		})
	}
}

// TestSweepStopsWhereEveryRequestFailed: a level where every request
// failed ends a sweep after its lines; the capacity is the level below.
func TestSweepStopsWhereEveryRequestFailed(t *testing.T) {
	t.Parallel()
	f := &fakeRunner{}
	doc, console, err := sweepOf(t, scenarioOf(t, "all failed"), f, &saves{})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.rounds) != 2 || !reflect.DeepEqual(levelsOf(doc.Levels), []float64{1, 2}) {
		t.Errorf("ran %d rounds, levels %v: want 1 and 2, not 4", len(f.rounds), levelsOf(doc.Levels))
	}
	if !strings.Contains(console, "e.g. 503 Service Unavailable: the server is busy\n  every request at this level failed: the sweep stops here\n") {
		t.Errorf("the stop is not said after level 2's lines:\n%s", console)
	}
	if c := doc.Capacity; c == nil || c.Level != 1 || c.Next == nil || c.Next.Level != 2 {
		t.Errorf("capacity %+v, want 1 with 2 next", c)
	}
}

// TestSweepOverSaturated: an open loop's level that its over-saturation
// check ended keeps the trend, does not hold, and says after its lines
// how many of its calls had ended.
func TestSweepOverSaturated(t *testing.T) {
	t.Parallel()
	doc, console, err := sweepOf(t, scenarioOf(t, "over-saturated"), &fakeRunner{}, &saves{})
	if err != nil {
		t.Fatal(err)
	}
	l := doc.Levels[2]
	if l.OverSaturated == nil || !l.OverSaturated.Rising || l.SLOMet || l.SLO[0].Met != true {
		t.Fatalf("level 4: over_saturated %+v, slo_met %v: want over-saturated, missed though its SLO held", l.OverSaturated, l.SLOMet)
	}
	if !strings.Contains(console, "; no new call started after 18 of 40 had ended\n") {
		t.Errorf("the over-saturation line is missing:\n%s", console)
	}
	if doc.Levels[1].SLOMet || doc.Levels[1].Summary.Failed != 1 || doc.Capacity.Level != 1 {
		t.Errorf("level 2 with a failed request held, or the capacity %+v is not 1", doc.Capacity)
	}
}

// TestSweepSearchOverSaturated: in a search of rates, a rate whose
// lateness keeps rising ends early over-saturated: its step says so and
// misses though its SLO's value held, as its level's record does, and
// the capacity stays below it.
func TestSweepSearchOverSaturated(t *testing.T) {
	t.Parallel()
	sc := scenarioOf(t, "search of rates")
	sc.made = made{first: func(level float64, round, i int) float64 {
		if level >= 8 {
			return 100 + 20*float64(i) + 10*hash(level, round, i)
		}
		return 40*level + 40*hash(level, round, i)
	}}
	doc, _, err := sweepOf(t, sc, &fakeRunner{}, &saves{})
	if err != nil {
		t.Fatal(err)
	}
	over := map[float64]bool{}
	for _, l := range doc.Levels {
		over[l.Level] = l.OverSaturated != nil
	}
	c, seen := doc.Capacity, 0
	for _, st := range c.Search {
		if st.OverSaturated != over[st.Level] {
			t.Errorf("step %+v: over-saturated %v, its level's record says %v", st, st.OverSaturated, over[st.Level])
		}
		if st.OverSaturated {
			seen++
			if st.Met || st.Level <= c.Level {
				t.Errorf("step %+v held, or is not above the capacity %g", st, c.Level)
			}
		}
	}
	if seen == 0 || c.Level < 4 {
		t.Errorf("capacity %+v: want 4 or more, and a rate above it over-saturated", c)
	}
}

// TestSweepSearchUndecidedAtTheTop: a search whose every level up to
// --search-max holds but whose 4 requests a level cannot bound a p50
// records the capacity undecided at the largest level, between holding
// it alone, and says so on the console.
func TestSweepSearchUndecidedAtTheTop(t *testing.T) {
	t.Parallel()
	set := searchSettings("concurrency", 2, 4, 60000)
	set.Calls, set.Requests = 4, 4
	doc, console, err := sweepOf(t, scenario{"undecided at the top", set, made{first: linear(100, 50)}}, &fakeRunner{}, &saves{})
	if err != nil {
		t.Fatal(err)
	}
	c := doc.Capacity
	if c == nil || c.Level != 2 || c.Decided == nil || *c.Decided || !reflect.DeepEqual(c.Between, []float64{2}) || c.Next != nil {
		t.Fatalf("capacity %+v: want undecided at 2, between [2]", c)
	}
	if !strings.Contains(console, "capacity undecided at 2 calls at once, the largest level (--search-max): at 2: first_sentence_ms p50 ") ||
		strings.Contains(console, "and ?") {
		t.Errorf("the console does not say the capacity is undecided at the largest level:\n%s", console)
	}
}

// TestSweepShardDueTimes: a shard's level k is due at --start-at plus k
// times (--duration + --level-gap), said before it runs; a level that
// started over 50 ms late says why: the first because the shard was
// ready late, a later one because the levels before it still caught up
// (the first was late, and each since), else because the level before
// ran past --level-gap.
func TestSweepShardDueTimes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		late []string
	}{
		{"shard late from start", []string{
			"level 2 due at 2026-03-01 12:00:00.000 UTC\n  started 120 ms after it was due: the shard was ready only after --start-at;",
			"level 4 due at 2026-03-01 12:00:12.500 UTC\n  started 75 ms after it was due: the levels before it started late, the first because",
			"level 8 due at 2026-03-01 12:00:25.000 UTC\n8 ",
		}},
		{"shard level gap", []string{
			"level 2 due at 2026-03-01 12:00:00.000 UTC\n2 ",
			"level 4 due at 2026-03-01 12:00:12.500 UTC\n  started 250 ms after it was due: the level before ran past --level-gap;",
			"level 8 due at 2026-03-01 12:00:25.000 UTC\n  started 60 ms after it was due: the level before ran past --level-gap;",
		}},
	} {
		f := &fakeRunner{}
		doc, console, err := sweepOf(t, scenarioOf(t, c.name), f, &saves{})
		if err != nil {
			t.Fatal(err)
		}
		for k, rd := range f.rounds {
			want := t0 + 0.25 + float64(k)*12500
			if rd.DueUnixMs == nil || *rd.DueUnixMs != want || doc.Levels[k].DueUnixMs == nil || *doc.Levels[k].DueUnixMs != want {
				t.Errorf("%s: level %g due at %v (record %v), want %v", c.name, rd.Level, rd.DueUnixMs, doc.Levels[k].DueUnixMs, want)
			}
		}
		for _, l := range c.late {
			if !strings.Contains(console, l) {
				t.Errorf("%s: console lacks %q:\n%s", c.name, l, console)
			}
		}
	}
}

// errFull is a file that could not be written.
var errFull = errors.New("writing out/load/requests.csv: no space left on device")

// lines are console lines as printed.
func lines(ls []string) string { return strings.Join(ls, "\n") + "\n" }

// TestSweepStopped: a stop (ctx's error, or a file the runner could not
// write) ends the sweep in the round it was in: the rows it kept become
// that level's record marked interrupted, printed as a stopped level is;
// the capacity is the levels'; the record saved is the one returned,
// with the runner's error. A stop with no row of the level adds none; a
// stop in a search's further round of a level adds none either (the
// level has its record), and a search's levels are sorted, the stopped
// one in settings.levels too.
func TestSweepStopped(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name         string
		scenario     string
		stopAt, keep int
		err          error
		levels       []float64
		setLevels    []float64
		interrupted  float64 // 0: none
		capacity     float64
	}{
		{"mid-level", "sweep", 2, 7, context.Canceled, []float64{1, 2}, []float64{1, 2, 4, 8}, 2, 1},
		{"a file that could not be written", "sweep", 3, 12, errFull, []float64{1, 2, 4}, []float64{1, 2, 4, 8}, 4, 2},
		{"before the level's first row", "sweep", 2, 0, context.Canceled, []float64{1}, []float64{1, 2, 4, 8}, 0, 1},
		{"a search's new level", "search", 5, 10, context.Canceled, []float64{1, 2, 4, 6, 8}, []float64{1, 2, 4, 8, 6}, 6, 4},
		{"a search's further round", "search", 7, 10, context.Canceled, []float64{1, 2, 4, 6, 7, 8}, []float64{1, 2, 4, 8, 6, 7}, 0, 6},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f, s := &fakeRunner{stopAt: c.stopAt, keep: c.keep, err: c.err}, &saves{}
			doc, console, err := sweepOf(t, scenarioOf(t, c.scenario), f, s)
			if !errors.Is(err, c.err) {
				t.Fatalf("error %v, want %v", err, c.err)
			}
			if len(f.rounds) != c.stopAt {
				t.Errorf("%d rounds ran, want %d", len(f.rounds), c.stopAt)
			}
			if got := levelsOf(doc.Levels); !reflect.DeepEqual(got, c.levels) || !reflect.DeepEqual(doc.Settings.Levels, c.setLevels) {
				t.Errorf("levels %v, settings.levels %v; want %v, %v", got, doc.Settings.Levels, c.levels, c.setLevels)
			}
			var stopped *artifact.LoadLevel
			for i, l := range doc.Levels {
				if l.Interrupted {
					if l.Level != c.interrupted || stopped != nil {
						t.Errorf("level %g interrupted, want %g alone", l.Level, c.interrupted)
					}
					stopped = &doc.Levels[i]
				}
			}
			switch {
			case c.interrupted == 0:
				if strings.Contains(console, "interrupted") {
					t.Errorf("a level is printed as interrupted:\n%s", console)
				}
			case stopped == nil:
				t.Errorf("no level is interrupted")
			default:
				if want := c.keep - scenarioOf(t, c.scenario).set.Warmup; stopped.Summary.Requests != want || stopped.SLOMet {
					t.Errorf("the stopped level counts %d requests (slo_met %v), want %d, not held", stopped.Summary.Requests, stopped.SLOMet, want)
				}
				if want := lines(loadtext.InterruptedLines(doc.Settings, *stopped)); !strings.HasSuffix(console, want) {
					t.Errorf("console does not end with the stopped level:\n%s\nwant its end:\n%s", console, want)
				}
			}
			if cp := doc.Capacity; cp == nil || cp.Level != c.capacity || cp.Search != nil {
				t.Errorf("capacity %+v, want %g", cp, c.capacity)
			}
			if strings.Contains(console, "capacity") || strings.Contains(console, "artifacts in") {
				t.Errorf("a stopped run printed its end:\n%s", console)
			}
			if last := s.docs[len(s.docs)-1]; !reflect.DeepEqual(generic(t, last), generic(t, doc)) {
				t.Errorf("the last save is not the record returned")
			}
		})
	}
	t.Run("ctx done before", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		sc := scenarioOf(t, "sweep")
		f, s := &fakeRunner{set: sc.set, made: sc.made}, &saves{}
		var out bytes.Buffer
		doc, err := load.Sweep(ctx, artifact.Load{Settings: sc.set}, f, s.save, &out, dir)
		if !errors.Is(err, context.Canceled) || len(f.rounds) != 0 || len(doc.Levels) != 0 || doc.Capacity != nil || len(s.docs) != 2 {
			t.Errorf("error %v, %d rounds, levels %v, capacity %+v, %d saves; want canceled, none, none, null, 2",
				err, len(f.rounds), levelsOf(doc.Levels), doc.Capacity, len(s.docs))
		}
	})
}

// TestSweepSaveFails: a save that fails ends the sweep with its error: a
// failed first save before anything is printed or run; a later one after
// the round's level lines (the console is then their only record) and
// the legend, no other round run; the last one after the whole end. A
// stop whose save fails too returns both errors and still prints the
// stopped level.
func TestSweepSaveFails(t *testing.T) {
	t.Parallel()
	sc := scenarioOf(t, "sweep")
	full := errors.New("writing out/load/load.json: no space left on device")
	for _, c := range []struct {
		name         string
		failAt       int
		rounds       int
		stopAt, keep int
		ends         string // the console's last line
	}{
		{"the first", 1, 0, 0, 0, ""},
		{"after level 2", 3, 2, 0, 0, "  requests a p95 (100 a p99) is the largest value or near it, not the tail it names."},
		{"the last", 6, 4, 0, 0, "artifacts in out/load: load.json, requests.jsonl, requests.csv, server.jsonl"},
		{"a stop's", 3, 2, 2, 10, "  requests a p95 (100 a p99) is the largest value or near it, not the tail it names."},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := &fakeRunner{stopAt: c.stopAt, keep: c.keep, err: errFull}
			doc, console, err := sweepOf(t, sc, f, &saves{failAt: c.failAt, err: full})
			if !errors.Is(err, full) || c.stopAt > 0 && !errors.Is(err, errFull) {
				t.Errorf("error %v, want the save's (and the runner's)", err)
			}
			if len(f.rounds) != c.rounds {
				t.Errorf("%d rounds ran, want %d", len(f.rounds), c.rounds)
			}
			if c.failAt == 1 {
				if console != "" {
					t.Errorf("printed after a failed first save:\n%s", console)
				}
				return
			}
			if !strings.HasSuffix(console, "\n"+c.ends+"\n") {
				t.Errorf("console does not end with %q:\n%s", c.ends, console)
			}
			// Level 2's row is on the console, held or stopped.
			row := (&loadtext.Table{}).Level("2", doc.Levels[1])[0]
			verdict := "met"
			if c.stopAt > 0 {
				verdict = "interrupted"
			}
			if !strings.Contains(console, "\n"+row+"\n") || !strings.HasSuffix(row, "  "+verdict) {
				t.Errorf("level 2's row (%s) is not on the console:\n%s", verdict, console)
			}
		})
	}
}

// TestSweepSpeechEngine: with answers spoken by the engine the settings
// name (--tts default), each level says what speaking cost per second of
// audio; with another speech server (no engine) it does not.
func TestSweepSpeechEngine(t *testing.T) {
	t.Parallel()
	for _, engine := range []string{"espeak-ng", ""} {
		sc := scenarioOf(t, "every level held")
		sc.set.TTS = &artifact.AudioTTS{URL: "http://127.0.0.1:5002", Engine: engine}
		doc, console, err := sweepOf(t, sc, &fakeRunner{ttsCPUMs: 300}, &saves{})
		if err != nil {
			t.Fatal(err)
		}
		// 300 ms of CPU over 20 s of audio.
		if l := doc.Levels[0]; l.TTSCPUMsPerAudioS == nil || *l.TTSCPUMsPerAudioS != 15 {
			t.Errorf("engine %q: tts_cpu_ms_per_audio_s %v, want 15", engine, l.TTSCPUMsPerAudioS)
		}
		line := "  speech: espeak-ng used 15.0 ms of CPU per second of audio (on this machine, beside the client)\n"
		if got := strings.Count(console, line); engine != "" && got != 2 || engine == "" && strings.Contains(console, "speech:") {
			t.Errorf("engine %q: %d speech lines:\n%s", engine, got, console)
		}
	}
}

// TestSweepSpeechToTextEngine: with turns spoken to the engine the
// settings name (--stt default), each level says what transcribing cost
// per second of the callers' audio, beside the speech engine's line; with
// another speech-to-text server (no engine) it does not.
func TestSweepSpeechToTextEngine(t *testing.T) {
	t.Parallel()
	for _, engine := range []string{"pocketsphinx 5.1.1", ""} {
		sc := scenarioOf(t, "every level held")
		sc.set.STT = &artifact.LoadSTT{URL: "http://127.0.0.1:5003", API: "openai", Engine: engine}
		doc, console, err := sweepOf(t, sc, &fakeRunner{sttCPUMs: 600}, &saves{})
		if err != nil {
			t.Fatal(err)
		}
		// 600 ms of CPU over 40 s of the callers' audio.
		if l := doc.Levels[0]; l.STTCPUMsPerAudioS == nil || *l.STTCPUMsPerAudioS != 15 {
			t.Errorf("engine %q: stt_cpu_ms_per_audio_s %v, want 15", engine, l.STTCPUMsPerAudioS)
		}
		line := "  speech-to-text: pocketsphinx 5.1.1 used 15.0 ms of CPU per second of the callers' audio (on this machine, beside the client)\n"
		if got := strings.Count(console, line); engine != "" && got != 2 || engine == "" && strings.Contains(console, "speech-to-text:") {
			t.Errorf("engine %q: %d speech-to-text lines:\n%s", engine, got, console)
		}
	}
}

// TestSearchOnMouthToEar: a capacity search whose SLO is on mouth to ear
// (load --stt) finds the level the same search on the first sentence
// finds when every turn's mouth to ear is its first sentence plus 1 s and
// the limit is too: the search's values are the rows' mouth_to_ear_ms
// (to the microsecond each side).
func TestSearchOnMouthToEar(t *testing.T) {
	t.Parallel()
	sc := scenarioOf(t, "search")
	want, _, err := sweepOf(t, sc, &fakeRunner{sttCPUMs: 100}, &saves{})
	if err != nil {
		t.Fatal(err)
	}
	slo := sc.set.SLO[0]
	sc.set.SLO = []artifact.SLO{{Metric: "mouth_to_ear_ms", Percentile: slo.Percentile, LimitMs: slo.LimitMs + 1000,
		Text: fmt.Sprintf("mouth_to_ear_ms<=%g@p%g", slo.LimitMs+1000, slo.Percentile)}}
	got, _, err := sweepOf(t, sc, &fakeRunner{sttCPUMs: 100}, &saves{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Capacity == nil || want.Capacity == nil || got.Capacity.Level != want.Capacity.Level || len(got.Capacity.Search) != len(want.Capacity.Search) {
		t.Fatalf("capacity %+v, want %+v", got.Capacity, want.Capacity)
	}
	for i, st := range got.Capacity.Search {
		w := want.Capacity.Search[i]
		if st.Level != w.Level || st.Met != w.Met || (st.ValueMs == nil) != (w.ValueMs == nil) || st.ValueMs != nil && math.Abs(*st.ValueMs-(*w.ValueMs+1000)) > 0.002 {
			t.Errorf("step %d: %+v, want %+v with its value 1000 ms later", i, st, w)
		}
	}
	if v := got.Levels[0].SLO[0]; v.Metric != "mouth_to_ear_ms" || v.ValueMs == nil {
		t.Errorf("level %g: SLO %+v", got.Levels[0].Level, v)
	}
}

// TestSweepTrace: a trace's replay (mode "trace") is one level, its speed,
// in one round of settings.calls (no search, no further rounds, whatever
// else the settings say), with its SLO verdicts and no capacity, neither
// calls at once nor a rate; also when stopped in it. Settings of more
// than one level are refused.
func TestSweepTrace(t *testing.T) {
	t.Parallel()
	set := settingsOf("trace", 2)
	set.Calls, set.Requests = 17, 17
	set.SearchMax, set.UntilDecided = 8, &artifact.UntilDecided{BudgetRequests: 1000}
	sc := scenario{name: "trace", set: set, made: made{first: linear(100, 50)}}
	f := &fakeRunner{}
	s := &saves{}
	doc, _, err := sweepOf(t, sc, f, s)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.rounds) != 1 || f.rounds[0].Level != 2 || f.rounds[0].Round != 1 || f.rounds[0].Calls != 17 || f.rounds[0].OverSaturation != nil {
		t.Fatalf("rounds %+v, want one of level 2 (the speed), 17 calls", f.rounds)
	}
	if len(doc.Levels) != 1 || doc.Capacity != nil || !reflect.DeepEqual(doc.Settings.Levels, []float64{2}) {
		t.Fatalf("levels %v (settings %v), capacity %+v: want level 2 and no capacity", levelsOf(doc.Levels), doc.Settings.Levels, doc.Capacity)
	}
	l := doc.Levels[0]
	if l.Summary.Requests != 17 || len(l.SLO) != 1 || !l.SLO[0].Met || !l.SLOMet || l.Concurrency != nil || l.Rate != nil || l.Pooled != nil || l.Decision != nil {
		t.Errorf("the trace's level: %+v", l)
	}
	if last := s.docs[len(s.docs)-1]; len(last.Levels) != 1 || last.Capacity != nil {
		t.Errorf("saved %d levels, capacity %+v", len(last.Levels), last.Capacity)
	}

	stopped, _, err := sweepOf(t, sc, &fakeRunner{stopAt: 1, keep: 5, err: context.Canceled}, &saves{})
	if !errors.Is(err, context.Canceled) || len(stopped.Levels) != 1 || !stopped.Levels[0].Interrupted || stopped.Capacity != nil {
		t.Errorf("stopped: %v, levels %+v, capacity %+v", err, stopped.Levels, stopped.Capacity)
	}

	sc.set.Levels = []float64{1, 2}
	if _, _, err := sweepOf(t, sc, &fakeRunner{}, &saves{}); err == nil {
		t.Error("a trace of two levels was run")
	}
}
