package rundir

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"ttftlab/internal/artifact"
	"ttftlab/internal/load"
)

func TestLabSamples(t *testing.T) {
	pm := 3.5
	l := &Lab{
		TTFT:    &TTFT{Runs: []artifact.TTFTRun{{TTFTMs: 10, TotalMs: 50}, {TTFTMs: 12, TotalMs: 55}}},
		Prefill: []PrefillRow{{Docs: 0, TTFTMs: 8}, {Docs: 4, TTFTMs: 20, PromptMs: &pm}},
		Cache:   &Cache{First: Tokens{TTFTMs: 30}, Second: Tokens{TTFTMs: 9}, ChangedPrefix: Tokens{TTFTMs: 31}},
		Audio: &Audio{Runs: []artifact.AudioRun{{FirstAudioMs: 300, FirstSentenceMs: 40, TTSFirstAudioMs: 250},
			{FirstAudioMs: 320, FirstSentenceMs: 42, TTSFirstAudioMs: 270, UnderrunMs: 15}}},
		Call: &Call{Repeat: 2, Runs: []artifact.CallRun{
			{Turns: []artifact.CallTurn{{Parts: artifact.CallParts{MouthToEarMs: 900, SttFinalMs: 400}}, {Parts: artifact.CallParts{MouthToEarMs: 950, SttFinalMs: 420}}}},
			{Turns: []artifact.CallTurn{{Parts: artifact.CallParts{MouthToEarMs: 910, SttFinalMs: 410}}, {Parts: artifact.CallParts{MouthToEarMs: 990, SttFinalMs: 430}}}}}},
	}
	got := map[string][]float64{}
	var names []string
	for _, s := range l.Samples() {
		got[s.Name] = s.Values
		names = append(names, s.Name)
		if s.Unit != "ms" || s.Over == "" {
			t.Errorf("%s: unit %q over %q", s.Name, s.Unit, s.Over)
		}
	}
	want := []string{"ttft_ms", "total_ms", "prefill 0 docs ttft_ms", "prefill 4 docs ttft_ms", "prefill 4 docs prompt_ms",
		"cache first ttft_ms", "cache hit ttft_ms", "cache changed first line ttft_ms",
		"first_audio_ms", "audio first_sentence_ms", "audio tts_first_audio_ms", "audio underrun_ms",
		"call mouth_to_ear_ms", "call stt_final_ms"}
	if !slices.Equal(names, want) {
		t.Fatalf("figures %q, want %q", names, want)
	}
	if !slices.Equal(got["first_audio_ms"], []float64{300, 320}) || !slices.Equal(got["audio underrun_ms"], []float64{0, 15}) {
		t.Fatalf("audio: %v", got)
	}
	// Every turn of every repetition.
	if !slices.Equal(got["call mouth_to_ear_ms"], []float64{900, 950, 910, 990}) || !slices.Equal(got["call stt_final_ms"], []float64{400, 420, 410, 430}) {
		t.Fatalf("call: %v", got)
	}
	if !slices.Equal(got["ttft_ms"], []float64{10, 12}) || !slices.Equal(got["prefill 4 docs prompt_ms"], []float64{3.5}) {
		t.Fatalf("values %v", got)
	}
}

// TestLabSamplesTakeEveryRepetition: the cache and prefix figures hold a
// value from every repetition in runs, not the top level's alone (the
// first repetition, repeated there).
func TestLabSamplesTakeEveryRepetition(t *testing.T) {
	tok := func(ms float64) Tokens { return Tokens{TTFTMs: ms} }
	places := func(front, last float64) []artifact.PrefixPosition {
		return []artifact.PrefixPosition{{Position: "front", TTFTMs: front}, {Position: "before_question", TTFTMs: last}}
	}
	l := &Lab{
		Cache: &Cache{First: tok(30), Second: tok(9), ChangedPrefix: tok(31), Repeat: 3, Runs: []artifact.CacheRun{
			{First: tok(30), Second: tok(9), ChangedPrefix: tok(31)},
			{First: tok(32), Second: tok(8), ChangedPrefix: tok(33)},
			{First: tok(29), Second: tok(7), ChangedPrefix: tok(34)}}},
		Prefix: &Prefix{Positions: places(20, 5), Repeat: 2, Runs: []artifact.PrefixRun{
			{Positions: places(20, 5)}, {Positions: places(22, 6)}}},
	}
	got := map[string][]float64{}
	for _, s := range l.Samples() {
		got[s.Name] = s.Values
	}
	for name, want := range map[string][]float64{
		"cache first ttft_ms": {30, 32, 29}, "cache hit ttft_ms": {9, 8, 7}, "cache changed first line ttft_ms": {31, 33, 34},
		"prefix front ttft_ms": {20, 22}, "prefix before_question ttft_ms": {5, 6},
	} {
		if !slices.Equal(got[name], want) {
			t.Errorf("%s: %v, want %v", name, got[name], want)
		}
	}
}

