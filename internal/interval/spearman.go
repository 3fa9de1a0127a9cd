package interval

import (
	"math"
	"sort"
)

// Rank is Spearman's rank correlation of a series with its order (time):
// Rho in [-1, 1], and P the two-sided p-value of "no trend" (exact over
// every order of the ranks up to ExactRanks values, else Student's t
// with n-2 degrees of freedom). Known is false with fewer than
// MinRanks values or when every value ties: Rho and P are NaN then.
type Rank struct {
	N      int
	Rho, P float64
	Known  bool
}

// MinRanks is the fewest values a rank correlation is tested on: with 4
// the smallest two-sided p-value is 2/24, above any level worth a
// warning.
const MinRanks = 5

// ExactRanks is the most values whose p-value is counted exactly over
// every order of their ranks (8! = 40320 orders).
const ExactRanks = 8

// Spearman is the rank correlation of xs (in time order; NaN left out,
// +Inf above every value) with time: the Pearson correlation of their
// ranks (ties given their mean rank) with 1..n.
func Spearman(xs []float64) Rank {
	var s []float64
	for _, x := range xs {
		if !math.IsNaN(x) {
			s = append(s, x)
		}
	}
	n := len(s)
	out := Rank{N: n, Rho: math.NaN(), P: math.NaN()}
	if n < MinRanks {
		return out
	}
	r := midRanks(s)
	rho := rankCorrelation(r)
	if math.IsNaN(rho) {
		return out
	}
	out.Rho, out.Known = rho, true
	if n <= ExactRanks {
		out.P = exactRankP(r, rho)
		return out
	}
	if math.Abs(rho) >= 1 {
		out.P = 0
		return out
	}
	t := math.Abs(rho) * math.Sqrt(float64(n-2)/(1-rho*rho))
	out.P = math.Min(1, 2*(1-tCDF(t, float64(n-2))))
	return out
}

// midRanks are the 1-based ranks of s, ties given their mean rank.
func midRanks(s []float64) []float64 {
	idx := make([]int, len(s))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return s[idx[a]] < s[idx[b]] })
	r := make([]float64, len(s))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && s[idx[j+1]] == s[idx[i]] {
			j++
		}
		for k := i; k <= j; k++ {
			r[idx[k]] = float64(i+j)/2 + 1
		}
		i = j + 1
	}
	return r
}

// rankCorrelation is the Pearson correlation of r with 1..n; NaN when r
// does not vary.
func rankCorrelation(r []float64) float64 {
	n := float64(len(r))
	mt, mr := (n+1)/2, 0.0
	for _, x := range r {
		mr += x
	}
	mr /= n
	var sxy, sxx, syy float64
	for i, x := range r {
		dt, dr := float64(i+1)-mt, x-mr
		sxy += dt * dr
		sxx += dt * dt
		syy += dr * dr
	}
	if syy == 0 {
		return math.NaN()
	}
	return sxy / math.Sqrt(sxx*syy)
}

// exactRankP is the share of the orders of r whose correlation with time
// is at least as far from 0 as rho (Heap's algorithm over every order).
func exactRankP(r []float64, rho float64) float64 {
	p := append([]float64(nil), r...)
	c := make([]int, len(p))
	far, all := 0, 0
	count := func() {
		all++
		if math.Abs(rankCorrelation(p)) >= math.Abs(rho)-1e-12 {
			far++
		}
	}
	count()
	for i := 0; i < len(p); {
		if c[i] < i {
			if i%2 == 0 {
				p[0], p[i] = p[i], p[0]
			} else {
				p[c[i]], p[i] = p[i], p[c[i]]
			}
			count()
			c[i]++
			i = 0
		} else {
			c[i] = 0
			i++
		}
	}
	return float64(far) / float64(all)
}
