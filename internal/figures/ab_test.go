package figures

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"ttftlab/internal/interval"
)

// lognormalRuns is n runs of per samples each around 800*scale, with a
// spread of about 30 %.
func lognormalRuns(rng *rand.Rand, n, per int, scale float64) [][]Sample {
	runs := make([][]Sample, n)
	for i := range runs {
		vs := make([]float64, per)
		for j := range vs {
			vs[j] = scale * 800 * math.Exp(0.3*rng.NormFloat64())
		}
		runs[i] = []Sample{{Name: "ttft_ms", Unit: "ms", Values: vs}}
	}
	return runs
}

func TestCompareABShiftAndSame(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 2))
	a, b := lognormalRuns(rng, 4, 50, 1), lognormalRuns(rng, 4, 50, 1.2)
	ab := CompareAB(a, b, nil, 5, 0)
	f := ab.Figures[0]
	if len(ab.Figures) != 1 || f.Verdict != interval.Slower || f.Ratio.Lo > 1.2 || f.Ratio.Hi < 1.2 || ab.Seed != 5 || ab.Reps != 1000 || !ab.DriftCovered {
		t.Fatalf("20 %% slower: %+v, ratio %+v", ab, f.Ratio)
	}
	if f.A.N != 200 || f.B.N != 200 || f.A.Runs != 4 || f.RunsFor5 < 1 {
		t.Fatalf("pooled figures: a %+v b %+v runs for 5 %%: %d", f.A, f.B, f.RunsFor5)
	}
	none := 0
	for trial := range 20 {
		a, b := lognormalRuns(rng, 4, 50, 1), lognormalRuns(rng, 4, 50, 1)
		if CompareAB(a, b, nil, uint64(trial), 300).Figures[0].Verdict == interval.NoDifference {
			none++
		}
	}
	if none < 17 {
		t.Fatalf("one distribution: no difference in %d of 20 comparisons", none)
	}
}

func TestCompareABOnlyInAndTooFew(t *testing.T) {
	one := func(name string, v float64) Sample { return Sample{Name: name, Unit: "ms", Values: []float64{v}} }
	a := [][]Sample{{one("ttft_ms", 10), one("extra_ms", 3)}, {one("ttft_ms", 11)}, {one("ttft_ms", 12)}}
	b := [][]Sample{{one("ttft_ms", 100), one("b_only_ms", 1)}, {one("ttft_ms", 110)}, {one("ttft_ms", 120)}}
	ab := CompareAB(a, b, nil, 1, 100)
	if len(ab.Figures) != 3 {
		t.Fatalf("figures: %+v", ab.Figures)
	}
	// 3 against 3 that do not overlap: a bootstrap would say "slower";
	// 3 samples cannot bound their median, and an exact test cannot go
	// below p = 0.1.
	if f := ab.Figures[0]; f.Name != "ttft_ms" || !f.TooFew || f.Verdict != interval.Undecided || f.Ratio.Ratio != 10 || !f.Ratio.Unbounded {
		t.Fatalf("3 against 3: %+v", f)
	}
	if f := ab.Figures[1]; f.Name != "extra_ms" || f.OnlyIn != "A" || f.B != nil || f.A == nil || f.Verdict != "" {
		t.Fatalf("only in A: %+v", f)
	}
	if f := ab.Figures[2]; f.Name != "b_only_ms" || f.OnlyIn != "B" || f.A != nil || f.B == nil {
		t.Fatalf("only in B: %+v", f)
	}
	// 5 against 5: still too few to bound a median (6 are needed).
	for i := 13; i <= 14; i++ {
		a = append(a, []Sample{one("ttft_ms", float64(i))})
		b = append(b, []Sample{one("ttft_ms", float64(10*i))})
	}
	if f := CompareAB(a, b, nil, 1, 1000).Figures[0]; !f.TooFew {
		t.Fatalf("5 against 5: %+v", f)
	}
	a = append(a, []Sample{one("ttft_ms", 15)})
	b = append(b, []Sample{one("ttft_ms", 150)})
	if f := CompareAB(a, b, nil, 1, 1000).Figures[0]; f.TooFew || f.Verdict != interval.Slower {
		t.Fatalf("6 against 6 apart: %+v", f)
	}
	// p95 of the same 6: unbounded, too few; the median still compared.
	ab = CompareAB(a, b, []string{"p50", "p95"}, 1, 1000)
	if f := ab.Figures[1]; f.Stat != "p95" || !f.TooFew || ab.Figures[0].Stat != "p50" || ab.Figures[0].TooFew {
		t.Fatalf("p95 of 6: %+v", ab.Figures)
	}
}

