package load

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"ttftlab/internal/artifact"
	"ttftlab/internal/interval"
)

// callRows are calls of turns requests each at one level, in the order
// they started: each call's turns lie close to its own level (seeded),
// as turns that share a slot and a cache do.
func callRows(seed uint64, calls, turns int) []artifact.LoadRequest {
	rng := rand.New(rand.NewPCG(seed, 3))
	var rows []artifact.LoadRequest
	for c := 1; c <= calls; c++ {
		own := 100 + 30*rng.NormFloat64()
		for k := 1; k <= turns; k++ {
			ttft := own + 5*rng.NormFloat64()
			r := row(4, c, k, ttft, ttft+50, ttft+200, "")
			r.Index = len(rows) + 1
			rows = append(rows, r)
		}
	}
	return rows
}

// TestLevelIntervalsOverCalls: a level of 30 calls of 4 correlated turns
// gets wider intervals of its ttft_ms percentiles and of its SLO than the
// same requests taken as independent (interval.LateCalls widens them);
// the same values with each request a call of its own get exactly the
// independent ones (interval.Late's).
func TestLevelIntervalsOverCalls(t *testing.T) {
	t.Parallel()
	set := artifact.LoadSettings{Mode: "concurrency", Levels: []float64{4}, Turns: 4, Calls: 30, Requests: 120,
		SLO: []artifact.SLO{{Metric: "ttft_ms", Percentile: 50, LimitMs: 500, Text: "ttft_ms<=500@p50"}}}
	rows := callRows(5, 30, 4)
	lv := Level(set, 4, rows, LevelExtras{})
	if w := lv.SteadyWindow; w == nil || w.LeftOut != 0 {
		t.Fatalf("window %+v: want nothing cut", w)
	}
	xs := make([]float64, len(rows))
	for i, r := range rows {
		xs[i] = *r.TTFTMs
	}
	ind := Summarize(xs, nil).Record(artifact.OverTTFT)
	got := lv.Summary.TTFTMs
	if got.P50CI == nil || ind.P50CI == nil || got.P50CI[1]-got.P50CI[0] <= ind.P50CI[1]-ind.P50CI[0] {
		t.Errorf("p50 interval over calls %v, independent %v: want it wider", got.P50CI, ind.P50CI)
	}
	l := interval.Late(xs, 0, 50)
	v := lv.SLO[0]
	if v.CIMs == nil || v.CIMs[0] == nil || v.CIMs[1] == nil || *v.CIMs[1]-*v.CIMs[0] <= l.Hi-l.Lo || v.Side != "below" {
		t.Errorf("SLO interval %v (%s), independent [%v, %v]: want it wider, below the limit", v.CIMs, v.Side, l.Lo, l.Hi)
	}
	// Every request a call of its own: the independent intervals.
	for i := range rows {
		rows[i].Call, rows[i].Turn = i+1, 1
	}
	set.Turns = 1
	lv = Level(set, 4, rows, LevelExtras{})
	if !reflect.DeepEqual(lv.Summary.TTFTMs, ind) {
		t.Errorf("single-request calls: %+v, want the independent %+v", lv.Summary.TTFTMs, ind)
	}
	if v := lv.SLO[0]; *v.CIMs[0] != *artifact.Ms(l.Lo) || *v.CIMs[1] != *artifact.Ms(l.Hi) {
		t.Errorf("single-request calls: SLO interval %v, want Late's [%v, %v]", v.CIMs, l.Lo, l.Hi)
	}
}

// TestSearchPoolsCallsApart: a search's pooled verdict takes each round's
// calls as its own (call 1 of round 2 is not call 1 of round 1), and
// with the values' calls given its interval is wider than without.
func TestSearchPoolsCallsApart(t *testing.T) {
	t.Parallel()
	rows := callRows(6, 20, 4)
	var xs []float64
	var calls []int
	for _, r := range rows {
		xs, calls = append(xs, *r.TTFTMs), append(calls, r.Call)
	}
	s := Search{SLO: []SLOLimit{{Percentile: 50, LimitMs: 500}}, Calls: 20, Budget: 40}
	step := func(withCalls bool) Step {
		st := Step{Level: 2, Calls: 20, Met: true, Values: [][]float64{xs}}
		if withCalls {
			st.CallOf = [][]int{calls}
		}
		return st
	}
	width := func(v LevelVerdict) float64 { return *v.SLO[0].Hi - *v.SLO[0].Lo }
	with, err := s.verdicts([]Step{step(true), step(true)})
	if err != nil {
		t.Fatal(err)
	}
	without, _ := s.verdicts([]Step{step(false), step(false)})
	if width(with[0]) <= width(without[0]) {
		t.Errorf("pooled over calls %v, independent %v: want it wider", width(with[0]), width(without[0]))
	}
	// The two rounds' calls apart: as 40 calls of 4; as one round's 20
	// calls of 8 (the same numbers taken as the same calls), wider still.
	merged := LevelVerdict{}
	{
		all, ids := append(append([]float64{}, xs...), xs...), append(append([]int{}, calls...), calls...)
		e := Estimate(all, ids, s.SLO[0])
		merged.SLO = []SLOEstimate{e}
	}
	if width(merged) <= width(with[0]) {
		t.Errorf("rounds pooled as 40 calls %v, as 20 %v: want the rounds' calls apart", width(with[0]), width(merged))
	}
}
