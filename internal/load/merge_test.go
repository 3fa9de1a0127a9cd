package load

import (
	"math"
	"reflect"
	"sort"
	"strings"
	"testing"

	"ttftlab/internal/artifact"
	"ttftlab/internal/interval"
)

// shardsOf splits rows by call into n shard folders of run id, as
// `ttftlab load --shard I/N` writes them: call c to shard (c-1) mod n,
// each level's record over the shard's own rows, shard i's level
// starting i x 2 ms after the level was due.
func shardsOf(set artifact.LoadSettings, rows []artifact.LoadRequest, n int, id string) []ShardFolder {
	out := make([]ShardFolder, n)
	for i := range out {
		s := set
		s.RunID = id
		s.Shard = &artifact.LoadShard{Index: i, Count: n, Host: "pod-" + string(rune('a'+i))}
		out[i] = ShardFolder{Name: "shard-" + string(rune('0'+i)), Doc: artifact.Load{Settings: s, Levels: []artifact.LoadLevel{}}}
	}
	for _, r := range rows {
		i := (r.Call - 1) % n
		k := i
		r.Shard, r.Host, r.RunID = &k, out[i].Doc.Settings.Shard.Host, id
		out[i].Rows = append(out[i].Rows, r)
	}
	for i := range out {
		for li, level := range set.Levels {
			var mine []artifact.LoadRequest
			for _, r := range out[i].Rows {
				if r.Level == level {
					mine = append(mine, r)
				}
			}
			due := 1.7e12 + float64(li)*60000
			l := Level(out[i].Doc.Settings, level, mine, LevelExtras{DueUnixMs: &due, StartedUnixMs: artifact.Ms(due + 2*float64(i))})
			out[i].Doc.Levels = append(out[i].Doc.Levels, l)
		}
	}
	return out
}

// testRows are two levels of calls of two turns: ttft and first sentence
// growing with the call, call 5 of level 2 failed in its second turn, a
// first turn of each level warm-up.
func testRows() (artifact.LoadSettings, []artifact.LoadRequest) {
	set := artifact.LoadSettings{Mode: "concurrency", Levels: []float64{1, 2}, Turns: 2, Calls: 6, Requests: 12,
		SLO: []artifact.SLO{{Metric: "first_sentence_ms", Percentile: 95, LimitMs: 900, Text: "first_sentence_ms<=900@p95"}}}
	var rows []artifact.LoadRequest
	for _, level := range set.Levels {
		for call := 1; call <= 6; call++ {
			for turn := 1; turn <= 2; turn++ {
				kind := ""
				if level == 2 && call == 5 && turn == 2 {
					kind = "timeout"
				}
				r := row(level, call, turn, 10*level+float64(call*turn), 100*level+float64(7*call+turn), 300+float64(call), kind)
				r.Index = (call-1)*2 + turn - 1
				r.Warmup = call == 1 && turn == 1
				t0 := 1.7e12 + (level-1)*60000 + *r.StartMs
				r.T0UnixMs = &t0
				rows = append(rows, r)
			}
		}
	}
	return set, rows
}

