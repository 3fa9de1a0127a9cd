package interval

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
)

// The ranks of the 95 % interval of the median of 20 samples, by hand:
// B ~ Binomial(20, 1/2), P(B <= 5) = 21700/2^20 = 0.02069 <= 0.025 and
// P(B <= 6) = 60460/2^20 = 0.05766 > 0.025, so the lower rank is 6; by
// symmetry P(B >= 15) = 0.02069, so the upper rank is 15, and the coverage
// is 1 - 2·0.02069 = 0.95861.
func TestPercentileRanksMedianOf20(t *testing.T) {
	lo, hi, cov := PercentileRanks(20, 50, Level)
	if lo != 6 || hi != 15 {
		t.Fatalf("ranks = %d, %d, want 6, 15", lo, hi)
	}
	want := 1 - 2*21700.0/(1<<20)
	if math.Abs(cov-want) > 1e-9 {
		t.Fatalf("coverage = %v, want %v", cov, want)
	}
	xs := make([]float64, 20)
	for i := range xs {
		xs[i] = float64(20 - i) // 20, 19, ..., 1: sorted it is 1..20
	}
	ci := PercentileCI(xs, 50)
	if ci.Unbounded || ci.Lo != 6 || ci.Hi != 15 || ci.N != 20 {
		t.Fatalf("interval = %+v, want [6, 15] over 20", ci)
	}
}

// p99 of 20: P(B >= 20) = 0.99^20 = 0.818, so no rank can be the upper
// bound: the interval is unbounded and the figure is "too few samples".
func TestPercentileUnboundedP99Of20(t *testing.T) {
	xs := make([]float64, 20)
	for i := range xs {
		xs[i] = float64(i + 1)
	}
	ci := PercentileCI(xs, 99)
	if !ci.Unbounded || ci.HiRank != 0 {
		t.Fatalf("p99 of 20 = %+v, want unbounded with no upper rank", ci)
	}
	// p95 of 20 is unbounded too (0.95^20 = 0.358); p50 of 20 is not.
	if ci := PercentileCI(xs, 95); !ci.Unbounded {
		t.Fatalf("p95 of 20 = %+v, want unbounded", ci)
	}
	// The fewest samples that bound p95 and p99: 0.95^71 = 0.0262 and
	// 0.95^72 = 0.0249; 0.99^367 = 0.0250 (above 0.025) and 0.99^368 = 0.0247.
	for _, c := range []struct {
		p    float64
		minN int
	}{{50, 6}, {95, 72}, {99, 368}} {
		if lo, hi, _ := PercentileRanks(c.minN-1, c.p, Level); lo > 0 && hi > 0 {
			t.Errorf("p%v of %d bounded, want unbounded", c.p, c.minN-1)
		}
		if lo, hi, _ := PercentileRanks(c.minN, c.p, Level); lo == 0 || hi != c.minN {
			t.Errorf("p%v of %d: ranks %d, %d, want bounded with the largest as upper", c.p, c.minN, lo, hi)
		}
	}
	// With 500 samples p99 is bounded.
	big := make([]float64, 500)
	for i := range big {
		big[i] = float64(i + 1)
	}
	if ci := PercentileCI(big, 99); ci.Unbounded || ci.Lo > 495 || ci.Hi < 495 || ci.Hi > 500 {
		t.Fatalf("p99 of 500 = %+v, want bounded around 495", ci)
	}
}

// A failed request counts above every finite value: when the upper rank
// falls on one, the interval is unbounded; when it falls below them all,
// the failures only push the ranks up.
func TestPercentileFailuresCountAbove(t *testing.T) {
	xs := make([]float64, 0, 40)
	for i := 1; i <= 36; i++ {
		xs = append(xs, float64(i))
	}
	for range 4 {
		xs = append(xs, math.Inf(1))
	}
	xs = append(xs, math.NaN()) // a request without the figure: left out
	ci := PercentileCI(xs, 50)
	lo, hi, _ := PercentileRanks(40, 50, Level)
	if ci.N != 40 || ci.Unbounded || ci.Lo != float64(lo) || ci.Hi != float64(hi) {
		t.Fatalf("median with 4 failures = %+v, want ranks %d..%d over 40", ci, lo, hi)
	}
	if ci := PercentileCI(xs, 90); !ci.Unbounded {
		t.Fatalf("p90 with 4 failures in 40 = %+v: its upper rank falls on a failure, want unbounded", ci)
	}
}

// The interval covers the true median of a known distribution
// (exponential, median ln 2) in at least 93 of 100 seeded trials.
func TestPercentileCoversTrueMedian(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 1))
	covered := 0
	for trial := 0; trial < 100; trial++ {
		xs := make([]float64, 60)
		for i := range xs {
			xs[i] = rng.ExpFloat64()
		}
		ci := PercentileCI(xs, 50)
		if ci.Unbounded {
			t.Fatalf("median of 60 unbounded")
		}
		if ci.Lo <= math.Ln2 && math.Ln2 <= ci.Hi {
			covered++
		}
	}
	if covered < 93 {
		t.Fatalf("covered the true median in %d of 100 trials, want >= 93", covered)
	}
}

// Student's t quantiles against the table (0.975: df 1, 9, 30).
func TestTQuantileTable(t *testing.T) {
	for _, c := range []struct{ df, want float64 }{{1, 12.7062}, {2, 4.3027}, {9, 2.2622}, {30, 2.0423}, {1000, 1.9623}} {
		if got := TQuantile(0.975, c.df); math.Abs(got-c.want) > 5e-4 {
			t.Errorf("t(0.975, %v) = %v, want %v", c.df, got, c.want)
		}
	}
}

