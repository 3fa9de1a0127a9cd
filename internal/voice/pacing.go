package voice

import (
	"sort"
	"strings"

	"ttftlab/internal/sentence"
	"ttftlab/internal/stream"
)

// DefaultCharsPerS is the speaking rate of a speaker told none: 15 UTF-8
// characters a second, about 150 English words a minute.
const DefaultCharsPerS = 15

// Speaker is how a speaker reads an answer aloud as it streams: CharsPerS
// UTF-8 characters a second (> 0), each sentence's audio existing TTSMs
// after its text is ready (the speech engine's latency).
type Speaker struct {
	CharsPerS, TTSMs float64
}

// Paced is one sentence as the speaker reads it: its text (white space
// around it removed), its UTF-8 characters, when it was ready (the chunk
// that completed it arrived) and when it is spoken.
type Paced struct {
	Text                    string
	Chars                   int
	ReadyMs, StartMs, EndMs float64
}

// Pacing is an answer as the speaker reads it: each sentence, the time
// the speaker waited for text after it had started (StallMs, in Stalls
// waits) and the time it spent speaking.
type Pacing struct {
	Sentences []Paced
	StallMs   float64
	Stalls    int
	SpeakMs   float64
}

// Pace reads the answer of chunks (in arrival order) aloud: each sentence
// (internal/sentence's rules) is ready at the chunk that completed it,
// the rest of the answer at the last chunk; its audio exists TTSMs later;
// it starts when its audio exists and the sentence before has been
// spoken, and takes its characters / CharsPerS seconds. This is the
// stdlib's speech.pacing, and stream_many's first_sentence_ms and
// stall_ms.
func (sp Speaker) Pace(chunks []stream.Chunk) Pacing {
	var split sentence.Splitter
	var ready []sentence.Ready
	for _, c := range chunks {
		ready = append(ready, split.Feed(c.Text, c.TMs)...)
	}
	if n := len(chunks); n > 0 {
		ready = append(ready, split.End(chunks[n-1].TMs)...)
	}
	out := Pacing{Sentences: make([]Paced, len(ready))}
	for i, r := range ready {
		s := Paced{Text: r.Text, Chars: sentence.Chars(r.Text), ReadyMs: r.TMs}
		audioMs := r.TMs + sp.TTSMs
		s.StartMs = audioMs
		if i > 0 {
			if prevEnd := out.Sentences[i-1].EndMs; audioMs > prevEnd {
				out.StallMs += audioMs - prevEnd
				out.Stalls++
			} else {
				s.StartMs = prevEnd
			}
		}
		speak := float64(s.Chars) / sp.CharsPerS * 1000
		s.EndMs = s.StartMs + speak
		out.SpeakMs += speak
		out.Sentences[i] = s
	}
	return out
}

// FirstSentence is when the first sentence was ready; ok is false for an
// answer without text.
func (p Pacing) FirstSentence() (readyMs float64, ok bool) {
	if len(p.Sentences) == 0 {
		return 0, false
	}
	return p.Sentences[0].ReadyMs, true
}

// FirstClause is the time of the chunk after which the answer's first
// clause (sentence.FirstClause of the text so far, not final, at least
// minChars characters before its mark) is decided, and that clause as a
// prefix of the answer (leading white space kept): an earlier, riskier
// moment to start speaking than the first sentence, never later than it.
// When nothing is ever decided, the whole answer (final) at the last
// chunk. ok is false for no chunks or an answer of white space.
//
// A decision, once made, stands for every longer text, so the decision on
// the whole answer says where the clause ends, and a binary search over
// the chunks from the one holding that end finds the first that decides
// it: a few tries, where trying each chunk would cost time quadratic in
// the answer's length.
func FirstClause(chunks []stream.Chunk, minChars int) (tMs float64, clause string, ok bool) {
	n := len(chunks)
	if n == 0 {
		return 0, "", false
	}
	ends := make([]int, n)
	var b strings.Builder
	for i, c := range chunks {
		b.WriteString(c.Text)
		ends[i] = b.Len()
	}
	text := b.String()
	e, ok := sentence.FirstClause(text, false, minChars)
	if !ok {
		if e, ok = sentence.FirstClause(text, true, minChars); !ok {
			return 0, "", false
		}
		return chunks[n-1].TMs, text[:e], true
	}
	lo := sort.SearchInts(ends, e)
	i := lo + sort.Search(n-1-lo, func(k int) bool {
		_, ok := sentence.FirstClause(text[:ends[lo+k]], false, minChars)
		return ok
	})
	if i < n-1 {
		e, _ = sentence.FirstClause(text[:ends[i]], false, minChars)
	}
	return chunks[i].TMs, text[:e], true
}
