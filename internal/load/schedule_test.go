package load

import (
	"math"
	"testing"
	"time"
)

func TestConstantArrivals(t *testing.T) {
	t.Parallel()
	p := Plan{Rate: 3, Arrival: Constant}
	for i, at := range p.Arrivals(1000) {
		if want := time.Duration(float64(i) / 3 * float64(time.Second)); at != want {
			t.Fatalf("call %d due at %v, want %v", i+1, at, want)
		}
	}
	if got := (Plan{Concurrency: 4}).Arrivals(3); got != nil {
		t.Errorf("a closed loop has arrivals %v, want none", got)
	}
}

// TestPoissonArrivals: the same seed gives the same arrivals, another seed
// others, and the gaps are exponential of mean 1/rate: their mean and the
// share longer than the mean (e^-1) within six standard errors of n draws.
func TestPoissonArrivals(t *testing.T) {
	t.Parallel()
	const n, rate = 20000, 50.0
	p := Plan{Rate: rate, Arrival: Poisson, Seed: 7}
	a, b := p.Arrivals(n), p.Arrivals(n)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("call %d: %v and %v from the same seed", i+1, a[i], b[i])
		}
	}
	p.Seed = 8
	if c := p.Arrivals(3); c[1] == a[1] && c[2] == a[2] {
		t.Errorf("seeds 7 and 8 gave the same arrivals %v", c)
	}
	mean := 1 / rate
	sum, long := 0.0, 0
	for i := 1; i < n; i++ {
		gap := (a[i] - a[i-1]).Seconds()
		if gap < 0 {
			t.Fatalf("call %d arrives before call %d", i+1, i)
		}
		sum += gap
		if gap > mean {
			long++
		}
	}
	gaps := float64(n - 1)
	if got, se := sum/gaps, mean/math.Sqrt(gaps); math.Abs(got-mean) > 6*se {
		t.Errorf("mean gap %.6f s over %d gaps, want %.6f ± %.6f (6 standard errors)", got, n-1, mean, 6*se)
	}
	pl := math.Exp(-1)
	if got, se := float64(long)/gaps, math.Sqrt(pl*(1-pl)/gaps); math.Abs(got-pl) > 6*se {
		t.Errorf("%.4f of the gaps are longer than the mean, want e^-1 = %.4f ± %.4f", got, pl, 6*se)
	}
}

// TestThinkTime: a number, a uniform range drawn from the seed, the call
// and the turn alone (so the order in which turns end cannot change it),
// or a function.
func TestThinkTime(t *testing.T) {
	t.Parallel()
	fixed := Plan{Think: Think{Min: 1500 * time.Millisecond}}
	if d, err := fixed.ThinkTime(3, 2); d != 1500*time.Millisecond || err != nil {
		t.Errorf("a fixed think time gave %v, %v", d, err)
	}
	lo, hi := time.Second, 3*time.Second
	p := Plan{Seed: 7, Think: Think{Min: lo, Max: hi}}
	const calls, turns = 400, 50
	first := map[[2]int]time.Duration{}
	sum := 0.0
	for call := 1; call <= calls; call++ {
		for turn := 2; turn <= turns; turn++ {
			d, _ := p.ThinkTime(call, turn)
			if d < lo || d >= hi {
				t.Fatalf("call %d turn %d: %v outside [%v, %v)", call, turn, d, lo, hi)
			}
			first[[2]int{call, turn}] = d
			sum += d.Seconds()
		}
	}
	for call := calls; call >= 1; call-- { // the other way round: the same times
		for turn := turns; turn >= 2; turn-- {
			if d, _ := p.ThinkTime(call, turn); d != first[[2]int{call, turn}] {
				t.Fatalf("call %d turn %d: %v, then %v", call, turn, first[[2]int{call, turn}], d)
			}
		}
	}
	n := float64(len(first))
	mean, se := 2.0, (hi-lo).Seconds()/math.Sqrt(12)/math.Sqrt(n)
	if got := sum / n; math.Abs(got-mean) > 6*se {
		t.Errorf("mean think time %.4f s over %.0f draws, want %.1f ± %.4f", got, n, mean, 6*se)
	}
	other := Plan{Seed: 8, Think: p.Think}
	same := 0
	for turn := 2; turn <= turns; turn++ {
		if d, _ := other.ThinkTime(1, turn); d == first[[2]int{1, turn}] {
			same++
		}
	}
	if same > 0 {
		t.Errorf("seeds 7 and 8 drew %d equal think times out of %d", same, turns-1)
	}
	byFunc := Plan{Think: Think{Min: lo, Max: hi, Func: func(call, turn int) (time.Duration, error) {
		return time.Duration(call*100+turn) * time.Millisecond, nil
	}}}
	if d, _ := byFunc.ThinkTime(2, 3); d != 203*time.Millisecond {
		t.Errorf("Think.Func(2, 3) gave %v, want 203ms", d)
	}
}

// TestCallDraw: each call's draw lies in [0, 1), the same seed gives the
// same draws, calls of one plan differ from each other, and another seed
// gives others.
func TestCallDraw(t *testing.T) {
	t.Parallel()
	p := Plan{Seed: 7}
	seen := map[float64]bool{}
	for call := 1; call <= 100; call++ {
		u := p.CallDraw(call)
		if u < 0 || u >= 1 || u != p.CallDraw(call) {
			t.Fatalf("call %d: draw %v, then %v", call, u, p.CallDraw(call))
		}
		seen[u] = true
	}
	if len(seen) < 100 {
		t.Errorf("100 calls, %d distinct draws", len(seen))
	}
	if q := (Plan{Seed: 8}); q.CallDraw(1) == p.CallDraw(1) && q.CallDraw(2) == p.CallDraw(2) {
		t.Errorf("seeds 7 and 8 gave the same draws")
	}
}
