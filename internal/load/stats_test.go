package load

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
)

// A distribution's record carries the 95 % interval of p50, p95 and p99
// over the same values: over 20 values the median lies between the 6th and
// 15th smallest (B ~ Binomial(20, 1/2), P(B <= 5) = 0.0207), while p95 and
// p99 of 20 cannot be bounded and are null ("too few samples"). Fails
// before this change: the record has no p50_ci.
func TestRecordPercentileIntervals(t *testing.T) {
	t.Parallel()
	xs := []float64{math.NaN(), math.Inf(1)}
	for i := 20; i >= 1; i-- {
		xs = append(xs, float64(10*i))
	}
	rec := Summarize(xs, nil).Record("requests")
	if rec.N != 20 || rec.P50CI == nil || *rec.P50CI != [2]float64{60, 150} {
		t.Fatalf("p50_ci = %v over %d, want [60 150] over 20", rec.P50CI, rec.N)
	}
	if *rec.P50 < rec.P50CI[0] || *rec.P50 > rec.P50CI[1] {
		t.Fatalf("p50 %v outside its interval %v", *rec.P50, *rec.P50CI)
	}
	if rec.P95CI != nil || rec.P99CI != nil {
		t.Fatalf("p95_ci %v, p99_ci %v over 20 values, want null", rec.P95CI, rec.P99CI)
	}
	data, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"p50_ci":[60,150]`, `"p95_ci":null`, `"p99_ci":null`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("record %s lacks %s", data, want)
		}
	}
	// 400 values bound all three, each interval holding its estimate.
	var many []float64
	for i := 1; i <= 400; i++ {
		many = append(many, float64(i))
	}
	rec = Summarize(many, nil).Record("requests")
	for name, c := range map[string]struct {
		est *float64
		ci  *[2]float64
	}{"p50": {rec.P50, rec.P50CI}, "p95": {rec.P95, rec.P95CI}, "p99": {rec.P99, rec.P99CI}} {
		if c.ci == nil || *c.est < c.ci[0] || *c.est > c.ci[1] || c.ci[0] >= c.ci[1] {
			t.Errorf("%s of 400 = %v, interval %v", name, *c.est, c.ci)
		}
	}
	// No values: every interval null.
	if rec := Summarize(nil, nil).Record("requests"); rec.P50CI != nil || rec.P95CI != nil || rec.P99CI != nil {
		t.Fatalf("n = 0: intervals %v %v %v, want null", rec.P50CI, rec.P95CI, rec.P99CI)
	}
}

// A record keeps each time to the microsecond, as the files hold it, so a
// value printed from the record and the same value read back from the
// file round alike: 7.8500004 is 7.85 in both (it printed "7.9" on the
// console beside a load.json whose 7.85 prints "7.8"). Fails before this
// change: the record held the unrounded values.
func TestRecordKeepsTheMicrosecond(t *testing.T) {
	t.Parallel()
	var xs []float64
	for i := 0; i < 12; i++ {
		xs = append(xs, 0.5*float64(i)+0.0000004)
	}
	xs[11] = 7.8500004
	rec := Summarize(xs, nil).Record("requests")
	vals := map[string]*float64{"p50": rec.P50, "p90": rec.P90, "p95": rec.P95, "p99": rec.P99,
		"mean": rec.Mean, "max": rec.Max, "p50_ci lo": &rec.P50CI[0], "p50_ci hi": &rec.P50CI[1]}
	for name, v := range vals {
		if v == nil {
			t.Errorf("%s is null", name)
		} else if *v != math.Round(*v*1000)/1000 {
			t.Errorf("%s = %v, not kept to the microsecond", name, *v)
		}
	}
	if got := fmt.Sprintf("%.1f", *rec.Max); *rec.Max != 7.85 || got != "7.8" {
		t.Errorf("max %v prints %s, want 7.85 printing 7.8 as the file's 7.85 does", *rec.Max, got)
	}
}
