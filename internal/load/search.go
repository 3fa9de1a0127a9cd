package load

import "fmt"

// SearchStep is one level a capacity search ran and whether its SLOs held.
type SearchStep struct {
	Level int
	Met   bool
}

// NextSearchLevel is the next level of calls at once a capacity search
// runs, given the levels it ran so far (in order) and the largest level it
// may try; done is true when the search has its answer, capacity, the
// largest level that held (0 when none did).
//
// The search brackets by doubling from 1 (1, 2, 4, ...; the last step is
// most itself) until a level does not hold or most held, then bisects on
// whole numbers between the largest level that held below the first that
// did not and that level, until they are neighbours. A level that held
// above one that did not (a noisy verdict) does not count: the boundary is
// below the lowest level that did not hold.
func NextSearchLevel(path []SearchStep, most int) (next int, done bool, capacity int, err error) {
	if most < 1 {
		return 0, false, 0, fmt.Errorf("the largest level to try is %d: want 1 or more", most)
	}
	if len(path) == 0 {
		return 1, false, 0, nil
	}
	fail := 0 // the lowest level that did not hold, 0 when all held
	for _, s := range path {
		if !s.Met && (fail == 0 || s.Level < fail) {
			fail = s.Level
		}
	}
	held := 0 // the largest level that held, below fail
	for _, s := range path {
		if s.Met && s.Level > held && (fail == 0 || s.Level < fail) {
			held = s.Level
		}
	}
	if fail == 0 {
		// Still bracketing: every level held.
		if held >= most {
			return 0, true, held, nil
		}
		return min(2*held, most), false, 0, nil
	}
	if fail-held <= 1 {
		return 0, true, held, nil
	}
	return held + (fail-held)/2, false, 0, nil
}
