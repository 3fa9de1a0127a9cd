package load

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"strings"
	"testing"

	"ttftlab/internal/artifact"
)

// row is a request of a level, its figures given (0: none), failed
// with kind unless kind is "".
func row(level float64, call, turn int, ttft, first, total float64, kind string) artifact.LoadRequest {
	r := artifact.LoadRequest{Level: level, Call: call, Turn: turn}
	r.StartMs, r.QueueMs, r.TotalMs = artifact.Ms(10*float64(call)), artifact.Ms(0.5), artifact.Ms(total)
	if ttft > 0 {
		r.TTFTMs = artifact.Ms(ttft)
	}
	if first > 0 {
		r.FirstSentenceMs = artifact.Ms(first)
	}
	if kind != "" {
		msg := "canceled after 1 content chunks, 9 bytes in 12.0 ms: context canceled"
		r.ErrorKind, r.Error = &kind, &msg
	} else {
		r.StallMs = artifact.Ms(0)
		r.PromptN, r.CacheN = artifact.Num(20), artifact.Num(5)
	}
	return r
}

// levelStart is the wall clock at the start of levelRows' level: a
// whole number of ms, so that a row's start and end on the wall clock
// (this plus its start_ms, a quarter of a ms at the finest) lose nothing.
const levelStart = 1.7e12

// levelRows are one level of 10 calls of 2 turns, every figure a row
// can hold: the lateness growing with the call (18 requests that are not
// warm-up: the steady trend is known), chunk gaps, an answer spoken, a
// turn the caller spoke (its endpointing said on odd calls only), one
// request cut, one failed with an HTTP status, one failed without; each
// late (late_ms) but the last, the warm-up the latest and due in the
// ramp.
func levelRows() (artifact.LoadSettings, []artifact.LoadRequest) {
	set := artifact.LoadSettings{Mode: "rate", Levels: []float64{2}, Turns: 2, Calls: 10, Requests: 20, Warmup: 2,
		SLO: []artifact.SLO{{Metric: "first_sentence_ms", Percentile: 50, LimitMs: 900, Text: "first_sentence_ms<=900@p50"},
			{Metric: "ttft_ms", Percentile: 95, LimitMs: 300, Text: "ttft_ms<=300@p95"}},
		TTS: &artifact.AudioTTS{}}
	var rows []artifact.LoadRequest
	for call := 1; call <= 10; call++ {
		for turn := 1; turn <= 2; turn++ {
			kind := ""
			switch {
			case call == 4 && turn == 2:
				kind = "http"
			case call == 7 && turn == 1:
				kind = "timeout"
			}
			r := row(2, call, turn, 20+float64(3*call+turn), 100+float64(11*call)+0.25*float64(turn), 300+float64(call)+0.5, kind)
			r.Index = 2*(call-1) + turn
			r.Warmup = r.Index <= 2
			r.StartMs = artifact.Ms(40*float64(r.Index) + 0.25)
			t0 := levelStart + *r.StartMs
			r.T0UnixMs = &t0
			r.Chunks = 4
			r.GapsMs = []float64{1.5 + float64(call), 2.25, 30.125 * float64(turn)}
			r.PredictedN = artifact.Num(float64(r.Chunks - turn))
			a := 150 + float64(call)
			r.FirstAudioMs, r.UnderrunMs, r.AudioMs = &a, artifact.Ms(float64(turn)), artifact.Ms(1000+float64(100*call))
			r.CallerAudioMs = artifact.Ms(1500 + float64(10*call))
			r.MouthToEarMs, r.SttFinalMs = artifact.Ms(900+float64(7*call+turn)), artifact.Ms(400+float64(call))
			r.SttQueueMs, r.WER = artifact.Ms(float64(call)), artifact.Num(0.125)
			if call%2 == 1 {
				r.EndpointingMs = artifact.Ms(200 + float64(call))
			}
			if kind == "http" {
				r.ErrorStatus = 503
			}
			r.Cut = call == 9 && turn == 2
			// Late by a quarter ms per request, the warm-up (also the
			// ramp) later than any other, call 10's last turn not said.
			r.LateMs = artifact.Ms(0.25 * float64(r.Index))
			if r.Warmup {
				r.LateMs, r.Ramp = artifact.Ms(50+float64(r.Index)), true
			}
			if call == 10 && turn == 2 {
				r.LateMs = nil
			}
			rows = append(rows, r)
		}
	}
	return set, rows
}