func TestLoadSamplesFailuresAboveAndWarmupOut(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	kind := "http"
	req := func(level float64, warm bool, ttft *float64, failed bool) artifact.LoadRequest {
		r := artifact.LoadRequest{Level: level}
		r.Warmup, r.TTFTMs, r.FirstSentenceMs, r.TotalMs = warm, ttft, ttft, ttft
		if failed {
			r.ErrorKind = &kind
		}
		return r
	}
	l := &Load{Requests: []artifact.LoadRequest{
		req(2, true, f(1), false), req(2, false, f(5), false), req(2, false, f(7), true),
		req(1, false, f(3), false), req(1, false, nil, false),
	}}
	ss := l.Samples()
	if len(ss) != 6 {
		t.Fatalf("%d figures, want 2 levels x 3 metrics", len(ss))
	}
	if ss[0].Name != "level 2 ttft_ms" || ss[3].Name != "level 1 ttft_ms" {
		t.Fatalf("order %q, %q: want the levels as they ran", ss[0].Name, ss[3].Name)
	}
	if v := ss[0].Values; len(v) != 2 || v[0] != 5 || !math.IsInf(v[1], 1) || ss[0].Failed() != 1 {
		t.Fatalf("level 2: %v, want the warm-up out and the failure as +Inf", v)
	}
	if v := ss[3].Values; len(v) != 2 || !math.IsInf(v[1], 1) {
		t.Fatalf("level 1: %v, want a request without a time as +Inf", v)
	}
}

