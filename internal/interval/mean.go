package interval

import "math"

// Mean is the t-interval of a mean across runs: each run gives one value
// (its mean, say), the runs are taken as independent draws of one normal
// distribution, and [Lo, Hi] = mean ± t(0.975, n-1)·s/√n. Unbounded with
// fewer than two finite values.
type Mean struct {
	N         int
	Mean      float64
	SD        float64 // sample standard deviation (n-1)
	Lo, Hi    float64
	Unbounded bool
}

// MeanCI returns the Level t-interval of the mean of xs; NaN and ±Inf
// values are left out.
func MeanCI(xs []float64) Mean {
	var s []float64
	for _, x := range xs {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			s = append(s, x)
		}
	}
	out := Mean{N: len(s)}
	if len(s) == 0 {
		out.Unbounded = true
		return out
	}
	sum := 0.0
	for _, x := range s {
		sum += x
	}
	out.Mean = sum / float64(len(s))
	if len(s) < 2 {
		out.Unbounded = true
		return out
	}
	ss := 0.0
	for _, x := range s {
		ss += (x - out.Mean) * (x - out.Mean)
	}
	out.SD = math.Sqrt(ss / float64(len(s)-1))
	h := TQuantile(1-(1-Level)/2, float64(len(s)-1)) * out.SD / math.Sqrt(float64(len(s)))
	out.Lo, out.Hi = out.Mean-h, out.Mean+h
	return out
}

// TQuantile is the p-quantile (0.5 <= p < 1) of Student's t with df
// degrees of freedom, found by bisection on its distribution function.
func TQuantile(p, df float64) float64 {
	lo, hi := 0.0, 1.0
	for tCDF(hi, df) < p {
		hi *= 2
	}
	for i := 0; i < 200; i++ {
		mid := (lo + hi) / 2
		if tCDF(mid, df) < p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// tCDF is P(T <= t) for t >= 0: 1 - I_{df/(df+t²)}(df/2, 1/2)/2.
func tCDF(t, df float64) float64 {
	return 1 - 0.5*regIncBeta(df/2, 0.5, df/(df+t*t))
}

// regIncBeta is the regularized incomplete beta function I_x(a, b), by its
// continued fraction (modified Lentz), using the symmetry
// I_x(a,b) = 1 - I_{1-x}(b,a) where the fraction converges slowly.
func regIncBeta(a, b, x float64) float64 {
	if x <= 0 {
		return 0
	}
	if x >= 1 {
		return 1
	}
	la, _ := math.Lgamma(a)
	lb, _ := math.Lgamma(b)
	lab, _ := math.Lgamma(a + b)
	front := math.Exp(lab - la - lb + a*math.Log(x) + b*math.Log1p(-x))
	if x > (a+1)/(a+b+2) {
		return 1 - regIncBeta(b, a, 1-x)
	}
	const tiny = 1e-300
	f, c, d := 1.0, 1.0, 0.0
	for i := 0; i <= 400; i++ {
		m := float64(i / 2)
		var num float64
		switch {
		case i == 0:
			num = 1
		case i%2 == 0:
			num = m * (b - m) * x / ((a + 2*m - 1) * (a + 2*m))
		default:
			num = -(a + m) * (a + b + m) * x / ((a + 2*m) * (a + 2*m + 1))
		}
		d = 1 + num*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		d = 1 / d
		c = 1 + num/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		cd := c * d
		f *= cd
		if math.Abs(1-cd) < 1e-15 {
			break
		}
	}
	return front * (f - 1) / a
}
