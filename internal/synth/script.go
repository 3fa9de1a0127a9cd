package synth

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// DefaultScript is the answer of the synthetic model: what a clinic phone
// assistant might say, with a decimal number ("3.5") and an abbreviation
// inside a sentence ("a.m. on") so sentence detection has something to get
// wrong.
const DefaultScript = "Please bring your photo ID, your insurance card and a list of the medicines you take. " +
	"Our front desk opens at 7:30 a.m. on weekdays, so come 15 minutes early to fill in the forms. " +
	"Parking in the garage costs 3.5 dollars per hour. " +
	"If you need to cancel, call us one day before."

// space is SentencePiece's marker for a space inside a piece.
const space = "▁"

// script is the answer cut into tokens.
type script struct {
	text   string   // white space collapsed: what one round of the answer reads
	pieces []string // each begins with space; joined they are " " + text
	first  string   // pieces[0] without its space: how the answer begins
}

// newScript cuts text into at most maxPieces unique pieces (see the package
// comment). Runs of white space, line breaks included, count as one space.
func newScript(text string, maxPieces int) (*script, error) {
	if !utf8.ValidString(text) {
		return nil, fmt.Errorf("the answer text is not valid UTF-8")
	}
	if strings.Contains(text, space) {
		return nil, fmt.Errorf("the answer text contains %q (U+2581), which the tokenizer reads as a space", space)
	}
	words := strings.Fields(text)
	if len(words) == 0 {
		return nil, fmt.Errorf("the answer text is empty")
	}
	atoms := atomize(words)
	// Join more atoms per piece until the pieces fit the width.
	for per := 1; per <= len(atoms); per++ {
		pieces, err := uniquePieces(group(atoms, per))
		if err != nil {
			return nil, err
		}
		if len(pieces) <= maxPieces {
			s := &script{text: strings.Join(strings.Fields(text), " "), pieces: pieces,
				first: strings.TrimPrefix(pieces[0], space)}
			return s, nil
		}
	}
	return nil, fmt.Errorf("the answer cannot be cut into %d pieces or fewer (the embedding width bounds them)", maxPieces)
}

// atomize cuts words into the smallest pieces the answer is made of: a
// word of Latin script is one atom; in Chinese, Japanese and Korean every
// character is one (CJK text has no spaces to cut at, and a real model's
// tokens carry a character or two). The first atom of each word carries
// the space before it.
func atomize(words []string) []string {
	var atoms []string
	for _, w := range words {
		start := len(atoms)
		run := ""
		for _, r := range w {
			if !isCJK(r) {
				run += string(r)
				continue
			}
			if run != "" {
				atoms = append(atoms, run)
				run = ""
			}
			atoms = append(atoms, string(r))
		}
		if run != "" {
			atoms = append(atoms, run)
		}
		atoms[start] = space + atoms[start]
	}
	return atoms
}

// isCJK reports ideographs, kana, Hangul and the full-width punctuation of
// CJK text.
func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) ||
		(r >= 0x3000 && r <= 0x303F) || (r >= 0xFF00 && r <= 0xFFEF)
}

// group joins every per consecutive words.
func group(words []string, per int) []string {
	var out []string
	for i := 0; i < len(words); i += per {
		out = append(out, strings.Join(words[i:min(i+per, len(words))], ""))
	}
	return out
}

// uniquePieces joins a piece that was seen before with the atoms after it
// until it is new; a repeat at the very end is joined to the piece before.
// The first piece without its space (how the answer begins) is reserved
// too: in CJK text an atom without a space can equal it.
func uniquePieces(atoms []string) ([]string, error) {
	used := map[string]bool{}
	var pieces []string
	for i := 0; i < len(atoms); {
		p := atoms[i]
		i++
		for used[p] && i < len(atoms) {
			p += atoms[i]
			i++
		}
		for used[p] && len(pieces) > 0 {
			last := pieces[len(pieces)-1]
			pieces = pieces[:len(pieces)-1]
			delete(used, last)
			if len(pieces) == 0 {
				delete(used, strings.TrimPrefix(last, space))
			}
			p = last + p
		}
		if used[p] {
			return nil, fmt.Errorf("the answer text cannot be cut into unique pieces")
		}
		used[p] = true
		if len(pieces) == 0 {
			used[strings.TrimPrefix(p, space)] = true
		}
		pieces = append(pieces, p)
	}
	return pieces, nil
}

// answer is the text of the first n tokens the model generates: the first
// piece without its space, then the pieces in order, round and round.
func (s *script) answer(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		p := s.pieces[i%len(s.pieces)]
		if i == 0 {
			p = s.first
		}
		b.WriteString(strings.ReplaceAll(p, space, " "))
	}
	return b.String()
}