// The mean of 10, 12, 14 is 12, s = 2, half-width t(0.975, 2)·2/√3.
func TestMeanCIKnown(t *testing.T) {
	m := MeanCI([]float64{10, 12, 14, math.NaN()})
	h := 4.302653 * 2 / math.Sqrt(3)
	if m.N != 3 || m.Mean != 12 || math.Abs(m.SD-2) > 1e-12 || math.Abs(m.Lo-(12-h)) > 1e-4 || math.Abs(m.Hi-(12+h)) > 1e-4 {
		t.Fatalf("MeanCI = %+v, want 12 ± %v", m, h)
	}
	if !MeanCI([]float64{5}).Unbounded {
		t.Fatalf("the mean of one run has no interval")
	}
}

func lognormal(rng *rand.Rand, n int, scale float64) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = scale * 800 * math.Exp(0.3*rng.NormFloat64())
	}
	return xs
}

// Two samples of one distribution give "no difference detected" in at
// least 90 of 100 seeded trials.
func TestSameDistributionNoDifference(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	none := 0
	for trial := 0; trial < 100; trial++ {
		a, b := lognormal(rng, 200, 1), lognormal(rng, 200, 1)
		r := RatioCI([][]float64{a}, [][]float64{b}, Quantile(50), 500, uint64(trial))
		if Verdicts([]string{"p50"}, []Ratio{r})[0].Verdict == NoDifference {
			none++
		}
	}
	if none < 90 {
		t.Fatalf("no difference in %d of 100 trials, want >= 90", none)
	}
}

// A 20 % shift on 200 samples is detected as slower (and B/A's interval
// holds 1.2), and the reverse as faster.
func TestShiftDetected(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	a, b := lognormal(rng, 200, 1), lognormal(rng, 200, 1.2)
	r := RatioCI([][]float64{a}, [][]float64{b}, Quantile(50), 1000, 42)
	f := Verdicts([]string{"p50"}, []Ratio{r})[0]
	if f.Verdict != Slower || r.Lo > 1.2 || r.Hi < 1.2 || r.Seed != 42 {
		t.Fatalf("20 %% slower B: %+v, ratio %+v", f.Verdict, r)
	}
	r = RatioCI([][]float64{b}, [][]float64{a}, Quantile(50), 1000, 42)
	if v := Verdicts([]string{"p50"}, []Ratio{r})[0].Verdict; v != Faster {
		t.Fatalf("20 %% faster B: %v, ratio %+v", v, r)
	}
}

// The same seed gives the same interval; another seed another one.
func TestRatioSeeded(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	a, b := lognormal(rng, 50, 1), lognormal(rng, 50, 1.1)
	r1 := RatioCI([][]float64{a}, [][]float64{b}, Quantile(95), 300, 11)
	r2 := RatioCI([][]float64{a}, [][]float64{b}, Quantile(95), 300, 11)
	r3 := RatioCI([][]float64{a}, [][]float64{b}, Quantile(95), 300, 12)
	if !reflect.DeepEqual(r1, r2) || r1.Seed != 11 {
		t.Fatalf("same seed, different intervals: %+v %+v", r1, r2)
	}
	if r1.Lo == r3.Lo && r1.Hi == r3.Hi {
		t.Fatalf("seeds 11 and 12 gave the same interval %+v", r1)
	}
}

// With runs that drift, resampling the runs widens the interval: three
// runs per variant drifting ±15 % give a standard error of log(B/A) at
// least twice that of the same samples pooled as one run each, say "no
// difference detected" and ask for more runs than they have.
func TestRunsCarryDrift(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	drift := []float64{0.85, 1.15, 1.0, 0.9, 1.1, 0.95}
	var a, b [][]float64
	for i, d := range drift {
		run := lognormal(rng, 100, d)
		if i%2 == 0 {
			a = append(a, run)
		} else {
			b = append(b, run)
		}
	}
	r := RatioCI(a, b, Quantile(50), 1000, 1)
	pooled := RatioCI([][]float64{pool(a)}, [][]float64{pool(b)}, Quantile(50), 1000, 1)
	if r.SELog < 2*pooled.SELog {
		t.Fatalf("runs resampled: SE %v, pooled: SE %v; want the runs' at least twice", r.SELog, pooled.SELog)
	}
	if f := Verdicts([]string{"p50"}, []Ratio{r})[0]; f.Verdict != NoDifference || f.RunsFor5 <= len(a) {
		t.Fatalf("drifting runs: %v, runs for 5 %%: %d (have %d), ratio %+v", f.Verdict, f.RunsFor5, len(a), r)
	}
}

// Runs needed for 5 %: with SE(log ratio) just under
// log(1.05)/(1.96+0.84) at one run, one run suffices; with just under
// twice that SE, four.
func TestRunsToDetect(t *testing.T) {
	se := math.Log(1.05) / (1.959963984540054 + 0.8416212335729143)
	if n := RunsToDetect(Ratio{SELog: se * 0.999, RunsA: 1, RunsB: 1}, 0.05); n != 1 {
		t.Fatalf("runs = %d, want 1", n)
	}
	if n := RunsToDetect(Ratio{SELog: 2 * se * 0.999, RunsA: 1, RunsB: 1}, 0.05); n != 4 {
		t.Fatalf("runs = %d, want 4", n)
	}
	if n := RunsToDetect(Ratio{Unbounded: true}, 0.05); n != 0 {
		t.Fatalf("unbounded: runs = %d, want 0", n)
	}
}
