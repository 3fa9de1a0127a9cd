package load

import (
	"reflect"
	"strings"
	"testing"
)

// verdictSearch runs a search of calls at once on verdicts alone (no
// values: no confirmation, as search_next without opts) against a server
// whose SLOs hold up to k calls at once and no further, and returns the
// levels run and the answer.
func verdictSearch(t *testing.T, k, most int) ([]int, Decision) {
	t.Helper()
	s := Search{Start: 1, Most: float64(most), Calls: 1, Budget: 1}
	var path []Step
	var levels []int
	for range 100 {
		d, err := s.Next(path)
		if err != nil {
			t.Fatal(err)
		}
		if d.Done {
			return levels, d
		}
		next := int(d.Next)
		if float64(next) != d.Next || next < 1 || next > most || d.Calls != 1 {
			t.Fatalf("k=%d most=%d: level %g with %d calls, want a whole level in 1..%d and 1 call", k, most, d.Next, d.Calls, most)
		}
		for _, l := range levels {
			if l == next {
				t.Fatalf("k=%d most=%d: level %d run twice (%v)", k, most, next, levels)
			}
		}
		levels = append(levels, next)
		path = append(path, Step{Level: d.Next, Calls: 1, Met: next <= k})
	}
	t.Fatalf("k=%d most=%d: no answer after 100 levels: %v", k, most, levels)
	return nil, Decision{}
}

// TestSearchFindsEveryK: for every boundary from none to past the limit,
// the search of calls at once answers exactly k (capped at most), the
// level above it as the one in question (none when most held), never
// runs a level twice, and runs no more levels than a doubling and a
// bisection need.
func TestSearchFindsEveryK(t *testing.T) {
	t.Parallel()
	for _, most := range []int{1, 4, 7, 64} {
		for k := 0; k <= most+3; k++ {
			levels, d := verdictSearch(t, k, most)
			want := min(k, most)
			above := float64(want + 1)
			if want == most {
				above = 0
			}
			if d.Capacity != float64(want) || d.Between != [2]float64{float64(want), above} {
				t.Errorf("k=%d most=%d: capacity %g between %v, want %d (levels %v)", k, most, d.Capacity, d.Between, want, levels)
			}
			if len(levels) > 2*bitsOf(most)+1 {
				t.Errorf("k=%d most=%d: %d levels %v", k, most, len(levels), levels)
			}
		}
	}
}

func bitsOf(n int) int {
	b := 0
	for ; n > 0; n >>= 1 {
		b++
	}
	return b
}

// TestSearchPath: the path for k=5 under 64 is the doubling 1, 2, 4, 8
// and the bisection 6, 5; under 7 the doubling's last step is 7 itself.
func TestSearchPath(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		k, most int
		want    []int
	}{{5, 64, []int{1, 2, 4, 8, 6, 5}}, {5, 7, []int{1, 2, 4, 7, 5, 6}}, {70, 64, []int{1, 2, 4, 8, 16, 32, 64}}, {0, 64, []int{1}}} {
		levels, d := verdictSearch(t, c.k, c.most)
		if !reflect.DeepEqual(levels, c.want) || d.Capacity != float64(min(c.k, c.most)) {
			t.Errorf("k=%d most=%d: levels %v, capacity %g; want %v", c.k, c.most, levels, d.Capacity, c.want)
		}
	}
}

// TestSearchNoisyVerdict: a level that held above one that did not leaves
// the boundary below the lowest level that did not hold; a level that did
// not hold above none that held is bisected down to 1.
func TestSearchNoisyVerdict(t *testing.T) {
	t.Parallel()
	s := Search{Start: 1, Most: 64, Calls: 1, Budget: 1}
	var path []Step
	for _, st := range []struct {
		level float64
		met   bool
	}{{1, true}, {2, true}, {4, true}, {8, false}, {6, false}, {5, true}, {7, true}} {
		path = append(path, Step{Level: st.level, Calls: 1, Met: st.met})
	}
	d, err := s.Next(path)
	if err != nil || !d.Done || d.Capacity != 5 || d.Between != [2]float64{5, 6} {
		t.Errorf("%+v %v, want done at 5 below 6", d, err)
	}
	d, err = s.Next([]Step{{Level: 9, Calls: 1}})
	if err != nil || d.Done || d.Next != 4 {
		t.Errorf("after 9 missed: %+v %v, want 4 next", d, err)
	}
	d, err = s.Next([]Step{{Level: 9, Calls: 1}, {Level: 4, Calls: 1}, {Level: 2, Calls: 1}, {Level: 1, Calls: 1}})
	if err != nil || !d.Done || d.Capacity != 0 || d.Between != [2]float64{0, 1} {
		t.Errorf("after 9, 4, 2, 1 missed: %+v %v, want done with no capacity", d, err)
	}
}

// TestSearchRejects: a search or a path it cannot run says why.
func TestSearchRejects(t *testing.T) {
	t.Parallel()
	ok := Search{Start: 1, Most: 8, Calls: 1, Budget: 1, SLO: []SLOLimit{{50, 100}}}
	for _, c := range []struct {
		s    Search
		path []Step
		want string
	}{
		{Search{Start: 1, Most: 0, Calls: 1}, nil, "at most the largest"},
		{Search{Start: 0, Most: 8, Calls: 1}, nil, "start above 0"},
		{Search{Start: 1, Most: 8}, nil, "0 calls a round"},
		{ok, []Step{{Level: 1.5, Calls: 1}}, "whole number"},
		{ok, []Step{{Level: -1, Calls: 1}}, "above 0"},
		{ok, []Step{{Level: 1, Calls: 1, Values: [][]float64{{1}, {2}}}}, "values for 2 SLOs, want 1"},
		{ok, make([]Step, maxSteps+1), "no answer after"},
	} {
		if _, err := c.s.Next(c.path); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.s, err, c.want)
		}
	}
	// A rate search takes levels between whole numbers.
	r := Search{Rate: true, Start: 0.5, Most: 8, Calls: 1, Budget: 1}
	if d, err := r.Next([]Step{{Level: 0.5, Calls: 1, Met: true}}); err != nil || d.Next != 1 {
		t.Errorf("rate 0.5 held: %+v %v, want 1 next", d, err)
	}
	if d, err := r.Next([]Step{{Level: 0.5, Calls: 1}}); err != nil || d.Next != 0.25 {
		t.Errorf("rate 0.5 missed: %+v %v, want 0.25 next", d, err)
	}
}
