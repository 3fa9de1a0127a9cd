package interval

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

var inf = math.Inf(1)

// Late's value by hand: the percentile rule over the values with the late
// ones last, none when it falls on a late one or between a value and one.
func TestLateValues(t *testing.T) {
	for _, c := range []struct {
		name  string
		xs    []float64
		late  int
		p     float64
		n     int
		nLate int
		want  float64 // +Inf: none; NaN: no values
	}{
		{"p90 of 1..5", []float64{5, 3, 1, 4, 2}, 0, 90, 5, 0, 4.6},
		{"p50 of 1, 2 and a late one falls on 2", []float64{2, 1}, 1, 50, 3, 1, 2},
		{"p50 of 1, 2 and two late ones falls between 2 and late", []float64{1, 2}, 2, 50, 4, 2, inf},
		{"+Inf in xs counts as late", []float64{1, inf, 2}, 1, 50, 4, 2, inf},
		{"p25 of 1, 2 and two late ones", []float64{1, 2, inf}, 1, 25, 4, 2, 1.75},
		{"NaN left out", []float64{math.NaN(), 3}, 0, 50, 1, 0, 3},
		{"only late ones", nil, 3, 50, 3, 3, inf},
		{"nothing", nil, 0, 50, 0, 0, math.NaN()},
	} {
		xs := slices.Clone(c.xs)
		l := Late(xs, c.late, c.p)
		if !slices.EqualFunc(xs, c.xs, func(a, b float64) bool { return a == b || a != a && b != b }) {
			t.Errorf("%s: xs changed to %v", c.name, xs)
		}
		same := l.Value == c.want || math.IsNaN(l.Value) && math.IsNaN(c.want)
		if !same || l.N != c.n || l.Late != c.nLate || l.P != c.p {
			t.Errorf("%s: %+v, want value %v over %d with %d late", c.name, l, c.want, c.n, c.nLate)
		}
		if known := !math.IsInf(c.want, 0) && !math.IsNaN(c.want); l.Known() != known {
			t.Errorf("%s: Known %v, want %v", c.name, l.Known(), known)
		}
	}
}

// Late's interval: the median of 20 is [x(6), x(15)]; a bound on a late
// value is +Inf; a side that n cannot bound is -Inf below, +Inf above.
func TestLateBounds(t *testing.T) {
	xs := make([]float64, 20)
	for i := range xs {
		xs[i] = float64(20 - i)
	}
	l := Late(xs, 0, 50)
	if !l.Bounded() || !l.Finite() || l.LoRank != 6 || l.HiRank != 15 || l.Lo != 6 || l.Hi != 15 ||
		math.Abs(l.Coverage-(1-2*21700.0/(1<<20))) > 1e-9 {
		t.Errorf("median of 1..20: %+v, want [6, 15]", l)
	}
	// 36 values and 4 late: p90's upper rank falls on a late one, its
	// lower rank on a value, and the value itself between 36 and a late one.
	var some []float64
	for i := 1; i <= 36; i++ {
		some = append(some, float64(i))
	}
	l = Late(some, 4, 90)
	lo, hi, _ := PercentileRanks(40, 90, Level)
	if !l.Bounded() || l.Finite() || l.Lo != float64(lo) || hi <= 36 || !math.IsInf(l.Hi, 1) || l.Known() {
		t.Errorf("p90 of 36 and 4 late: %+v, want [x(%d), late] and no value", l, lo)
	}
	// Late ones only above a value: the interval lies above every limit.
	l = Late([]float64{1}, 10, 50)
	if !math.IsInf(l.Lo, 1) || !math.IsInf(l.Hi, 1) || !l.Bounded() || l.Known() {
		t.Errorf("p50 of 1 and 10 late: %+v, want both bounds late", l)
	}
	// Too few values: p99 of 20 has no upper rank, p1 of 20 no lower one,
	// the median of 5 neither; the median of 6 is [x(1), x(6)].
	if l := Late(xs, 0, 99); l.HiRank != 0 || !math.IsInf(l.Hi, 1) || l.Bounded() || l.Finite() || !l.Known() {
		t.Errorf("p99 of 20: %+v, want no upper bound but a value", l)
	}
	if l := Late(xs, 0, 1); l.LoRank != 0 || !math.IsInf(l.Lo, -1) || l.Bounded() {
		t.Errorf("p1 of 20: %+v, want no lower bound", l)
	}
	if l := Late(xs[:5], 0, 50); l.LoRank != 0 || l.HiRank != 0 || l.Bounded() || l.Coverage != 0 {
		t.Errorf("median of 5: %+v, want unbounded", l)
	}
	if l := Late(xs[:6], 0, 50); !l.Finite() || l.Lo != 15 || l.Hi != 20 {
		t.Errorf("median of 20..15: %+v, want [15, 20]", l)
	}
}