func TestRunDirs(t *testing.T) {
	dir := t.TempDir()
	if ds, err := RunDirs(dir); err != nil || ds != nil {
		t.Fatalf("single run: %v, %v", ds, err)
	}
	for _, n := range []string{"run-2", "run-10", "run-1", "run-x", "run-01"} {
		if err := os.Mkdir(filepath.Join(dir, n), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := RunDirs(dir); err == nil || !strings.Contains(err.Error(), "run-10 but no run-3") {
		t.Fatalf("gap: %v", err)
	}
	for i := 3; i <= 9; i++ {
		if err := os.Mkdir(filepath.Join(dir, "run-"+string(rune('0'+i))), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ds, err := RunDirs(dir)
	if err != nil || len(ds) != 10 || filepath.Base(ds[1]) != "run-2" || filepath.Base(ds[9]) != "run-10" {
		t.Fatalf("%v, %v", ds, err)
	}
}

// TestLoadSamplesLeaveOutTheTransient: a sweep level whose record left a
// transient out of its figures pools without it, found again by the
// same rule (load.SteadyWindow); a search's rows are all kept.
func TestLoadSamplesLeaveOutTheTransient(t *testing.T) {
	var rows []artifact.LoadRequest
	for i := 1; i <= 40; i++ {
		ttft := 5 + 0.1*float64(i%3)
		if i <= 10 {
			ttft = 200 + float64(i%3)
		}
		r := artifact.LoadRequest{Level: 1, Call: i}
		r.Index, r.TTFTMs, r.FirstSentenceMs, r.TotalMs = i, &ttft, &ttft, &ttft
		rows = append(rows, r)
	}
	w, _ := load.SteadyWindow(rows, nil)
	if w.LeftOut != 10 {
		t.Fatalf("window %+v: want the 10 slow requests cut", w)
	}
	l := &Load{Requests: rows, Levels: []artifact.LoadLevel{{Level: 1, SteadyWindow: &w}}}
	if v := l.Samples()[0].Values; len(v) != 30 || v[0] > 10 {
		t.Errorf("%d values from %v: want the 30 after the transient", len(v), v[0])
	}
	l.Settings.SearchMax = 8
	if v := l.Samples()[0].Values; len(v) != 40 {
		t.Errorf("a search: %d values, want all 40", len(v))
	}
}

// TestLabSamplesCancelAndBargeinRepetitions: the cancel and barge-in
// figures take every repetition of the file's runs, and the top level of
// a file written before the steps repeated.
func TestLabSamplesCancelAndBargeinRepetitions(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	turn := func(resumed, cold float64) Bargein {
		return Bargein{Resumed: Tokens{TTFTMs: resumed}, Cold: Tokens{TTFTMs: cold}}
	}
	repeated := &Lab{
		Cancel: &Cancel{SlotIdleAfterMs: f(2), Evidence: "slots", Repeat: 3,
			Runs: []Cancel{{SlotIdleAfterMs: f(2)}, {SlotIdleAfterMs: f(5)}, {SlotIdleAfterMs: f(3)}}},
		Bargein: &Bargein{Resumed: Tokens{TTFTMs: 20}, Cold: Tokens{TTFTMs: 100}, Repeat: 2,
			Runs: []Bargein{turn(20, 100), turn(25, 110)}},
	}
	older := &Lab{Cancel: &Cancel{SlotIdleAfterMs: f(4)}, Bargein: &Bargein{Resumed: Tokens{TTFTMs: 30}, Cold: Tokens{TTFTMs: 90}}}
	for _, c := range []struct {
		name string
		lab  *Lab
		want map[string][]float64
	}{
		{"runs", repeated, map[string][]float64{"cancel slot idle after close_ms": {2, 5, 3},
			"bargein resumed ttft_ms": {20, 25}, "bargein cold ttft_ms": {100, 110}}},
		{"top level", older, map[string][]float64{"cancel slot idle after close_ms": {4},
			"bargein resumed ttft_ms": {30}, "bargein cold ttft_ms": {90}}},
	} {
		got := map[string][]float64{}
		for _, s := range c.lab.Samples() {
			got[s.Name] = s.Values
		}
		for name, want := range c.want {
			if !slices.Equal(got[name], want) {
				t.Errorf("%s: %s = %v, want %v", c.name, name, got[name], want)
			}
		}
	}
	// Client-side evidence has no idle times: no figure.
	client := &Lab{Cancel: &Cancel{Evidence: "client", Repeat: 2, Runs: []Cancel{{}, {}}}}
	for _, s := range client.Samples() {
		if s.Name == "cancel slot idle after close_ms" {
			t.Errorf("client-side evidence gave %v", s.Values)
		}
	}
}

// TestLoadSamplesOfSpokenTurns: a load whose callers spoke pools mouth
// to ear and the final transcript per level beside the answer's spoken
// figures, a turn whose transcription failed above every time; a load
// whose callers did not speak has neither.
func TestLoadSamplesOfSpokenTurns(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	kind := "stt_timeout"
	ok := artifact.LoadRequest{Level: 1}
	ok.TTFTMs, ok.FirstSentenceMs, ok.TotalMs, ok.FirstAudioMs, ok.UnderrunMs = f(1), f(2), f(3), f(4), f(0)
	ok.CallerAudioMs, ok.MouthToEarMs, ok.SttFinalMs = f(900), f(700), f(300)
	failed := artifact.LoadRequest{Level: 1}
	failed.CallerAudioMs, failed.ErrorKind = f(900), &kind
	got := map[string][]float64{}
	for _, s := range (&Load{Requests: []artifact.LoadRequest{ok, failed}}).Samples() {
		got[s.Name] = s.Values
	}
	if v := got["level 1 mouth_to_ear_ms"]; len(v) != 2 || v[0] != 700 || !math.IsInf(v[1], 1) {
		t.Errorf("mouth_to_ear_ms %v", v)
	}
	if v := got["level 1 stt_final_ms"]; len(v) != 2 || v[0] != 300 || len(got) != 7 {
		t.Errorf("stt_final_ms %v, %d figures (want 7)", v, len(got))
	}
	ok.CallerAudioMs, failed.CallerAudioMs = nil, nil
	for _, s := range (&Load{Requests: []artifact.LoadRequest{ok, failed}}).Samples() {
		if strings.Contains(s.Name, "mouth_to_ear") || strings.Contains(s.Name, "stt_final") {
			t.Errorf("%s without a spoken turn", s.Name)
		}
	}
}