// TestMergeRecomputesFromTheUnion: the merge of three shards has every
// level, each summary's percentiles equal to those of the concatenated
// rows computed here (warm-up left out), the SLO verdict over the union
// (a failed request infinitely late), each shard's requests and start,
// and the start spread.
func TestMergeRecomputesFromTheUnion(t *testing.T) {
	t.Parallel()
	set, rows := testRows()
	shards := shardsOf(set, rows, 3, "R1")
	// Given out of order: the merge puts them in shard order.
	shards[0], shards[2] = shards[2], shards[0]
	m, err := Merge(shards)
	if err != nil {
		t.Fatal(err)
	}
	if m.Order[0] != 2 || m.Order[2] != 0 {
		t.Errorf("order %v", m.Order)
	}
	doc := m.Doc
	if doc.Settings.Shard != nil || doc.Settings.Shards != 3 || doc.Settings.RunID != "R1" || len(doc.Levels) != 2 {
		t.Fatalf("settings %+v, %d levels", doc.Settings, len(doc.Levels))
	}
	for _, l := range doc.Levels {
		var ttft, first []float64
		requests, failed := 0, 0
		for _, r := range rows {
			if r.Level != l.Level || r.Warmup {
				continue
			}
			requests++
			if r.ErrorKind != nil {
				failed++
			}
			if r.TTFTMs != nil {
				ttft = append(ttft, *r.TTFTMs)
			}
			if r.FirstSentenceMs != nil {
				first = append(first, *r.FirstSentenceMs)
			}
		}
		sort.Float64s(ttft)
		sort.Float64s(first)
		s := l.Summary
		if s.Requests != requests || s.Failed != failed || s.Calls != 6 || s.TTFTMs.N != len(ttft) || s.FirstSentenceMs.N != len(first) {
			t.Errorf("level %g: %+v", l.Level, s)
		}
		for _, p := range []float64{50, 95, 99} {
			got := map[float64][2]*float64{50: {s.TTFTMs.P50, s.FirstSentenceMs.P50}, 95: {s.TTFTMs.P95, s.FirstSentenceMs.P95},
				99: {s.TTFTMs.P99, s.FirstSentenceMs.P99}}[p]
			if *got[0] != interval.PercentileOf(ttft, p) || *got[1] != interval.PercentileOf(first, p) {
				t.Errorf("level %g p%g: ttft %v first %v, want %v %v", l.Level, p, *got[0], *got[1],
					interval.PercentileOf(ttft, p), interval.PercentileOf(first, p))
			}
		}
		// The p95 of the first sentence with the failed request above
		// every value: rank 1 + (n-1) x 0.95 of n values, one late.
		v := l.SLO[0]
		n := len(first) + failed
		h := 1 + float64(n-1)*0.95
		lo := int(math.Floor(h))
		var want *float64
		if lo+1 <= len(first) {
			x := first[lo-1] + (h-float64(lo))*(first[lo]-first[lo-1])
			want = &x
		}
		if v.N != requests || v.Failed != failed || (want == nil) != (v.ValueMs == nil) || want != nil && math.Abs(*want-*v.ValueMs) > 1e-9 {
			t.Errorf("level %g SLO %+v, want value %v", l.Level, v, want)
		}
		if l.SLOMet != (failed == 0 && v.Met) {
			t.Errorf("level %g slo_met %v", l.Level, l.SLOMet)
		}
		if len(l.Shards) != 3 || l.StartSpreadMs == nil || *l.StartSpreadMs != 4 {
			t.Errorf("level %g shards %+v spread %v", l.Level, l.Shards, l.StartSpreadMs)
		}
		sum := 0
		for i, sh := range l.Shards {
			sum += sh.Requests
			if sh.Shard != i || sh.StartedUnixMs == nil || *sh.StartedUnixMs != *l.DueUnixMs+2*float64(i) {
				t.Errorf("level %g shard %+v", l.Level, sh)
			}
		}
		if sum != requests || s.StartedUnixMs == nil || *s.StartedUnixMs != *l.DueUnixMs {
			t.Errorf("level %g: shards' requests %d of %d, started %v", l.Level, sum, requests, s.StartedUnixMs)
		}
		// The span on the wall clock: from the earliest start to the last
		// end (t0 + total), which here is call 6's.
		if want := 60 + 306.0; s.DurationMs != want {
			t.Errorf("level %g duration %v, want %v", l.Level, s.DurationMs, want)
		}
	}
	if doc.Levels[1].SLOMet || doc.Levels[1].Summary.Failed != 1 {
		t.Errorf("level 2 with a failure: %+v", doc.Levels[1])
	}
	if c := doc.Capacity; c == nil || c.Level != 1 || c.Next == nil || c.Next.Level != 2 {
		t.Errorf("capacity %+v", doc.Capacity)
	}
}

// TestMergeRefuses: shards of another run, another count, a missing
// shard, one shard twice, settings that differ, and a folder that is no
// shard are refused, naming what is wrong.
func TestMergeRefuses(t *testing.T) {
	t.Parallel()
	set, rows := testRows()
	fresh := func() []ShardFolder { return shardsOf(set, rows, 3, "R1") }
	other := shardsOf(set, rows, 3, "R2")
	cases := []struct {
		name   string
		shards []ShardFolder
		want   []string
	}{
		{"run id", append(fresh()[:2], other[2]), []string{`"R1"`, `"R2"`, "shard-0", "shard-2"}},
		{"missing", fresh()[:2], []string{"shard 2 of 3 is missing: have 0, 1"}},
		{"missing middle", []ShardFolder{fresh()[0], fresh()[2]}, []string{"shard 1 of 3 is missing: have 0, 2"}},
		{"twice", append(fresh()[:2], fresh()[1]), []string{"shard 1 of 3 twice"}},
		{"count", append(fresh()[:2], shardsOf(set, rows, 4, "R1")[2]), []string{"of 3", "of 4"}},
		{"settings", func() []ShardFolder {
			s := fresh()
			s[1].Doc.Settings.MaxTokens = 64
			return s
		}(), []string{"max_tokens", "0", "64", "shard-1"}},
		{"server", func() []ShardFolder {
			s := fresh()
			s[2].Doc.Settings.Server = "http://other:8080"
			return s
		}(), []string{"settings differ: server", "http://other:8080"}},
		{"trace", func() []ShardFolder {
			s := fresh()
			for i := range s {
				s[i].Doc.Settings.Trace = &artifact.LoadTrace{File: "calls.jsonl", Format: "calls", SHA256: "aa"}
			}
			s[2].Doc.Settings.Trace.SHA256 = "bb"
			return s
		}(), []string{"settings differ: trace", `"aa"`, `"bb"`, "shard-2"}},
		{"not a shard", func() []ShardFolder {
			s := fresh()
			s[0].Doc.Settings.Shard = nil
			return s
		}(), []string{"shard-0 is not a shard"}},
		{"row of another shard", func() []ShardFolder {
			s := fresh()
			s[1].Rows = append(s[1].Rows, s[0].Rows[0])
			return s
		}(), []string{"shard-1", "is not of shard 1"}},
	}
	for _, tc := range cases {
		_, err := Merge(tc.shards)
		if err == nil {
			t.Errorf("%s: merged", tc.name)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q lacks %q", tc.name, err, w)
			}
		}
	}
}

