package figures

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"testing"

	"ttftlab/internal/interval"
)

// recordedSamples are the figures of a real run on stories260K
// (testdata/recorded_samples.json says how they were recorded).
func recordedSamples(t *testing.T) []Sample {
	t.Helper()
	data, err := os.ReadFile("testdata/recorded_samples.json")
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Recorded string
		Figures  []struct {
			Name, Unit string
			Values     []float64
		}
	}
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	var out []Sample
	for _, f := range file.Figures {
		out = append(out, Sample{Name: f.Name, Unit: f.Unit, Values: f.Values})
	}
	if len(out) < 8 {
		t.Fatalf("%d recorded figures, want 8", len(out))
	}
	return out
}

// TestAAOnRecordedSamples is an A/A test: the samples of each recorded
// figure, split at random into two halves A and A' (one run a side, as
// `ttftlab ab` gives them), come from one distribution, so over 20 seeded
// splits (each its own bootstrap seed) at least 90 % of the figures are
// "no difference detected", none is "too few samples" (12 and 20 a side
// bound a median), and every interval printed beside a verdict agrees
// with it: clear of 1 for faster or slower, holding 1 for no difference
// detected, at a level from 95 % to Holm's finest.
func TestAAOnRecordedSamples(t *testing.T) {
	recorded := recordedSamples(t)
	total, same := 0, 0
	for seed := uint64(1); seed <= 20; seed++ {
		rng := rand.New(rand.NewPCG(seed, 0xaa))
		var a, b []Sample
		for _, s := range recorded {
			vs := append([]float64(nil), s.Values...)
			rng.Shuffle(len(vs), func(i, j int) { vs[i], vs[j] = vs[j], vs[i] })
			half := len(vs) / 2
			a = append(a, Sample{Name: s.Name, Unit: s.Unit, Values: vs[:half]})
			b = append(b, Sample{Name: s.Name, Unit: s.Unit, Values: vs[half:]})
		}
		ab := CompareAB([][]Sample{a}, [][]Sample{b}, nil, seed, 0)
		if len(ab.Figures) != len(recorded) {
			t.Fatalf("seed %d: %d figures compared of %d", seed, len(ab.Figures), len(recorded))
		}
		finest := 1 - interval.Alpha/float64(len(recorded))
		for _, f := range ab.Figures {
			r := f.Ratio
			total++
			switch f.Verdict {
			case interval.NoDifference:
				same++
				if !(r.Lo <= 1 && 1 <= r.Hi) {
					t.Errorf("seed %d: %s: no difference detected beside [%.3f, %.3f] at %v", seed, f.Name, r.Lo, r.Hi, r.Level)
				}
			case interval.Faster, interval.Slower:
				if (f.Verdict == interval.Faster) != (r.Hi < 1) || (f.Verdict == interval.Slower) != (r.Lo > 1) {
					t.Errorf("seed %d: %s: %s beside [%.3f, %.3f] at %v", seed, f.Name, f.Verdict, r.Lo, r.Hi, r.Level)
				}
			default:
				t.Errorf("seed %d: %s: %s", seed, f.Name, f.Verdict)
			}
			if r.Unbounded || r.Level < interval.Level || r.Level > finest+1e-12 {
				t.Errorf("seed %d: %s: level %v, unbounded %v", seed, f.Name, r.Level, r.Unbounded)
			}
		}
	}
	t.Logf("no difference detected for %d of %d figures", same, total)
	if 10*same < 9*total {
		t.Errorf("A/A: no difference detected for %d of %d figures, want at least 90 %%", same, total)
	}
}
