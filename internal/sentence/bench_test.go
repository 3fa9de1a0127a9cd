package sentence_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"ttftlab/internal/sentence"
)

// prose is a long answer of n bytes or a little more: sentences with
// abbreviations, numbers, ellipses, quotes and some Chinese.
func prose(n int) string {
	rng := rand.New(rand.NewPCG(7, 7))
	parts := []string{
		"Dr. Smith said the meeting starts at 8 a.m. sharp.", "It costs 3.5 dollars, e.g. for a coffee.",
		"Wait... What happened next?", `He said "No. 5 is mine." Then he left.`, "我们明天见。好的！",
		"Apples, pears etc. are fruit; so are plums.", "This is a plain sentence with nothing odd in it.",
		"Really?! Yes, really.", "See the list (items 1-3) below:\n\n1. First\n2. Second", "（注意！）次の文です。",
	}
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(parts[rng.IntN(len(parts))])
		b.WriteString([]string{" ", " ", "\n", "  "}[rng.IntN(4)])
	}
	return b.String()
}

// tokens cuts text into chunks of 1 to 8 bytes, as a tokenizer's pieces
// arrive (characters cut in two included).
func tokens(text string) []string {
	rng := rand.New(rand.NewPCG(8, 8))
	var out []string
	for len(text) > 0 {
		n := min(1+rng.IntN(8), len(text))
		out = append(out, text[:n])
		text = text[n:]
	}
	return out
}

func runSplitter(chunks []string) int {
	var s sentence.Splitter
	n := 0
	for i, c := range chunks {
		n += len(s.Feed(c, float64(i)))
	}
	return n + len(s.End(float64(len(chunks))))
}

// naive is the voice loop without the Splitter's memory: First over the
// whole pending text after every chunk.
func naive(chunks []string) int {
	pending, n := "", 0
	for _, c := range chunks {
		pending += c
		for {
			e, ok := sentence.First(pending, false)
			if !ok {
				break
			}
			n++
			pending = pending[e:]
		}
	}
	return n
}

// BenchmarkSplitter feeds answers of growing length: the throughput
// (MB/s) stays the same when the cost is linear in the length. The
// answers are prose, one sentence with no end at all (the whole answer
// stays pending), and a mark whose next word comes after a long run of
// white space (the mark stays undecided).
func BenchmarkSplitter(b *testing.B) {
	shapes := map[string]func(n int) string{
		"prose": prose,
		"no-end": func(n int) string {
			return strings.Repeat("a list, of 3.5 words e.g. more ", n/31+1)
		},
		"undecided": func(n int) string {
			return "At 8 a.m." + strings.Repeat(" ", n) + "we left."
		},
	}
	for _, shape := range []string{"prose", "no-end", "undecided"} {
		for _, size := range []int{16 << 10, 64 << 10, 256 << 10, 1 << 20} {
			chunks := tokens(shapes[shape](size))
			b.Run(fmt.Sprintf("%s/%dKiB", shape, size>>10), func(b *testing.B) {
				b.SetBytes(int64(size))
				for b.Loop() {
					runSplitter(chunks)
				}
			})
		}
	}
}

// BenchmarkNaive is the reference the Splitter is measured against: First
// over all the pending text at every chunk, whose cost grows with the
// square of a sentence's length (watch MB/s fall as the size grows).
func BenchmarkNaive(b *testing.B) {
	for _, size := range []int{4 << 10, 16 << 10} {
		chunks := tokens(strings.Repeat("a list, of 3.5 words e.g. more ", size/31+1))
		b.Run(fmt.Sprintf("no-end/%dKiB", size>>10), func(b *testing.B) {
			b.SetBytes(int64(size))
			for b.Loop() {
				naive(chunks)
			}
		})
	}
}

// TestNaiveAndSplitterAgree keeps the benchmark's reference honest: it
// finds the same number of sentences as the Splitter before the end.
func TestNaiveAndSplitterAgree(t *testing.T) {
	chunks := tokens(prose(20000))
	var s sentence.Splitter
	n := 0
	for i, c := range chunks {
		n += len(s.Feed(c, float64(i)))
	}
	if m := naive(chunks); m != n || n == 0 {
		t.Fatalf("naive loop found %d sentences, the Splitter %d", m, n)
	}
}
