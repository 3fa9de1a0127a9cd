package load

import (
	"reflect"
	"testing"
)

// searchWith runs NextSearchLevel against a server whose SLOs hold up to
// k calls at once and no further, returning the levels run and the answer.
func searchWith(t *testing.T, k, most int) ([]int, int) {
	t.Helper()
	var path []SearchStep
	var levels []int
	for range 100 {
		next, done, capacity, err := NextSearchLevel(path, most)
		if err != nil {
			t.Fatal(err)
		}
		if done {
			return levels, capacity
		}
		for _, s := range path {
			if s.Level == next {
				t.Fatalf("k=%d most=%d: level %d run twice (%v)", k, most, next, levels)
			}
		}
		if next < 1 || next > most {
			t.Fatalf("k=%d most=%d: level %d outside 1..%d", k, most, next, most)
		}
		levels = append(levels, next)
		path = append(path, SearchStep{Level: next, Met: next <= k})
	}
	t.Fatalf("k=%d most=%d: no answer after 100 levels: %v", k, most, levels)
	return nil, 0
}

// TestSearchFindsEveryK: for every boundary from none to past the limit,
// the search answers exactly k (capped at most), never runs a level twice,
// and runs no more than a doubling and a bisection need.
func TestSearchFindsEveryK(t *testing.T) {
	for _, most := range []int{1, 4, 7, 64} {
		for k := 0; k <= most+3; k++ {
			levels, got := searchWith(t, k, most)
			if want := min(k, most); got != want {
				t.Errorf("k=%d most=%d: capacity %d, want %d (levels %v)", k, most, got, want, levels)
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

// TestSearchPath: the path for k=5 under 64 is the doubling 1, 2, 4, 8 and
// the bisection 6, 5.
func TestSearchPath(t *testing.T) {
	levels, got := searchWith(t, 5, 64)
	if want := []int{1, 2, 4, 8, 6, 5}; got != 5 || !reflect.DeepEqual(levels, want) {
		t.Errorf("levels %v, capacity %d; want %v, 5", levels, got, want)
	}
}

// TestSearchNoisyVerdict: a level that held above one that did not leaves
// the boundary below the lowest failure.
func TestSearchNoisyVerdict(t *testing.T) {
	path := []SearchStep{{1, true}, {2, true}, {4, true}, {8, false}, {6, false}, {5, true}, {7, true}}
	_, done, capacity, err := NextSearchLevel(path, 64)
	if err != nil || !done || capacity != 5 {
		t.Errorf("done %v capacity %d err %v, want done at 5", done, capacity, err)
	}
	if _, _, _, err := NextSearchLevel(nil, 0); err == nil {
		t.Error("a largest level of 0 is accepted")
	}
}