// TestMergeMarksUnfinishedLevels: a level one shard has no record of, or
// ended interrupted, is interrupted in the merge and named, and counts
// for no capacity; a level no shard reached is not invented.
func TestMergeMarksUnfinishedLevels(t *testing.T) {
	t.Parallel()
	set, rows := testRows()
	set.Levels = []float64{1, 2, 4}
	shards := shardsOf(set, rows, 2, "R1")
	shards[1].Doc.Levels = shards[1].Doc.Levels[:1]
	shards[0].Doc.Levels = shards[0].Doc.Levels[:2]
	m, err := Merge(shards)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Doc.Levels) != 2 || m.Doc.Levels[0].Interrupted || !m.Doc.Levels[1].Interrupted || m.Doc.Levels[1].SLOMet {
		t.Fatalf("levels %+v", m.Doc.Levels)
	}
	if l := m.Doc.Levels[1]; l.Shards[1].StartedUnixMs != nil || l.StartSpreadMs != nil || l.Summary.Requests != 11 {
		t.Errorf("level 2: %+v", l)
	}
	if len(m.Notes) != 1 || !strings.Contains(m.Notes[0], "level 2: shard 1") {
		t.Errorf("notes %q", m.Notes)
	}
	shards = shardsOf(set, rows, 2, "R1")
	shards[0].Doc.Levels[0].Interrupted = true
	m, err = Merge(shards)
	if err != nil {
		t.Fatal(err)
	}
	if !m.Doc.Levels[0].Interrupted || m.Doc.Capacity != nil && m.Doc.Capacity.Level == 1 {
		t.Errorf("level 1 interrupted in a shard: %+v, capacity %+v", m.Doc.Levels[0], m.Doc.Capacity)
	}
}

// TestMergeCSV: one header, every shard's rows in order, every line
// ended by CRLF as the recorder ends them (RFC 4180); different headers
// refused naming both shards.
func TestMergeCSV(t *testing.T) {
	t.Parallel()
	got, err := MergeCSV([]string{"a", "b", "c"}, [][]byte{[]byte("h,x\r\n1,2\r\n"), nil, []byte("h,x\r\n3,\"4\n5\"")})
	if err != nil || string(got) != "h,x\r\n1,2\r\n3,\"4\n5\"\r\n" {
		t.Errorf("%q %v", got, err)
	}
	if _, err := MergeCSV([]string{"a", "b"}, [][]byte{[]byte("h,x\n1,2\n"), []byte("h,y\n3,4\n")}); err == nil ||
		!strings.Contains(err.Error(), "of a and of b") {
		t.Errorf("different headers: %v", err)
	}
}

