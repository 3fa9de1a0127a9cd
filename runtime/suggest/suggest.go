// Package suggest finds what a mistyped name was meant to be: the
// suggestion after an unknown option of a Lua binding, and after the
// command line's unknown flags and values.
package suggest

import "fmt"

// DidYouMean is "; did you mean "x"?" for the name in names nearest to a
// mistyped one (at most two edits away), else "".
func DidYouMean(name string, names []string) string {
	best := Nearest(name, names)
	if best == "" {
		return ""
	}
	return fmt.Sprintf("; did you mean %q?", best)
}

// Nearest is the name in names nearest to a mistyped one, at most two
// edits away, else "" (the first of several as near).
func Nearest(name string, names []string) string {
	best, bestD := "", 3
	for _, n := range names {
		if d := editDistance(name, n); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// editDistance counts the inserts, deletes and substitutions that turn a
// into b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