// onlyStoppedOrSharded are the members of a level's record that only a
// stopped or a sharded run has.
var onlyStoppedOrSharded = []string{"interrupted", "shards", "start_spread_ms", "started_unix_ms", "due_unix_ms"}

// recordOf is a level's record as load.json holds it, without the
// members only a stopped or sharded run has.
func recordOf(t *testing.T, l artifact.LoadLevel) map[string]any {
	t.Helper()
	data, err := json.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range onlyStoppedOrSharded {
		delete(m, k)
		delete(m["summary"].(map[string]any), k)
	}
	return m
}

// stopIn is a runner stopped in its first round with res.
type stopIn struct{ res RoundResult }

func (s stopIn) Run(context.Context, Round) (RoundResult, error) { return s.res, context.Canceled }

// TestLevelRecordOfEveryPath: from one level's rows, the record of a run
// that ended, of one stopped in it and of a merge of the same rows over 1
// and 2 shards have the same members and the same values, but for those
// only a stopped or sharded run has; every member of a record is there
// (no figure left out by one path), and the merge sums its shards'
// client figures.
func TestLevelRecordOfEveryPath(t *testing.T) {
	t.Parallel()
	set, rows := levelRows()
	end := 0.0
	for _, r := range rows {
		end = math.Max(end, *r.StartMs+*r.TotalMs)
	}
	wait, runs := 3.5, 40.0
	client := artifact.ClientUse{Cores: 2, CPUMs: 120, ReaderCPUMs: 30, ReaderWaitMs: &wait, ReaderRuns: &runs}
	client.Busy = client.CPUMs / (end * 2)
	ttsCPU, sttCPU := 700.0, 1300.0
	start := levelStart
	normal := Level(set, 2, rows, LevelExtras{StartedUnixMs: &start, DurationMs: &end, Client: &client, TTSCPUMs: &ttsCPU, STTCPUMs: &sttCPU})

	// A run stopped in the level: the sweep makes its record from the
	// rows the runner kept.
	stop := stopIn{RoundResult{Rows: rows, Extras: LevelExtras{StartedUnixMs: &start, Client: &client, TTSCPUMs: &ttsCPU, STTCPUMs: &sttCPU}}}
	stopped, err := Sweep(context.Background(), artifact.Load{Settings: set}, stop, func(artifact.Load) error { return nil },
		io.Discard, "out")
	if !errors.Is(err, context.Canceled) || len(stopped.Levels) != 1 {
		t.Fatalf("the stopped level was not added (%v)", err)
	}
	if !stopped.Levels[0].Interrupted {
		t.Error("the stopped level is not marked interrupted")
	}
	paths := map[string]artifact.LoadLevel{"interrupted": stopped.Levels[0]}
	for _, n := range []int{1, 2} {
		shards := shardsOf(set, rows, n, "R1")
		for i := range shards {
			// Each shard's level started at the level's start, on a
			// machine with its share of the cores, CPU and reader figures,
			// and of the speech engine's CPU (by the audio it spoke).
			share := 1 / float64(n)
			w, r := wait*share, runs*share
			c := artifact.ClientUse{Cores: client.Cores / n, CPUMs: client.CPUMs * share, ReaderCPUMs: client.ReaderCPUMs * share,
				ReaderWaitMs: &w, ReaderRuns: &r}
			cpu := ttsCPU * audioMs(shards[i].Rows, answerAudio) / audioMs(rows, answerAudio)
			heard := sttCPU * audioMs(shards[i].Rows, callerAudio) / audioMs(rows, callerAudio)
			shards[i].Doc.Levels[0] = Level(shards[i].Doc.Settings, 2, shards[i].Rows, LevelExtras{StartedUnixMs: &start,
				Client: &c, TTSCPUMs: &cpu, STTCPUMs: &heard})
		}
		m, err := Merge(shards)
		if err != nil {
			t.Fatal(err)
		}
		paths[map[int]string{1: "merge of 1 shard", 2: "merge of 2 shards"}[n]] = m.Doc.Levels[0]
	}
	want := recordOf(t, normal)
	// Every member of the record is there: a figure of the rows that one
	// path dropped would be missing from all of them.
	s := want["summary"].(map[string]any)
	for _, k := range []string{"client", "first_audio_ms", "underrun_ms", "mouth_to_ear_ms", "stt_final_ms", "endpointing_ms", "by_turn", "calls", "failures", "cut", "late_ms", "ramp"} {
		if _, ok := s[k]; !ok {
			t.Errorf("the summary has no %s", k)
		}
	}
	for _, k := range []string{"rate", "steady", "goodput", "slo", "tts_cpu_ms_per_audio_s", "stt_cpu_ms_per_audio_s"} {
		if _, ok := want[k]; !ok {
			t.Errorf("the record has no %s", k)
		}
	}
	if g := normal.Summary.GapMs; g.N != 3*len(rows)-3*2 || normal.Summary.Cut != 1 || normal.Summary.Failures[0].Status == 0 &&
		normal.Summary.Failures[1].Status == 0 || !normal.Steady.Known || normal.TTSCPUMsPerAudioS == nil {
		t.Errorf("normal record: gaps %+v, cut %d, failures %+v, steady %+v", g, normal.Summary.Cut, normal.Summary.Failures, normal.Steady)
	}
	for name, l := range paths {
		got := recordOf(t, l)
		if !reflect.DeepEqual(got, want) {
			a, _ := json.MarshalIndent(want, "", " ")
			b, _ := json.MarshalIndent(got, "", " ")
			t.Errorf("%s differs from the normal run's record:\n%s\nnormal:\n%s", name, b, a)
		}
	}
}

