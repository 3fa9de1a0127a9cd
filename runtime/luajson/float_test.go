package luajson

import (
	"encoding/json"
	"math"
	"math/rand"
	"testing"
)

// write_json must format numbers exactly as encoding/json does.
func TestAppendFloatMatchesEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	values := []float64{0.5, -0.5, 1e-7, 1e-6, 9.999e-7, 1e20, 1e21, 1.5e21, -2.5e-10, 123.456, 1.0 / 3, math.SmallestNonzeroFloat64, math.MaxFloat64, 5e-324}
	for range 20000 {
		values = append(values, math.Float64frombits(rng.Uint64()), rng.NormFloat64()*math.Pow(10, float64(rng.Intn(60)-30)))
	}
	for _, f := range values {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			continue
		}
		want, _ := json.Marshal(f)
		if got := appendFloat(nil, f); string(got) != string(want) {
			t.Fatalf("%v: got %s, encoding/json writes %s", f, got, want)
		}
	}
}
