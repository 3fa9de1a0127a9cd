// Package sentence says where the first sentence of a streamed answer ends:
// the one copy of the sentence rules. Go code that streams many answers at
// once (stream_many, internal/voice) hands each sentence to a speech server
// the moment it is complete; the Lua module stdlib/sentence.lua is a
// binding over First and FirstClause (the host's sentence_end and
// clause_end), so scripts get the same answers.
//
// The rules, in short (stdlib/README.md says them in full): a sentence
// ends at a run of '.', '!', '?' or '…' (plus closing quotes or brackets
// right after it) followed by white space or CJK text; a run holding a
// full-width stop (。 ！ ？ ｡) ends it by itself once any character
// follows. A single '.' after Dr. Mr. Mrs. Ms. Mx. Prof. St. vs. e.g. i.e.
// cf. never ends it; after a.m. p.m. only when the next word starts
// neither lowercase nor with a digit, after etc. only when it does not
// start lowercase, after No. only when it does not start with a digit. An
// ellipsis ends it only before a capital letter. Letter case is judged on
// ASCII letters; a CJK letter counts as lowercase.
//
// Positions are byte offsets and white space is the ASCII white space of
// Lua's %s (space, \t, \n, \v, \f, \r). A returned end is the byte length
// of the sentence, which is always a prefix of the text: Lua's end_index.
package sentence

import "strings"

// MinClauseChars is FirstClause's usual minimum of characters before a
// clause mark (the Lua module's sentence.MIN_CLAUSE_CHARS).
const MinClauseChars = 20

const ellipsis = "\u2026"

// fullStops are the full-width terminators of Chinese and Japanese: 。 ！ ？
// and the half-width ideographic full stop ｡.
var fullStops = []string{"\u3002", "\uff01", "\uff1f", "\uff61"}

// closers may follow an end mark: ASCII, ” ’, and 」 』 ） 】 》 〉 〕 ］ ＂ ＇.
var closers = []string{`"`, "'", ")", "]", "\u201d", "\u2019",
	"\u300d", "\u300f", "\uff09", "\u3011", "\u300b",
	"\u3009", "\u3015", "\uff3d", "\uff02", "\uff07"}

// openers may precede a word: ASCII, “ ‘, and 「 『 （ 【 《 〈 〔 ［.
var openers = []string{`"`, "'", "(", "[", "\u201c", "\u2018",
	"\u300c", "\u300e", "\uff08", "\u3010", "\u300a",
	"\u3008", "\u3014", "\uff3b"}

// rule is what the word after an abbreviation's dot must start with for
// the sentence to go on.
type rule int

const (
	never rule = iota + 1
	lower
	digit
	lowerOrDigit
)

// abbrev holds the words (lowercased, final dot removed) after which a
// single dot does not always end a sentence.
var abbrev = map[string]rule{
	"dr": never, "mr": never, "mrs": never, "ms": never, "mx": never,
	"prof": never, "st": never, "vs": never, "cf": never,
	"e.g": never, "i.e": never,
	"a.m": lowerOrDigit, "p.m": lowerOrDigit,
	"etc": lower,
	"no":  digit,
}

func isSpace(b byte) bool {
	switch b {
	case ' ', '\t', '\n', '\v', '\f', '\r':
		return true
	}
	return false
}

func spaceAt(t string, i int) bool { return i >= 0 && i < len(t) && isSpace(t[i]) }

