package artifact

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"
)

func TestCountFailuresMostFrequentFirst(t *testing.T) {
	got := CountFailures([]Failure{
		{Kind: "timeout", Example: "t1"},
		{Kind: "http", Status: 500, Example: "boom"},
		{Kind: "http", Status: 401, Example: "key"},
		{Kind: "http", Status: 401, Example: "key again"},
		{Kind: "timeout", Example: "t2"},
		{Kind: "http", Status: 401, Example: "key 3"},
	})
	want := []string{"http 401 3 key", "timeout 2 t1", "http 500 1 boom"}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i, f := range got {
		if s := f.Label() + " " + itoa(f.N) + " " + f.Example; s != want[i] {
			t.Errorf("failure %d = %q, want %q", i, s, want[i])
		}
	}
	if got := CountFailures(nil); got == nil || len(got) != 0 {
		t.Errorf("no failures: %#v, want an empty list (written as [])", got)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestWithTagsPutsTagsFirstAndKeepsOwnFields(t *testing.T) {
	one := 1.0
	rec := Request{Index: 3, TTFTMs: &one}
	data, err := WithTags(rec, [][2]any{{"level", 2}, {"index", 99}, {"call", json.RawMessage(`"a<b"`)}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(data), `{"level":2,"call":"a<b","index":3,`) {
		t.Errorf("row %s: want the tags first, a tag that clashes left out, no HTML escaping", data)
	}
	var back LoadRequest
	if err := DecodeStrict(data, &back); err == nil {
		t.Errorf("a row with a string call decoded as a LoadRequest")
	}
	empty, _ := WithTags(struct{}{}, [][2]any{{"a", 1}})
	if string(empty) != `{"a":1}` {
		t.Errorf("tags on an empty record: %s", empty)
	}
}

func TestDecodeStrictRefusesUnknownMembers(t *testing.T) {
	var s ServerSample
	if err := DecodeStrict([]byte(`{"t_ms": 1, "slots_total": 2, "new": 1}`), &s); err == nil || !strings.Contains(err.Error(), "new") {
		t.Errorf("unknown member: %v", err)
	}
	if err := DecodeStrict([]byte(`{"t_ms": 1} {}`), &s); err == nil {
		t.Errorf("two values accepted")
	}
	if err := DecodeStrict([]byte(`{"t_ms": 1, "slots_total": 2}`), &s); err != nil || *s.SlotsTotal != 2 || s.SlotsProcessing != nil {
		t.Errorf("sample %+v, %v", s, err)
	}
}

// TestRecordsNeverHoldNonFinite: whatever a writer measured (NaN for a
// figure it does not have, infinities, huge values), the records it
// builds through Num and Ms marshal to JSON a strict parser reads.
func TestRecordsNeverHoldNonFinite(t *testing.T) {
	for _, x := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.MaxFloat64, -math.MaxFloat64, 1e308, 0, -0.0004, 12.3456789} {
		rec := LoadRequest{Level: 1, Request: Request{TTFTMs: Ms(x), TotalMs: Ms(x), PromptN: Num(x)}}
		lv := LoadLevel{Level: 1, Goodput: Num(x), SLO: []SLOVerdict{{Metric: "ttft_ms", ValueMs: Ms(x)}},
			Summary: LevelSummary{ManySummary: ManySummary{TokensPerS: Num(x), TTFTMs: Dist{N: 1, P95: Ms(x)}}}}
		for _, v := range []any{rec, lv, ServerSample{PredictedPerS: Num(x)}} {
			data, err := json.Marshal(v)
			if err != nil {
				t.Errorf("%g: %T does not marshal: %v", x, v, err)
				continue
			}
			var back any
			if err := json.Unmarshal(data, &back); err != nil || strings.Contains(string(data), "Inf") || strings.Contains(string(data), "NaN") {
				t.Errorf("%g: %s is not strict JSON (%v)", x, data, err)
			}
		}
		if p := Ms(x); p != nil && (math.IsInf(*p, 0) || math.IsNaN(*p) || math.Signbit(*p) && *p == 0) {
			t.Errorf("Ms(%g) = %g", x, *p)
		}
	}
}

func TestCellsFollowColumns(t *testing.T) {
	q, kind, msg := 0.1234567, "http", "HTTP 500"
	cells := Request{Index: 2, QueueMs: &q, ErrorKind: &kind, Error: &msg}.Cells()
	if len(cells) != len(RequestColumns) {
		t.Fatalf("%d cells for %d columns", len(cells), len(RequestColumns))
	}
	col := map[string]string{}
	for i, c := range RequestColumns {
		col[c] = cells[i]
	}
	if col["index"] != "2" || col["queue_ms"] != "0.123" || col["ttft_ms"] != "" || col["error_kind"] != "http" ||
		col["error"] != "HTTP 500" || col["warmup"] != "false" {
		t.Errorf("cells %v", col)
	}
	// The JSON row names the same columns (a spoken request's too, and a
	// turn the caller spoke).
	f := 1.0
	data, _ := json.Marshal(Request{FirstAudioMs: &f, UnderrunMs: &f, MouthToEarMs: &f, SttFinalMs: &f, EndpointingMs: &f, SttQueueMs: &f, WER: &f, LateMs: &f})
	var m map[string]any
	json.Unmarshal(data, &m)
	for _, c := range RequestColumns {
		if _, ok := m[c]; !ok {
			t.Errorf("column %s is not a member of the JSON row", c)
		}
	}
	if len(m) != len(RequestColumns) {
		t.Errorf("the JSON row has %d members, the CSV %d columns", len(m), len(RequestColumns))
	}
	// What only the JSON row holds, when the request has it.
	status := 503
	data, _ = json.Marshal(Request{Cut: true, ErrorStatus: status, GapsMs: []float64{1}, AudioMs: &f, CallerAudioMs: &f})
	m = map[string]any{}
	json.Unmarshal(data, &m)
	for _, c := range []string{"cut", "error_status", "gaps_ms", "audio_ms", "caller_audio_ms"} {
		if _, ok := m[c]; !ok || slices.Contains(RequestColumns, c) {
			t.Errorf("%s: a member of the JSON row %v, a CSV column %v", c, ok, slices.Contains(RequestColumns, c))
		}
	}
}

// TestShowMs: one decimal under 10 ms, whole ms from 10 on, either sign.
func TestShowMs(t *testing.T) {
	for x, want := range map[float64]string{7.85: "7.8", 9.94: "9.9", 10: "10", 812.4: "812", -3.25: "-3.2", 0: "0.0"} {
		if got := ShowMs(x); got != want {
			t.Errorf("ShowMs(%v) = %q, want %q", x, got, want)
		}
	}
}

// TestSpokenTurnMetrics: every name an SLO may be set on is a figure of
// the row (Request.Metric) and of a summary that has it (Metric), and a
// summary lists the spoken turn's distributions only when it has them.
func TestSpokenTurnMetrics(t *testing.T) {
	v := []float64{1, 2, 3, 4, 5, 6, 7, 8}
	r := Request{TTFTMs: &v[0], FirstSentenceMs: &v[1], TotalMs: &v[2], FirstAudioMs: &v[3], UnderrunMs: &v[4],
		MouthToEarMs: &v[5], SttFinalMs: &v[6], EndpointingMs: &v[7]}
	seen := map[float64]bool{}
	for _, m := range SLOMetrics {
		p := r.Metric(m)
		if p == nil || seen[*p] {
			t.Errorf("Request.Metric(%q) = %v", m, p)
			continue
		}
		seen[*p] = true
	}
	s := ManySummary{}
	if got := s.Metrics(); !slices.Equal(got, Metrics) {
		t.Errorf("a summary without speech lists %v", got)
	}
	d := func(n int) *Dist { return &Dist{N: n} }
	s.MouthToEarMs, s.SttFinalMs, s.EndpointingMs = d(1), d(2), d(3)
	if got, want := s.Metrics(), append(append([]string(nil), Metrics...), "mouth_to_ear_ms", "stt_final_ms", "endpointing_ms"); !slices.Equal(got, want) {
		t.Errorf("Metrics() = %v, want %v", got, want)
	}
	for i, m := range []string{"mouth_to_ear_ms", "stt_final_ms", "endpointing_ms"} {
		if got, ok := s.Metric(m); !ok || got.N != i+1 {
			t.Errorf("Metric(%q) = %+v, %v", m, got, ok)
		}
	}
}

// TestFellBehind: the client fell behind exactly when its requests'
// lateness has a p99 above BehindLimitMs; a summary without lateness (an
// older file, or no request began) never did.
func TestFellBehind(t *testing.T) {
	f := func(x float64) *float64 { return &x }
	for _, c := range []struct {
		late *Dist
		want bool
	}{
		{nil, false},
		{&Dist{N: 0}, false},
		{&Dist{N: 40, P50: f(0.2), P99: f(3)}, false},
		{&Dist{N: 40, P50: f(0.2), P99: f(BehindLimitMs)}, false},
		{&Dist{N: 40, P50: f(0.2), P99: f(BehindLimitMs + 0.001)}, true},
		{&Dist{N: 40, P50: f(25), P99: f(80)}, true},
	} {
		s := ManySummary{LateMs: c.late}
		if got := s.FellBehind(); got != c.want {
			t.Errorf("late_ms %+v: FellBehind %v, want %v", c.late, got, c.want)
		}
	}
}
