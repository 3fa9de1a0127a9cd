package load_test

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"ttftlab/internal/artifact"
	"ttftlab/internal/load"
	"ttftlab/internal/loadtext"
)

// untilSettings are a sweep's settings run until decided: 20 calls a
// round, the first sentence's p50 within limit, the budget u.
func untilSettings(limit float64, u artifact.UntilDecided, levels ...float64) artifact.LoadSettings {
	set := settingsOf("concurrency", levels...)
	set.SLO = []artifact.SLO{{Metric: "first_sentence_ms", Percentile: 50, LimitMs: limit, Text: "first_sentence_ms<=300@p50"}}
	set.UntilDecided = &u
	return set
}

// straddles says whether an SLO verdict of a level is undecided.
func straddles(l artifact.LoadLevel) bool {
	for _, v := range l.SLO {
		if v.Side == "straddles" {
			return true
		}
	}
	return false
}

// TestSweepUntilDecided: each level gets further rounds of its calls,
// the same K, while an SLO's interval holds its limit, and none once
// every interval lies on one side: after each round but its last the
// level's record (over every round so far) was undecided, after the last
// it is decided; the record counts every round's requests, and says how
// many rounds and requests decided it. Level 2, near the limit, needs
// more than one round; 1 and 4, far from it, one.
func TestSweepUntilDecided(t *testing.T) {
	t.Parallel()
	set := untilSettings(300, artifact.UntilDecided{BudgetRequests: 1000}, 1, 2, 4)
	first := func(level float64, round, i int) float64 {
		if level == 2 {
			return 230 + 100*hash(level, round, i)
		}
		return 100*level + 30*hash(level, round, i)
	}
	f, s := &fakeRunner{}, &saves{}
	doc, console, err := sweepOf(t, scenario{"until decided", set, made{first: first}}, f, s)
	if err != nil {
		t.Fatal(err)
	}
	ran := map[float64]int{}
	for _, rd := range f.rounds {
		ran[rd.Level]++
		if k := map[float64]int{1: 0, 2: 1, 4: 2}[rd.Level]; rd.K != k || rd.Round != ran[rd.Level] || rd.Calls != 20 {
			t.Errorf("round %+v: want K %d, round %d, 20 calls", rd, k, ran[rd.Level])
		}
	}
	if ran[1] != 1 || ran[4] != 1 || ran[2] < 2 {
		t.Fatalf("rounds per level %v: want one at 1 and 4, more at 2", ran)
	}
	// The saves after each round: the level's record so far.
	i := 1
	for k, level := range []float64{1, 2, 4} {
		for r := 1; r <= ran[level]; r++ {
			l := s.docs[i].Levels[k]
			i++
			if last := r == ran[level]; straddles(l) == last || l.Summary.Requests != 20*r || l.Decision == nil ||
				l.Decision.Rounds != r || (l.Decision.Ended == load.EndedDecided) != last {
				t.Errorf("level %g after round %d of %d: %d requests, undecided %v, decision %+v", level, r, ran[level],
					l.Summary.Requests, straddles(l), l.Decision)
			}
		}
	}
	for _, l := range doc.Levels {
		d := l.Decision
		if d == nil || !d.Decided || d.Ended != "decided" || d.Requests != 20*ran[l.Level] || len(d.Undecided) != 0 ||
			l.SLO[0].CIMs == nil || l.Summary.Requests != 20*ran[l.Level] {
			t.Errorf("level %g: decision %+v, %d requests", l.Level, d, l.Summary.Requests)
		}
	}
	if c := doc.Capacity; c == nil || c.Level != 2 {
		t.Errorf("capacity %+v, want 2", c)
	}
	n := strconv.Itoa(20 * ran[2])
	for _, want := range []string{"  2 round 2: 40 requests so far: first_sentence_ms p50 ", fmt.Sprintf("\n%-8s %6d %12s", "2", 20*ran[2], n+"/"+n),
		"decided after " + strconv.Itoa(ran[2]) + " rounds, " + strconv.Itoa(20*ran[2]) + " requests\n", "until decided: every level's verdict decided\n"} {
		if !strings.Contains(console, want) {
			t.Errorf("console lacks %q:\n%s", want, console)
		}
	}
}