// TestMergeSpokenAndTrends: with --tts the merged level has first_audio_ms
// and underrun_ms over the rows that have them (none invented for the
// others); the steady trend is recomputed over the union in wall-clock
// order; a level one shard ended as over-saturated keeps that shard's
// trend and does not hold.
func TestMergeSpokenAndTrends(t *testing.T) {
	t.Parallel()
	set, rows := testRows()
	set.TTS = &artifact.AudioTTS{}
	var audio []float64
	for i := range rows {
		// Every answer was sent to the speech server; level 2's brought
		// no audio.
		rows[i].AudioMs = artifact.Ms(0)
		if rows[i].Level == 1 && rows[i].Call%2 == 0 && !rows[i].Warmup {
			a := 200 + float64(i)
			rows[i].FirstAudioMs, rows[i].UnderrunMs, rows[i].AudioMs = &a, artifact.Ms(0), artifact.Ms(1500)
			audio = append(audio, a)
		}
	}
	shards := shardsOf(set, rows, 2, "R1")
	rising := artifact.LevelTrend{Metric: "queue_ms + first_sentence_ms", Rising: true, Known: true}
	shards[1].Doc.Levels[1].OverSaturated = &rising
	m, err := Merge(shards)
	if err != nil {
		t.Fatal(err)
	}
	l := m.Doc.Levels[0]
	a := l.Summary.FirstAudioMs
	if a == nil || a.N != len(audio) || *a.P50 != interval.PercentileOf(audio, 50) || l.Summary.UnderrunMs == nil || l.Summary.UnderrunMs.N != len(audio) {
		t.Errorf("first audio %+v, want n %d", a, len(audio))
	}
	if m.Doc.Levels[1].Summary.FirstAudioMs == nil || m.Doc.Levels[1].Summary.FirstAudioMs.N != 0 {
		t.Errorf("level 2 spoke nothing: %+v", m.Doc.Levels[1].Summary.FirstAudioMs)
	}
	// Level 1's lateness (queue 0.5 + first sentence 100 + 7 call +
	// turn) in wall-clock order: 11 requests, too few (fewer than 18) to
	// bound a third's median, so nothing is said.
	if s := l.Steady; s == nil || len(s.Thirds) != 3 || s.Thirds[0].From != 1 || s.Thirds[0].N+s.Thirds[1].N+s.Thirds[2].N != 11 ||
		s.Known || !s.Steady || s.Metric != "queue_ms + first_sentence_ms" {
		t.Errorf("steady %+v", l.Steady)
	}
	// Its first third: call 1's second turn, call 2's two turns; the
	// median call 2's first.
	if first := l.Steady.Thirds[0].P50Ms; first == nil || *first != 0.5+100+7*2+1 {
		t.Errorf("first third's median %v", *first)
	}
	if o := m.Doc.Levels[1].OverSaturated; o == nil || !o.Rising || m.Doc.Levels[1].SLOMet || len(m.Notes) != 1 {
		t.Errorf("over-saturated %+v, notes %q", o, m.Notes)
	}
}

// TestMergeShardWithoutCallsAtALevel: a shard that has no record of a
// level but one of a later level ran none of its calls; the level is not
// interrupted, its span and spread are over the shards that ran it.
func TestMergeShardWithoutCallsAtALevel(t *testing.T) {
	t.Parallel()
	set, rows := testRows()
	var kept []artifact.LoadRequest
	for _, r := range rows {
		if r.Level != 1 || (r.Call-1)%2 == 0 {
			kept = append(kept, r)
		}
	}
	shards := shardsOf(set, kept, 2, "R1")
	shards[1].Doc.Levels = shards[1].Doc.Levels[1:]
	m, err := Merge(shards)
	if err != nil {
		t.Fatal(err)
	}
	l := m.Doc.Levels[0]
	if l.Interrupted || len(m.Notes) != 0 || l.Shards[1].Requests != 0 || l.Shards[1].StartedUnixMs != nil ||
		l.StartSpreadMs == nil || *l.StartSpreadMs != 0 || l.Summary.StartedUnixMs == nil || l.Summary.Requests != 5 {
		t.Errorf("level 1: %+v, notes %q", l, m.Notes)
	}
}

// TestMergeTrace: the shards of a trace's replay merge into its one
// level, recomputed from the union as the level of every row would be,
// late_ms included, with no capacity.
func TestMergeTrace(t *testing.T) {
	t.Parallel()
	set, rows := testRows()
	set.Mode, set.Levels = "trace", []float64{1}
	set.Trace = &artifact.LoadTrace{File: "calls.jsonl", Format: "calls", SHA256: "aa", Speed: 1}
	var one []artifact.LoadRequest
	for _, r := range rows {
		if r.Level == 1 {
			r.LateMs = artifact.Ms(float64(r.Call) + 0.5*float64(r.Turn))
			one = append(one, r)
		}
	}
	m, err := Merge(shardsOf(set, one, 3, "R1"))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Doc.Levels) != 1 || m.Doc.Capacity != nil {
		t.Fatalf("%d levels, capacity %+v: want the trace's one and none", len(m.Doc.Levels), m.Doc.Capacity)
	}
	l := m.Doc.Levels[0]
	whole := Level(set, 1, one, LevelExtras{})
	if l.Summary.LateMs == nil || !reflect.DeepEqual(*l.Summary.LateMs, *whole.Summary.LateMs) || l.Summary.Requests != whole.Summary.Requests ||
		l.Concurrency != nil || l.Rate != nil {
		t.Errorf("merged %+v, want the union's %+v", l.Summary, whole.Summary)
	}
}
