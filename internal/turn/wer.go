package turn

import (
	"math"
	"strings"
	"unicode"
)

// WER is the word error rate of hyp (a transcript) against ref (what was
// said): the fewest word substitutions, deletions and insertions that turn
// ref into hyp, over ref's word count. Words are compared in lower case
// with punctuation removed (apostrophes inside a word kept), so "Saturday?"
// and "saturday" are one word. A ref without words gives 0 for an empty
// hyp and 1 otherwise. It may exceed 1 (a transcript longer than what was
// said). It is rounded to WERStep (four decimals), here and nowhere
// else: every record of a turn (listen(), info.turn, call.json,
// requests.jsonl) holds this one value.
func WER(ref, hyp string) float64 {
	r, h := Words(ref), Words(hyp)
	if len(r) == 0 {
		if len(h) == 0 {
			return 0
		}
		return 1
	}
	// One row of the edit-distance table at a time.
	prev := make([]int, len(h)+1)
	cur := make([]int, len(h)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(r); i++ {
		cur[0] = i
		for j := 1; j <= len(h); j++ {
			sub := prev[j-1]
			if r[i-1] != h[j-1] {
				sub++
			}
			cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return math.Round(float64(prev[len(h)])/float64(len(r))*(1/WERStep)) / (1 / WERStep)
}

// WERStep is what WER is rounded to: one word in ten thousand.
const WERStep = 1e-4

// Words splits text into the lower-case words WER compares.
func Words(text string) []string {
	var words []string
	for _, f := range strings.FieldsFunc(strings.ToLower(text), func(c rune) bool {
		return !unicode.IsLetter(c) && !unicode.IsDigit(c) && c != '\''
	}) {
		if w := strings.Trim(f, "'"); w != "" {
			words = append(words, w)
		}
	}
	return words
}