// TestSweepUntilBudget: a level whose first sentence sits at the limit
// gets rounds until its budget of requests is spent (100: five rounds
// of 20), then says it is undecided, its undecided verdict with
// MoreToDecide's count, on the console under the level and at the end.
func TestSweepUntilBudget(t *testing.T) {
	t.Parallel()
	set := untilSettings(300, artifact.UntilDecided{BudgetRequests: 100}, 1)
	first := func(level float64, round, i int) float64 { return 250 + 100*hash(level, round, i) }
	f := &fakeRunner{}
	doc, console, err := sweepOf(t, scenario{"until budget", set, made{first: first}}, f, &saves{})
	if err != nil {
		t.Fatal(err)
	}
	l := doc.Levels[0]
	d := l.Decision
	if len(f.rounds) != 5 || d == nil || d.Decided || d.Ended != "budget" || d.Rounds != 5 || d.Requests != 100 ||
		l.Summary.Requests != 100 || len(d.Undecided) != 1 {
		t.Fatalf("%d rounds, decision %+v", len(f.rounds), d)
	}
	u := d.Undecided[0]
	if want := load.MoreToDecide(l.SLO[0]); !reflect.DeepEqual(u, want) || u.MoreRequests == nil && u.Why == "" {
		t.Errorf("undecided %+v, want MoreToDecide's %+v", u, want)
	}
	for _, want := range []string{"(limit 300 ms, n=100): met (undecided: the interval holds the limit)\n",
		"  undecided after 5 rounds, 100 requests: --budget 100 requests leaves no further round\n",
		"    first_sentence_ms p50 (n=100): " + loadtext.MoreText(u) + "\n",
		"until decided: undecided after --budget 100 requests: at 1: first_sentence_ms p50 ("} {
		if !strings.Contains(console, want) {
			t.Errorf("console lacks %q:\n%s", want, console)
		}
	}
}

// TestSweepUntilBudgetOfTime: a budget of time starts a further round
// only when the rounds so far and one as long as the last fit in it:
// the level ran k rounds, k-1 and one more as long as the (k-1)-th fit,
// k and one more as long as the k-th do not.
func TestSweepUntilBudgetOfTime(t *testing.T) {
	t.Parallel()
	const budget = 3000
	set := untilSettings(300, artifact.UntilDecided{BudgetMs: budget}, 1)
	m := made{first: func(level float64, round, i int) float64 { return 250 + 100*hash(level, round, i) }}
	f := &fakeRunner{}
	doc, _, err := sweepOf(t, scenario{"until time", set, m}, f, &saves{})
	if err != nil {
		t.Fatal(err)
	}
	var spent []float64 // after each round
	sum := 0.0
	var each []float64
	for _, rd := range f.rounds {
		d := *m.result(set, rd).Extras.DurationMs
		sum += d
		spent, each = append(spent, sum), append(each, d)
	}
	k := len(spent)
	if k < 2 || spent[k-2]+each[k-2] > budget || spent[k-1]+each[k-1] <= budget {
		t.Errorf("%d rounds, spent %v: a round too many or too few for %d ms", k, spent, budget)
	}
	if got := doc.Levels[0].Summary.DurationMs; math.Abs(got-spent[k-1]) > 0.01 || doc.Levels[0].Decision.Ended != "budget" {
		t.Errorf("the level's duration %g, want the rounds' %g; decision %+v", got, spent[k-1], doc.Levels[0].Decision)
	}
}

// TestSweepUntilDecidedSearch: a search run until decided gives each
// level it tries its rounds one after another, until its verdict is
// settled (an SLO above its limit, or every one below), and none on its
// own after: no level is run again once the search has left it, each
// path step says its round, and the capacity is decided.
func TestSweepUntilDecidedSearch(t *testing.T) {
	t.Parallel()
	set := searchSettings("concurrency", 16, 0, 642)
	set.UntilDecided = &artifact.UntilDecided{BudgetRequests: 400}
	f := &fakeRunner{}
	doc, _, err := sweepOf(t, scenario{"search until decided", set, made{first: linear(100, 60)}}, f, &saves{})
	if err != nil {
		t.Fatal(err)
	}
	left := map[float64]bool{}
	var last float64
	ran := map[float64]int{}
	for _, rd := range f.rounds {
		if rd.Level != last {
			if left[rd.Level] {
				t.Errorf("level %g run again after the search left it: %v", rd.Level, f.rounds)
			}
			left[last] = true
			last = rd.Level
		}
		ran[rd.Level]++
	}
	for _, l := range doc.Levels {
		if d := l.Decision; d == nil || d.Ended != "decided" || d.Rounds != ran[l.Level] || l.Pooled == nil || l.Pooled.Rounds != d.Rounds ||
			!l.Pooled.Decided || l.Summary.Requests != 20*d.Rounds {
			t.Errorf("level %g: decision %+v, pooled %+v, ran %d rounds", l.Level, d, l.Pooled, ran[l.Level])
		}
	}
	c := doc.Capacity
	if c == nil || c.Level != 6 || c.Decided == nil || !*c.Decided || len(c.Search) != len(f.rounds) {
		t.Fatalf("capacity %+v, want 6 decided, a step a round", c)
	}
	more := false
	for _, st := range c.Search {
		more = more || st.Round > 1
	}
	if !more {
		t.Errorf("no level needed a second round: the test does not try the rounds (%v)", ran)
	}
}

