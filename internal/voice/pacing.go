package voice

import (
	"ttftlab/internal/sentence"
	"ttftlab/internal/stream"
)

// Pacing is the stdlib's speech.pacing(chunks, {chars_per_s =
// charsPerS}) in Go, for the results stream_many builds without a call
// into Lua per request: each sentence ready at the chunk that completed
// it (the rest of the answer at its last chunk), spoken in its
// characters / charsPerS seconds, in order; stallMs is how long the
// speaker waited for text after it had started. firstMs is the first
// sentence's moment, ok false without one. The sentences are
// internal/sentence's, the sums made in the Lua module's order, so the
// figures are the same to the last bit (a test holds them to the Lua
// module's).
func Pacing(chunks []stream.Chunk, charsPerS float64) (firstMs float64, ok bool, stallMs float64) {
	var sp sentence.Splitter
	var ready []sentence.Ready
	for _, c := range chunks {
		ready = append(ready, sp.Feed(c.Text, c.TMs)...)
	}
	if n := len(chunks); n > 0 {
		ready = append(ready, sp.End(chunks[n-1].TMs)...)
	}
	var prevEnd float64
	for i, s := range ready {
		start := s.TMs
		if i > 0 {
			if start > prevEnd {
				stallMs += start - prevEnd
			} else {
				start = prevEnd
			}
		}
		prevEnd = start + float64(chars(s.Text))/charsPerS*1000
	}
	if len(ready) == 0 {
		return 0, false, stallMs
	}
	return ready[0].TMs, true, stallMs
}

// chars counts UTF-8 characters as the Lua module's sentence.chars does:
// every byte that does not continue one.
func chars(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if b := s[i]; b < 128 || b > 191 {
			n++
		}
	}
	return n
}