// TestSumClients: the shards' client figures summed, busy over the
// merged span; the reader's wait only when every shard knows it; none
// when a shard has none.
func TestSumClients(t *testing.T) {
	t.Parallel()
	w := 2.0
	a := &artifact.ClientUse{Cores: 2, CPUMs: 100, ReaderCPUMs: 10, ReaderWaitMs: &w, ReaderRuns: &w}
	b := &artifact.ClientUse{Cores: 4, CPUMs: 500, ReaderCPUMs: 20}
	got := sumClients([]*artifact.ClientUse{a, b}, 50)
	if got == nil || got.Cores != 6 || got.CPUMs != 600 || got.ReaderCPUMs != 30 || got.Busy != 600.0/(50*6) || got.ReaderWaitMs != nil {
		t.Errorf("sum %+v", got)
	}
	b.ReaderWaitMs, b.ReaderRuns = &w, &w
	if got := sumClients([]*artifact.ClientUse{a, b}, 50); got.ReaderWaitMs == nil || *got.ReaderWaitMs != 4 || *got.ReaderRuns != 4 {
		t.Errorf("reader wait %+v", got)
	}
	if sumClients([]*artifact.ClientUse{a, nil}, 50) != nil {
		t.Error("a shard without client figures summed")
	}
}

// TestCapacityOf: the highest level that held, an interrupted one never,
// with the level after it; none when no level held.
func TestCapacityOf(t *testing.T) {
	t.Parallel()
	levels := []artifact.LoadLevel{{Level: 1, SLOMet: true}, {Level: 2, SLOMet: true}, {Level: 4}, {Level: 8, SLOMet: true, Interrupted: true}}
	c := CapacityOf(levels)
	if c == nil || c.Level != 2 || c.Next == nil || c.Next.Level != 4 {
		t.Errorf("capacity %+v", c)
	}
	if c := CapacityOf(levels[2:]); c != nil {
		t.Errorf("capacity %+v of levels that did not hold", c)
	}
	if c := CapacityOf(levels[:2]); c == nil || c.Level != 2 || c.Next != nil {
		t.Errorf("capacity %+v when the last level held", c)
	}
}

