package synth

import (
	_ "embed"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Token types of a SentencePiece vocabulary in GGUF
// (tokenizer.ggml.token_type).
const (
	typeNormal  int32 = 1
	typeUnknown int32 = 2
	typeControl int32 = 3
	typeUnused  int32 = 5
	typeByte    int32 = 6
)

// Fixed token ids.
const (
	idUnk = 0
	idBOS = 1
	idEOS = 2
)

// Chat template control tokens.
const (
	imStart = "<|im_start|>"
	imEnd   = "<|im_end|>"
)

//go:embed words.txt
var wordList string

// vocab is a SentencePiece-style vocabulary: control tokens, the 256 byte
// fallback tokens (so any text tokenizes), characters and word pieces (so
// ordinary English takes a realistic number of tokens), the script's
// pieces, then padding.
type vocab struct {
	tokens []string
	scores []float32
	types  []int32
	ids    map[string]int
}

// add appends a token, or returns the id it already has: GGUF token texts
// must be unique.
func (v *vocab) add(text string, typ int32) int {
	if id, ok := v.ids[text]; ok {
		return id
	}
	id := len(v.tokens)
	v.ids[text] = id
	v.tokens = append(v.tokens, text)
	v.types = append(v.types, typ)
	// SentencePiece merges the highest-scoring adjacent pair first; scoring
	// by length makes the tokenizer prefer whole words.
	score := float32(0)
	if typ == typeNormal {
		score = float32(utf8.RuneCountInString(text))
	}
	v.scores = append(v.scores, score)
	return id
}

func newVocab() *vocab {
	v := &vocab{ids: map[string]int{}}
	v.add("<unk>", typeUnknown)
	v.add("<s>", typeControl)
	v.add("</s>", typeControl)
	for b := 0; b < 256; b++ {
		v.add(fmt.Sprintf("<0x%02X>", b), typeByte)
	}
	v.add(imStart, typeControl)
	v.add(imEnd, typeControl)
	v.add(space, typeNormal)
	for c := byte('!'); c <= '~'; c++ {
		v.add(string(c), typeNormal)
	}
	for _, w := range words() {
		for _, form := range []string{space + w, space + capitalise(w), w, capitalise(w)} {
			v.addPrefixes(form)
		}
	}
	return v
}

// addPrefixes adds every prefix of piece of two or more characters: the
// tokenizer builds a piece by merging pairs, so each step must be a token.
func (v *vocab) addPrefixes(piece string) {
	for i := range piece {
		if i > 0 && utf8.RuneCountInString(piece[:i]) >= 2 {
			v.add(piece[:i], typeNormal)
		}
	}
	v.add(piece, typeNormal)
}

// pad fills the vocabulary up to n tokens with unused ones.
func (v *vocab) pad(n int) {
	for i := len(v.tokens); i < n; i++ {
		v.add(fmt.Sprintf("[PAD%d]", i), typeUnused)
	}
}

func words() []string {
	var out []string
	for _, line := range strings.Split(wordList, "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		out = append(out, strings.Fields(line)...)
	}
	return out
}

func capitalise(w string) string {
	r, n := utf8.DecodeRuneInString(w)
	return string(unicode.ToUpper(r)) + w[n:]
}