// Late against brute force on random inputs: the value by the 1-based
// rank h = 1 + (n-1)p/100 over the sorted values (none when a rank it
// uses is late), and the bounds as the order statistics whose ranks a
// binomial CDF summed term by term gives.
func TestLateBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 32))
	ps := []float64{1, 5, 10, 25, 50, 75, 90, 95, 99}
	for trial := range 3000 {
		n := rng.IntN(90)
		var xs []float64
		for range n {
			switch u := rng.Float64(); {
			case u < 0.05:
				xs = append(xs, math.NaN())
			case u < 0.12:
				xs = append(xs, inf)
			default:
				xs = append(xs, math.Round(rng.ExpFloat64()*1000)/10)
			}
		}
		late := 0
		if rng.IntN(3) == 0 {
			late = rng.IntN(10)
		}
		p := ps[rng.IntN(len(ps))]
		if trial%4 == 0 {
			p = 0.5 + 99*rng.Float64()
		}
		l := Late(xs, late, p)

		var s []float64
		for _, x := range xs {
			if !math.IsNaN(x) {
				s = append(s, x)
			}
		}
		for range late {
			s = append(s, inf)
		}
		slices.Sort(s)
		m, nLate := len(s), 0
		for _, x := range s {
			if math.IsInf(x, 1) {
				nLate++
			}
		}
		if l.N != m || l.Late != nLate {
			t.Fatalf("trial %d: n %d late %d, want %d and %d", trial, l.N, l.Late, m, nLate)
		}
		if m == 0 {
			if l.Known() || l.Bounded() {
				t.Fatalf("trial %d: nothing gave %+v", trial, l)
			}
			continue
		}
		h := 1 + float64(m-1)*p/100
		r := int(math.Floor(h))
		frac := h - float64(r)
		switch {
		case math.IsInf(s[r-1], 1) || frac > 0 && math.IsInf(s[r], 1):
			if l.Known() {
				t.Fatalf("trial %d: p%g of %v: %v, want none", trial, p, s, l.Value)
			}
		default:
			want := s[r-1]
			if frac > 0 {
				want += frac * (s[r] - s[r-1])
			}
			if !l.Known() || math.Abs(l.Value-want) > 1e-9*math.Max(1, want) {
				t.Fatalf("trial %d: p%g of %v: %v, want %v", trial, p, s, l.Value, want)
			}
		}

		// P(B < r) for B ~ Binomial(m, p/100), summed from the terms'
		// recurrence pmf(k+1) = pmf(k)·(m-k)/(k+1)·q/(1-q).
		q := p / 100
		below := make([]float64, m+2) // below[r] = P(B < r)
		pmf := math.Pow(1-q, float64(m))
		for k := 0; k <= m; k++ {
			below[k+1] = below[k] + pmf
			pmf *= float64(m-k) / float64(k+1) * q / (1 - q)
		}
		wantLo, wantHi := 0, 0
		for r := 1; r <= m; r++ {
			if below[r] <= 0.025+1e-12 {
				wantLo = r
			}
			if wantHi == 0 && 1-below[r] <= 0.025+1e-12 {
				wantHi = r
			}
		}
		if l.LoRank != wantLo || l.HiRank != wantHi {
			t.Fatalf("trial %d: p%g of %d: ranks %d, %d, want %d, %d", trial, p, m, l.LoRank, l.HiRank, wantLo, wantHi)
		}
		wantL, wantH := math.Inf(-1), inf
		if wantLo > 0 {
			wantL = s[wantLo-1]
		}
		if wantHi > 0 {
			wantH = s[wantHi-1]
		}
		if l.Lo != wantL || l.Hi != wantH {
			t.Fatalf("trial %d: p%g of %v: [%v, %v], want [%v, %v]", trial, p, s, l.Lo, l.Hi, wantL, wantH)
		}
		if ci := PercentileCI(append(xs, slices.Repeat([]float64{inf}, late)...), p); ci.Unbounded == l.Finite() ||
			l.Finite() && (ci.Lo != l.Lo || ci.Hi != l.Hi) {
			t.Fatalf("trial %d: PercentileCI %+v against Late %+v", trial, ci, l)
		}
	}
}