// TestOverSaturation: a level whose lateness grows by 10 ms a request is
// found over-saturated at the 18th request that is not warm-up (each
// third then above the one before, by more than a tenth of the limit),
// not before, warm-up left out; a level of constant lateness never is.
func TestOverSaturation(t *testing.T) {
	t.Parallel()
	slo := artifact.SLO{Metric: "ttft_ms", LimitMs: 100}
	ended := func(i int, ms float64, warmup bool) artifact.LoadRequest {
		r := artifact.LoadRequest{Request: artifact.Request{Index: i, Warmup: warmup, TTFTMs: &ms, QueueMs: artifact.Ms(0)}}
		return r
	}
	o := &OverSaturation{SLO: slo}
	if o.Ended(ended(0, 5000, true)) {
		t.Fatal("a warm-up request counted")
	}
	for i := 1; i <= 18; i++ {
		found := o.Ended(ended(i, 20+10*float64(i), false))
		if found != (i == 18) {
			t.Fatalf("request %d: found %v", i, found)
		}
	}
	if o.Trend == nil || !o.Trend.Rising || o.Trend.Metric != "queue_ms + ttft_ms" || o.Trend.Thirds[0].N != 6 {
		t.Errorf("trend %+v", o.Trend)
	}
	if o.Ended(ended(19, 1, false)) {
		t.Error("found twice")
	}
	flat := &OverSaturation{SLO: slo}
	for i := 1; i <= 60; i++ {
		if flat.Ended(ended(i, 50, false)) {
			t.Fatalf("constant lateness over-saturated at %d", i)
		}
	}
}

// TestLevelTimesToTheMicrosecond: every time in a level's record (a
// member named *_ms, and every number inside one: a by_turn figure, a
// trend's third, its interval) is to the microsecond, as every artifact
// writes times, also where the figures of the rows and the extras are
// finer (a mean, an interpolated percentile, a CPU time in ns).
func TestLevelTimesToTheMicrosecond(t *testing.T) {
	t.Parallel()
	set, rows := levelRows()
	for i := range rows {
		if f := rows[i].FirstSentenceMs; f != nil {
			*f += 0.0004 * float64(i)
		}
	}
	start, due, wait := levelStart+0.1234567, levelStart+0.0000004, 3.5555555
	rec := Level(set, 2, rows, LevelExtras{StartedUnixMs: &start, DueUnixMs: &due,
		Client: &artifact.ClientUse{Cores: 2, CPUMs: 120.1234567, ReaderCPUMs: 30.0000001, ReaderWaitMs: &wait}})
	data, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	var m any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	times := 0
	var walk func(path string, v any, time bool)
	walk = func(path string, v any, time bool) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				walk(path+"."+k, x, time || strings.HasSuffix(k, "_ms"))
			}
		case []any:
			for i, x := range v {
				walk(fmt.Sprintf("%s[%d]", path, i), x, time)
			}
		case float64:
			if time {
				times++
				if math.Round(v*1000)/1000 != v {
					t.Errorf("%s = %v: not to the microsecond", path, v)
				}
			}
		}
	}
	walk("", m, false)
	if times < 100 {
		t.Errorf("only %d times checked", times)
	}
}

