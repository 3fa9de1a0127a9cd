package synth

import (
	"hash/fnv"
	"math/rand/v2"
)

// promptSlot is the embedding direction shared by every token that is not
// part of the answer.
const promptSlot = 0

// layout is where each token points in the residual stream and which
// directions lead to which token.
type layout struct {
	slot  []int         // embedding direction of every token
	leads map[int][]int // token -> the directions whose successor it is
}

// newLayout gives the answer's tokens their own directions: the first
// piece without its space, then every piece; all other tokens share
// promptSlot, which leads to the first piece.
func newLayout(v *vocab, s *script, pieceIDs []int) *layout {
	l := &layout{slot: make([]int, len(v.tokens)), leads: map[int][]int{}}
	firstID := v.ids[s.first]
	l.slot[firstID] = 1
	for i, id := range pieceIDs {
		l.slot[id] = 2 + i
	}
	n := len(pieceIDs)
	l.lead(promptSlot, firstID)
	l.lead(l.slot[firstID], pieceIDs[1%n])
	for i, id := range pieceIDs {
		l.lead(l.slot[id], pieceIDs[(i+1)%n])
	}
	return l
}

func (l *layout) lead(fromSlot, to int) {
	l.leads[to] = append(l.leads[to], fromSlot)
}

// slotsNeeded is the width the answer needs: one direction per piece, one
// for the first piece without its space, one for the prompt.
func slotsNeeded(pieces int) int { return pieces + 2 }

// embedding row of token i: one-hot at its direction.
func (l *layout) embedding(i int, dst []float32) {
	dst[l.slot[i]] = 1
}

// output row of token i: 1 for every direction that leads to it. Rows of
// tokens that never follow (padding among them) stay zero.
func (l *layout) output(i int, dst []float32) {
	for _, s := range l.leads[i] {
		dst[s] = 1
	}
}

// ones fills a norm weight.
func ones(_ int, dst []float32) {
	for j := range dst {
		dst[j] = 1
	}
}

// zeros leaves the row as the writer hands it over: all zero.
func zeros(int, []float32) {}

// noise returns a row source of small uniform values, seeded by the
// tensor's name and the row, so the same config always writes the same
// file.
func noise(name string) func(int, []float32) {
	h := fnv.New64a()
	h.Write([]byte(name))
	seed := h.Sum64()
	const amplitude = 0.05
	return func(i int, dst []float32) {
		rng := rand.New(rand.NewPCG(seed, uint64(i)))
		for j := range dst {
			dst[j] = (rng.Float32()*2 - 1) * amplitude
		}
	}
}