func TestExactTestPossible(t *testing.T) {
	for _, c := range []struct {
		a, b int
		want bool
	}{{3, 3, false}, {4, 4, true}, {2, 7, false}, {2, 8, true}, {1, 38, false}, {1, 39, true}, {0, 100, false}} {
		if got := ExactTestPossible(c.a, c.b); got != c.want {
			t.Errorf("ExactTestPossible(%d, %d) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

func TestABBAOrder(t *testing.T) {
	if got, want := ABBAOrder(4), []string{"A", "B", "B", "A", "A", "B", "B", "A"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("ABBAOrder(4) = %v", got)
	}
	if got, want := ABBAOrder(1), []string{"A", "B"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("ABBAOrder(1) = %v", got)
	}
	if got, want := ABBAOrder(3), []string{"A", "B", "B", "A", "A", "B"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("ABBAOrder(3) = %v", got)
	}
}

// Over 30 figures Holm's finest level is 1 - 0.05/30: 100 replicates
// cannot resolve it, so CompareAB draws as many as interval.RepsFor
// asks, and every figure has an interval at its level, one that excludes
// 1 exactly when its verdict is faster or slower.
func TestCompareABRepsForHolm(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 30))
	var a, b [][]Sample
	for range 2 {
		var ra, rb []Sample
		for i := range 30 {
			name := "f" + string(rune('a'+i%26)) + string(rune('a'+i/26))
			scale := 1 + float64(i%3)*0.15
			ra = append(ra, Sample{Name: name, Unit: "ms", Values: lognormalRuns(rng, 1, 20, 1)[0][0].Values})
			rb = append(rb, Sample{Name: name, Unit: "ms", Values: lognormalRuns(rng, 1, 20, scale)[0][0].Values})
		}
		a, b = append(a, ra), append(b, rb)
	}
	ab := CompareAB(a, b, nil, 3, 100)
	if ab.Reps != interval.RepsFor(30) {
		t.Fatalf("reps %d, want %d", ab.Reps, interval.RepsFor(30))
	}
	decided := 0
	for _, f := range ab.Figures {
		r := f.Ratio
		if r.Unbounded || r.Reps != ab.Reps || !(r.Level >= interval.Level && r.Level <= 1-interval.Alpha/30+1e-12) {
			t.Fatalf("%s: %+v", f.Name, r)
		}
		excludes := r.Lo > 1 || r.Hi < 1
		if excludes != (f.Verdict == interval.Faster || f.Verdict == interval.Slower) {
			t.Fatalf("%s: %s with [%v, %v] at %v", f.Name, f.Verdict, r.Lo, r.Hi, r.Level)
		}
		if excludes {
			decided++
		}
	}
	if decided == 0 {
		t.Fatalf("no figure decided: the test does not reach a significant one")
	}
}

// TestCompareABAllZero: a time that is 0 in every sample of both variants
// (no stall in any run) is "no difference detected" with B/A 1 [1, 1],
// not "too few samples" (B/A of 0 is no ratio a bootstrap can draw);
// with too few samples it stays too few, and 0 in A alone is not taken
// for equal.
func TestCompareABAllZero(t *testing.T) {
	zeros := func(n int) []float64 { return make([]float64, n) }
	run := func(vs []float64) [][]Sample { return [][]Sample{{{Name: "stall_ms", Unit: "ms", Values: vs}}} }
	for _, c := range []struct {
		name    string
		a, b    []float64
		want    interval.Verdict
		allZero bool
	}{
		{"both zero", zeros(6), zeros(6), interval.NoDifference, true},
		{"too few", zeros(2), zeros(2), interval.Undecided, false},
		{"A zero only", zeros(6), []float64{0, 0, 3, 4, 5, 6}, interval.Undecided, false},
	} {
		r := CompareAB(run(c.a), run(c.b), nil, 7, 200)
		f := r.Figures[0]
		if f.Verdict != c.want || f.AllZero != c.allZero {
			t.Errorf("%s: verdict %q all zero %v, want %q %v", c.name, f.Verdict, f.AllZero, c.want, c.allZero)
		}
		if c.allZero && (f.Ratio.Unbounded || f.Ratio.Ratio != 1 || f.Ratio.Lo != 1 || f.Ratio.Hi != 1) {
			t.Errorf("%s: ratio %+v, want 1 [1, 1]", c.name, f.Ratio)
		}
	}
}