// TestSweepUntilStopped: a stop in a level's further round makes the
// level's record of every round's rows, the stopped one's kept rows
// included (7 of its 20; none when it stopped before its first request
// ended, which then counts as no round), marked interrupted, its
// decision "interrupted".
func TestSweepUntilStopped(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ keep, requests, rounds int }{{7, 47, 3}, {0, 40, 2}} {
		set := untilSettings(300, artifact.UntilDecided{BudgetRequests: 100}, 1)
		stop := errors.New("stopped")
		f := &fakeRunner{stopAt: 3, keep: c.keep, err: stop}
		doc, _, err := sweepOf(t, scenario{"until stopped", set, made{first: func(level float64, round, i int) float64 {
			return 250 + 100*hash(level, round, i)
		}}}, f, &saves{})
		if !errors.Is(err, stop) {
			t.Fatalf("error %v, want the runner's", err)
		}
		if len(doc.Levels) != 1 {
			t.Fatalf("levels %v", levelsOf(doc.Levels))
		}
		l := doc.Levels[0]
		if !l.Interrupted || l.Summary.Requests != c.requests || l.Decision == nil || l.Decision.Ended != "interrupted" ||
			l.Decision.Rounds != c.rounds {
			t.Errorf("kept %d: interrupted %v, %d requests, decision %+v; want %d requests over %d rounds", c.keep, l.Interrupted,
				l.Summary.Requests, l.Decision, c.requests, c.rounds)
		}
	}
}

// TestMoreToDecide: the half-width on the limit's side shrinks as
// 1/sqrt(n): 100 requests whose p50 is 600 [550, 700] under a limit of
// 650 need 400 (300 more), [550, 650.5] 102.01 (3 more); above the
// limit the lower half-width counts;
// a side not yet bounded gives the fewest requests that bound it; a
// value at the limit or on a failed request gives no count.
func TestMoreToDecide(t *testing.T) {
	t.Parallel()
	ms := func(x float64) *float64 { return &x }
	for _, c := range []struct {
		name    string
		v       artifact.SLOVerdict
		more    int // -1: none
		atLeast bool
		why     string
	}{
		{"below", artifact.SLOVerdict{N: 100, Percentile: 50, LimitMs: 650, ValueMs: ms(600), CIMs: &[2]*float64{ms(550), ms(700)}}, 300, false, ""},
		{"above", artifact.SLOVerdict{N: 100, Percentile: 50, LimitMs: 650, ValueMs: ms(700), CIMs: &[2]*float64{ms(600), ms(720)}}, 300, false, ""},
		{"nearly decided", artifact.SLOVerdict{N: 100, Percentile: 50, LimitMs: 650, ValueMs: ms(600), CIMs: &[2]*float64{ms(550), ms(650.5)}}, 3, false, ""},
		{"p95 of 20", artifact.SLOVerdict{N: 20, Percentile: 95, LimitMs: 800, ValueMs: ms(600), CIMs: &[2]*float64{ms(500), nil}}, 52, true, ""},
		{"at the limit", artifact.SLOVerdict{N: 100, Percentile: 50, LimitMs: 650, ValueMs: ms(650), CIMs: &[2]*float64{ms(600), ms(700)}}, -1, false, "sits at the limit"},
		{"late", artifact.SLOVerdict{N: 100, Percentile: 95, LimitMs: 650, CIMs: &[2]*float64{ms(600), nil}}, -1, false, "falls on a failed"},
		{"late bound", artifact.SLOVerdict{N: 100, Percentile: 95, LimitMs: 650, ValueMs: ms(600), CIMs: &[2]*float64{ms(550), nil}}, -1, false, "upper bound falls on a failed"},
	} {
		u := load.MoreToDecide(c.v)
		got := -1
		if u.MoreRequests != nil {
			got = *u.MoreRequests
		}
		if got != c.more || u.AtLeast != c.atLeast || !strings.Contains(u.Why, c.why) || (c.why == "") != (u.Why == "") {
			t.Errorf("%s: %d more (at least %v, why %q), want %d (%v, %q)", c.name, got, u.AtLeast, u.Why, c.more, c.atLeast, c.why)
		}
	}
}