// TestSteadyLeavesOutWarmup: 45 requests of which the first 15 are slow
// (a cold server: 150 ms to the first token against 5 ms): counted, they
// are found to be the level's transient (its steady window starts at the
// 16th) and left out of the steady trend, the summary and the verdicts,
// and the level is steady; marked warm-up, they are left out as warm-up
// and nothing is left to cut. Neither an over-saturated level nor a
// replayed trace has a transient to cut.
func TestSteadyLeavesOutWarmup(t *testing.T) {
	t.Parallel()
	set := artifact.LoadSettings{Mode: "concurrency", Levels: []float64{2}, Turns: 1, Calls: 45, Requests: 45,
		SLO: []artifact.SLO{{Metric: "ttft_ms", Percentile: 50, LimitMs: 500, Text: "ttft_ms<=500@p50"}}}
	for _, warm := range []int{0, 15} {
		var rows []artifact.LoadRequest
		for i := 1; i <= 45; i++ {
			ttft := 5 + 0.25*float64(i%4)
			if i <= 15 {
				ttft = 150 + 0.25*float64(i%4)
			}
			r := row(2, i, 1, ttft, ttft+10, ttft+20, "")
			r.Index, r.Warmup, r.AudioMs = i, i <= warm, artifact.Ms(1000)
			rows = append(rows, r)
		}
		set.Warmup = warm
		cpu := 900.0
		lv := Level(set, 2, rows, LevelExtras{TTSCPUMs: &cpu})
		// The engine's CPU is the whole level's: so is the audio it is per.
		if p := lv.TTSCPUMsPerAudioS; p == nil || *p != 20 {
			got := "no"
			if p != nil {
				got = fmt.Sprint(*p)
			}
			t.Errorf("warm-up %d: %s ms of CPU per second of audio, want 900 / 45", warm, got)
		}
		if st := lv.Steady; st == nil || !st.Known || !st.Steady {
			t.Errorf("warm-up %d: steady %+v, want known and steady", warm, st)
		}
		left := 15 - warm
		if w := lv.SteadyWindow; w == nil || !w.Known || w.LeftOut != left || w.FromRequest != left+1 {
			t.Errorf("warm-up %d: window %+v, want %d left out", warm, w, left)
		}
		if lv.Summary.Warmup != warm || lv.Summary.Requests != 30 || lv.SLO[0].N != 30 || lv.Summary.Calls != 45 {
			t.Errorf("warm-up %d: summary warmup %d of %d requests, %d calls, SLO over %d", warm, lv.Summary.Warmup,
				lv.Summary.Requests, lv.Summary.Calls, lv.SLO[0].N)
		}
		// An over-saturated level has no steady state: nothing is cut.
		over := Level(set, 2, rows, LevelExtras{OverSaturated: &artifact.LevelTrend{Rising: true}})
		if w := over.SteadyWindow; w == nil || w.Known || w.LeftOut != 0 || over.Summary.Requests != 45-warm {
			t.Errorf("warm-up %d, over-saturated: window %+v over %d requests, want nothing cut", warm, w, over.Summary.Requests)
		}
		// Nor a replayed trace: its first requests are what it replays.
		replay := set
		replay.Mode = "trace"
		tr := Level(replay, 1, rows, LevelExtras{})
		if w := tr.SteadyWindow; w == nil || w.Known || w.LeftOut != 0 || tr.Summary.Requests != 45-warm {
			t.Errorf("warm-up %d, a replay: window %+v over %d requests, want nothing cut", warm, w, tr.Summary.Requests)
		}
	}
}

// TestSpokenTurnFigures: a level whose callers spoke has mouth_to_ear_ms,
// stt_final_ms and endpointing_ms distributions over the spoken turns
// that have each figure (a failed transcription has none and is a
// failure of its kind), an SLO on mouth_to_ear_ms judged on the rows'
// values, and the speech-to-text engine's CPU per second of the callers'
// audio; a level whose callers did not speak has none of them.
func TestSpokenTurnFigures(t *testing.T) {
	t.Parallel()
	set := artifact.LoadSettings{Mode: "concurrency", Levels: []float64{2}, Turns: 2, Calls: 4, Requests: 8,
		SLO: []artifact.SLO{{Metric: "mouth_to_ear_ms", Percentile: 50, LimitMs: 1500, Text: "mouth_to_ear_ms<=1500@p50"}}}
	var rows []artifact.LoadRequest
	for call := 1; call <= 4; call++ {
		for turn := 1; turn <= 2; turn++ {
			kind := ""
			if call == 3 && turn == 2 {
				kind = "stt_rate_limited"
			}
			r := row(2, call, turn, 20, 100, 300, kind)
			r.Index = 2*(call-1) + turn
			r.CallerAudioMs = artifact.Ms(2000)
			if kind == "" {
				r.MouthToEarMs, r.SttFinalMs = artifact.Ms(1000+float64(100*r.Index)), artifact.Ms(float64(10*r.Index))
			} else {
				r.TTFTMs, r.FirstSentenceMs = nil, nil
			}
			if turn == 1 {
				r.EndpointingMs = artifact.Ms(float64(r.Index))
			}
			rows = append(rows, r)
		}
	}
	cpu := 8400.0
	lv := Level(set, 2, rows, LevelExtras{STTCPUMs: &cpu})
	s := lv.Summary
	if s.MouthToEarMs == nil || s.SttFinalMs == nil || s.EndpointingMs == nil {
		t.Fatalf("summary without the spoken turn's figures: %+v", s)
	}
	if s.MouthToEarMs.N != 7 || *s.MouthToEarMs.Max != 1800 || s.SttFinalMs.N != 7 || s.EndpointingMs.N != 4 || *s.EndpointingMs.Max != 7 {
		t.Errorf("mouth to ear %+v, stt final %+v, endpointing %+v", *s.MouthToEarMs, *s.SttFinalMs, *s.EndpointingMs)
	}
	if s.Failed != 1 || s.Failures[0].Kind != "stt_rate_limited" {
		t.Errorf("failures %+v", s.Failures)
	}
	// The p50 of 8 turns, the failed one infinitely late: 1000+100*[1 2 3
	// 4 5 7 8 inf] -> between 1400 and 1500.
	if v := lv.SLO[0]; v.ValueMs == nil || *v.ValueMs != 1450 || !v.Met || v.Failed != 1 || v.N != 8 {
		t.Errorf("SLO %+v", v)
	}
	// 8.4 s of CPU over 16 s of the callers' audio.
	if p := lv.STTCPUMsPerAudioS; p == nil || *p != 525 {
		t.Errorf("stt_cpu_ms_per_audio_s %v, want 525", p)
	}
	if lv.TTSCPUMsPerAudioS != nil {
		t.Errorf("tts_cpu_ms_per_audio_s %v without answers spoken", *lv.TTSCPUMsPerAudioS)
	}
	for i := range rows {
		rows[i].CallerAudioMs, rows[i].MouthToEarMs, rows[i].SttFinalMs, rows[i].EndpointingMs = nil, nil, nil, nil
	}
	lv = Level(set, 2, rows, LevelExtras{})
	if s := lv.Summary; s.MouthToEarMs != nil || s.SttFinalMs != nil || s.EndpointingMs != nil || lv.STTCPUMsPerAudioS != nil {
		t.Errorf("a level no caller spoke has spoken turns' figures: %+v", s)
	}
}