func isLower(c byte) bool { return 'a' <= c && c <= 'z' }
func isUpper(c byte) bool { return 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// seqAt returns the length of the sequence of list found at index p (0 if
// none).
func seqAt(t string, p int, list []string) int {
	if p >= len(t) {
		return 0
	}
	for _, s := range list {
		if strings.HasPrefix(t[p:], s) {
			return len(s)
		}
	}
	return 0
}

// skipSeqs returns the index after any run of the sequences of list
// starting at pos.
func skipSeqs(t string, pos int, list []string) int {
	for {
		n := seqAt(t, pos, list)
		if n == 0 {
			return pos
		}
		pos += n
	}
}

// utf8Len is the length a lead byte announces (any byte from 0xF0 up
// announces four).
func utf8Len(b byte) int {
	switch {
	case b >= 240:
		return 4
	case b >= 224:
		return 3
	}
	return 2
}

// codepoint decodes the character at index i leniently: a byte below
// 0xC0, or a lead byte whose continuation bytes are missing or wrong,
// reads as itself (no check for overlong forms or surrogates).
func codepoint(t string, i int) (cp rune, ok bool) {
	if i >= len(t) {
		return 0, false
	}
	b := t[i]
	if b < 192 {
		return rune(b), true
	}
	n := utf8Len(b)
	cp = rune(b) % (1 << (7 - n))
	for k := 1; k < n; k++ {
		if i+k >= len(t) || t[i+k] < 128 || t[i+k] > 191 {
			return rune(b), true
		}
		cp = cp*64 + rune(t[i+k]-128)
	}
	return cp, true
}

// incomplete says whether the character starting at index i is cut off by
// the end of t (more of it is still to come).
func incomplete(t string, i int) bool {
	if i >= len(t) || t[i] < 192 {
		return false
	}
	return i+utf8Len(t[i]) > len(t)
}

// cjk holds the code point ranges of CJK text: ideographs, kana, Hangul
// syllables, CJK punctuation and full-width forms.
var cjk = [][2]rune{{0x3000, 0x30FF}, {0x3400, 0x4DBF}, {0x4E00, 0x9FFF}, {0xAC00, 0xD7AF},
	{0xF900, 0xFAFF}, {0xFF00, 0xFFEF}, {0x20000, 0x3FFFF}}

func isCJK(t string, i int) bool {
	cp, ok := codepoint(t, i)
	if !ok {
		return false
	}
	for _, r := range cjk {
		if cp >= r[0] && cp <= r[1] {
			return true
		}
	}
	return false
}

// separates says whether the character at index i may follow an end mark
// that ends a sentence: white space, or the first character of CJK text.
func separates(t string, i int) bool { return spaceAt(t, i) || isCJK(t, i) }

// markLen is the length of the end mark at index p (0 if none): '.', '!',
// '?', '…' or a full-width stop.
func markLen(t string, p int) int {
	if p >= len(t) {
		return 0
	}
	switch t[p] {
	case '.', '!', '?':
		return 1
	case 0xE2, 0xE3, 0xEF:
		if strings.HasPrefix(t[p:], ellipsis) || seqAt(t, p, fullStops) > 0 {
			return 3
		}
	}
	return 0
}

// wordBefore returns the word that ends right before index p, lowercased,
// without opening quotes or brackets. It looks back at most 64 bytes: a
// longer word is no abbreviation, and text without spaces (CJK, digits)
// would otherwise be read back to its start at every mark. It lowercases
// with strings.ToLower, as the Lua VM's string.lower does ('İ' reads 'i').
func wordBefore(t string, p int) string {
	s := p
	for s > 0 && s > p-64 && !isSpace(t[s-1]) {
		s--
	}
	if s > 0 && !isSpace(t[s-1]) {
		return ""
	}
	start := skipSeqs(t, s, openers)
	if start >= p {
		return ""
	}
	return strings.ToLower(t[start:p])
}

func trimEnd(t string) int {
	e := len(t)
	for e > 0 && isSpace(t[e-1]) {
		e--
	}
	return e
}

// First returns the byte length of the first sentence of text (leading
// white space kept, trailing white space never part of it), or ok false
// while that is not yet decidable from text alone. With final true (no
// more text will come) the whole text, trailing white space removed, is
// the sentence when no boundary is found; ok is false only when text is
// empty or all white space. It is sentence.first(text, final) of the Lua
// module, its end_index.
func First(text string, final bool) (end int, ok bool) {
	var s scanner
	return s.first(text, final)
}

// kind is the kind of an end-mark run.
type kind int

const (
	dot      kind = iota // exactly one '.'
	ellip                // two or more dots, or '…'
	hard                 // has '!' or '?'
	fullStop             // has a full-width stop
)

// decision of a mark: whether it ends the sentence.
type decision int

const (
	undecided decision = iota
	ends
	goesOn
)

// scanner is First's walk over a text, kept between calls on a text that
// only grows (the Splitter's pending text), so a long answer is read
// once: what it has read stays read. Every mark before pos is settled as
// not ending the sentence; the mark under way (active) has its run read up
// to q, its closers up to r, the white space after them up to w and the
// opening quotes after that up to o. A fresh scanner reads from the start.
type scanner struct {
	pos                   int
	active                bool
	p, q, r, w, o         int
	dots                  int
	hasHard, hasEll, full bool
}

// first is First over t, going on from where the last call on a prefix of
// t stopped.
func (s *scanner) first(t string, final bool) (int, bool) {
	for {
		if !s.active {
			p := s.pos
			for p < len(t) && markLen(t, p) == 0 {
				p++
			}
			if p >= len(t) {
				// No mark: a cut-off '…' or full stop at the very end may
				// still become one.
				s.pos = max(s.pos, len(t)-2)
				break
			}
			*s = scanner{pos: s.pos, active: true, p: p, q: p}
		}
		for {
			n := markLen(t, s.q)
			if n == 0 {
				break
			}
			switch t[s.q] {
			case '.':
				s.dots++
			case '!', '?':
				s.hasHard = true
			default:
				if strings.HasPrefix(t[s.q:], ellipsis) {
					s.hasEll = true
				} else {
					s.full = true
				}
			}
			s.q += n
		}
		// Closers found before can only follow a run that is over.
		s.r = skipSeqs(t, max(s.r, s.q), closers)
		r := s.r
		if r >= len(t) || incomplete(t, r) {
			// The mark is the last thing so far: more marks, a closer or
			// a letter could still follow.
			break
		}
		k := dot
		switch {
		case s.full:
			k = fullStop
		case s.hasHard:
			k = hard
		case s.hasEll || s.dots >= 2:
			k = ellip
		}
		if k == fullStop {
			return r, true
		}
		if separates(t, r) {
			d := s.decide(t, k)
			if d == undecided && !final {
				return 0, false
			}
			if d != goesOn {
				return r, true
			}
		}
		s.pos = s.q
		s.active = false
	}
	if !final {
		return 0, false
	}
	e := trimEnd(t)
	if e == 0 {
		return 0, false
	}
	return e, true
}

// decide says whether the mark under way ends the sentence.
func (s *scanner) decide(t string, k kind) decision {
	if k == hard {
		return ends
	}
	var ru rule
	if k == dot {
		var found bool
		ru, found = abbrev[wordBefore(t, s.p)]
		if !found {
			return ends
		}
		if ru == never {
			return goesOn
		}
	}
	c, ok := s.nextWordChar(t)
	if !ok {
		return undecided
	}
	var goOn bool
	switch {
	case k == ellip:
		goOn = !isUpper(c)
	case ru == lower:
		goOn = isLower(c)
	case ru == digit:
		goOn = isDigit(c)
	default:
		goOn = isLower(c) || isDigit(c)
	}
	if goOn {
		return goesOn
	}
	return ends
}

// nextWordChar returns the first byte of the word after the mark under
// way (after white space and opening quotes), 'a' for a CJK character, or
// ok false when the text ends before a whole one.
func (s *scanner) nextWordChar(t string) (byte, bool) {
	w := max(s.w, s.r)
	for w < len(t) && isSpace(t[w]) {
		w++
	}
	s.w = w
	if w >= len(t) {
		return 0, false
	}
	o := skipSeqs(t, max(s.o, w), openers)
	s.o = o
	if o >= len(t) || incomplete(t, o) {
		return 0, false
	}
	if isCJK(t, o) {
		// CJK letters have no case; like a lowercase letter, they do not
		// start a new sentence after an abbreviation or an ellipsis.
		return 'a', true
	}
	return t[o], true
}

// Clause marks. The ASCII ones (and – —) end a clause only before white
// space; a hyphen only with white space on both sides; the full-width ，
// 、 ； ： by themselves.
var (
	clauseSpaced = []string{",", ";", ":", "\u2013", "\u2014"}
	clauseFull   = []string{"\uff0c", "\u3001", "\uff1b", "\uff1a"}
)

// clauseMark returns the length of the clause mark at index p that is
// decided to end a clause (0 when there is none or it is not yet known).
func clauseMark(t string, p int) int {
	if n := seqAt(t, p, clauseFull); n > 0 {
		return n
	}
	n := seqAt(t, p, clauseSpaced)
	if n == 0 && t[p] == '-' && p > 0 && isSpace(t[p-1]) {
		n = 1
	}
	if n > 0 && spaceAt(t, p+n) {
		return n
	}
	return 0
}

// Chars counts the UTF-8 characters of t as FirstClause counts them:
// every byte that does not continue a character, so a broken lead byte
// counts as one and a stray continuation byte as none. It is
// sentence.chars of the Lua module.
func Chars(t string) int {
	n := 0
	for i := 0; i < len(t); i++ {
		if t[i] < 128 || t[i] > 191 {
			n++
		}
	}
	return n
}

func isClauseByte(b byte) bool {
	switch b {
	case ',', ';', ':', '-', 0xE2, 0xE3, 0xEF:
		return true
	}
	return false
}

// clauseEnd returns the end of the first clause mark starting before
// limit that at least minChars characters (leading white space not
// counted) precede.
func clauseEnd(t string, minChars, limit int) (int, bool) {
	p := 0
	for p < len(t) && isSpace(t[p]) {
		p++
	}
	counted, count := p, 0
	for {
		for p < len(t) && !isClauseByte(t[p]) {
			p++
		}
		if p >= len(t) || p >= limit {
			return 0, false
		}
		n := clauseMark(t, p)
		if n > 0 {
			// Count on from where the last mark's count stopped.
			if counted < p {
				count += Chars(t[counted:p])
			}
			counted = p
			if count >= minChars {
				return p + n, true
			}
		}
		p += max(n, 1)
	}
}

// FirstClause is First, but it also ends at the first clause mark that at
// least minChars characters (UTF-8 characters, leading white space not
// counted; a negative minChars counts as 0) precede, when that comes
// before the end of the first sentence: ',' ';' ':' '–' '—' followed by
// white space, a hyphen with white space on both sides, or the full-width
// ， 、 ； ： by themselves. It is sentence.first_clause(text, final,
// min_chars) of the Lua module.
func FirstClause(text string, final bool, minChars int) (end int, ok bool) {
	e, ok := First(text, final)
	limit := len(text)
	if ok {
		limit = e - 1
	}
	if c, found := clauseEnd(text, minChars, limit); found {
		return c, true
	}
	return e, ok
}