// TestLateOverEveryRow: a level's late_ms is over every row that has one,
// warm-up, ramp and transient included (the latest here is warm-up),
// its intervals by call; ramp counts the rows due in the ramp; both the
// same in stream_many's summary (SummaryOf) and the level's; without a
// row that has late_ms (a file written before it), none.
func TestLateOverEveryRow(t *testing.T) {
	t.Parallel()
	set, rows := levelRows()
	// Two more rounds of its calls, numbered on: enough batches for a
	// steady window.
	for k := 1; k <= 2; k++ {
		for _, r := range rows[:20] {
			r.Call, r.Index, r.Warmup, r.Ramp = r.Call+10*k, r.Index+20*k, false, false
			if r.LateMs != nil {
				r.LateMs = artifact.Ms(0.25 * float64(r.Index))
			}
			rows = append(rows, r)
		}
	}
	var late []float64
	var calls []int
	for _, r := range rows {
		if r.LateMs != nil {
			late, calls = append(late, *r.LateMs), append(calls, r.Call)
		}
	}
	want := Summarize(late, calls).Record(artifact.OverLate)
	if want.N != len(rows)-3 || *want.Max != 52 {
		t.Fatalf("the rows' lateness: %+v", want)
	}
	// A transient of the first requests, left out of every other figure.
	window := append([]artifact.LoadRequest(nil), rows...)
	for i := range window {
		if !window[i].Warmup && window[i].Index <= 7 {
			window[i].TTFTMs = artifact.Ms(5000)
		}
	}
	l := Level(set, 2, window, LevelExtras{})
	if l.SteadyWindow.LeftOut == 0 {
		t.Fatalf("no transient left out: %+v", l.SteadyWindow)
	}
	many := SummaryOf(rows, 2, 1000)
	for name, s := range map[string]artifact.ManySummary{"level": l.Summary.ManySummary, "stream_many": many.ManySummary} {
		if s.LateMs == nil || !reflect.DeepEqual(*s.LateMs, want) {
			t.Errorf("%s: late_ms %+v, want %+v", name, s.LateMs, want)
		}
		if s.Ramp != 2 || s.Warmup == 0 {
			t.Errorf("%s: %d ramp requests (%d warm-up), want 2", name, s.Ramp, s.Warmup)
		}
	}
	for i := range rows {
		rows[i].LateMs, rows[i].Ramp = nil, false
	}
	if s := Level(set, 2, rows, LevelExtras{}).Summary; s.LateMs != nil || s.Ramp != 0 {
		t.Errorf("rows without late_ms or ramp: late_ms %+v, ramp %d", s.LateMs, s.Ramp)
	}
}
