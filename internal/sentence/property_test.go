package sentence_test

// Properties every answer must have, over thousands of generated texts
// and random chunkings of them: a decision, once made, stands for every
// longer text; final mode agrees with it; the Splitter peels exactly what
// the plain loop (First over the pending text after every chunk, as
// stdlib/ask.lua does) peels.

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"ttftlab/internal/sentence"
)

// ends are the four answers on one prefix: First and FirstClause, each
// non-final and final; -1 for none.
type ends [4]int

func endsOf(p string, minChars int) ends {
	var out ends
	for k, f := range []func() (int, bool){
		func() (int, bool) { return sentence.First(p, false) },
		func() (int, bool) { return sentence.First(p, true) },
		func() (int, bool) { return sentence.FirstClause(p, false, minChars) },
		func() (int, bool) { return sentence.FirstClause(p, true, minChars) },
	} {
		e, ok := f()
		if !ok {
			e = -1
		}
		out[k] = e
	}
	return out
}

func isSpace(b byte) bool { return strings.IndexByte(" \t\n\v\f\r", b) >= 0 }

// checkPrefixes holds every prefix of text to the properties.
func checkPrefixes(t *testing.T, text string, minChars int) {
	t.Helper()
	prev := ends{-1, -1, -1, -1}
	for n := 0; n <= len(text); n++ {
		p := text[:n]
		e := endsOf(p, minChars)
		blank := strings.TrimLeft(p, " \t\n\v\f\r") == ""
		fail := func(format string, args ...any) {
			t.Helper()
			t.Fatalf("text %q, min %d, prefix %q (ends %v): %s", text, minChars, p, e, fmt.Sprintf(format, args...))
		}
		// A decision stands for every longer text (and so a chunk that
		// completes a sentence can be told at once).
		if prev[0] >= 0 && e[0] != prev[0] {
			fail("First decided %d on the prefix before, now %d", prev[0], e[0])
		}
		if prev[2] >= 0 && e[2] != prev[2] {
			fail("FirstClause decided %d on the prefix before, now %d", prev[2], e[2])
		}
		// Final mode says what a decision says, and finds a sentence in
		// any text that is not blank; it never ends on white space.
		if e[0] >= 0 && e[1] != e[0] {
			fail("final First %d, non-final %d", e[1], e[0])
		}
		if e[2] >= 0 && e[3] != e[2] {
			fail("final FirstClause %d, non-final %d", e[3], e[2])
		}
		if (e[1] < 0) != blank || (e[3] < 0) != blank {
			fail("a sentence must exist exactly when the text is not blank")
		}
		for k := range 4 {
			if e[k] == 0 || e[k] > n || (e[k] > 0 && isSpace(p[e[k]-1])) {
				fail("answer %d ends at %d", k, e[k])
			}
		}
		// A clause ends no later than the sentence.
		if e[0] >= 0 && (e[2] < 0 || e[2] > e[0]) {
			fail("the first clause does not end by the first sentence's end")
		}
		if e[3] > e[1] {
			fail("the final first clause ends after the final first sentence")
		}
		prev = e
	}
}

// plainLoop is what the Splitter must give: after each chunk, First over
// the pending text until it finds nothing; at the end, final mode; each
// sentence trimmed, with the time of the chunk that completed it (chunk i
// at time i+1, the end at len(chunks)+1).
func plainLoop(chunks []string) []sentence.Ready {
	var out []sentence.Ready
	pending := ""
	peel := func(final bool, tMs float64) {
		for {
			e, ok := sentence.First(pending, final)
			if !ok {
				return
			}
			if s := strings.Trim(pending[:e], " \t\n\v\f\r"); s != "" {
				out = append(out, sentence.Ready{Text: s, TMs: tMs})
			}
			pending = pending[e:]
		}
	}
	for i, c := range chunks {
		pending += c
		peel(false, float64(i+1))
	}
	peel(true, float64(len(chunks)+1))
	return out
}

// splitter feeds chunks to a Splitter, chunk i at time i+1.
func splitter(chunks []string) []sentence.Ready {
	var s sentence.Splitter
	var out []sentence.Ready
	for i, c := range chunks {
		out = append(out, s.Feed(c, float64(i+1))...)
	}
	return append(out, s.End(float64(len(chunks)+1))...)
}

func checkSplitter(t *testing.T, chunks []string) {
	t.Helper()
	want, got := plainLoop(chunks), splitter(chunks)
	if fmt.Sprint(want) == fmt.Sprint(got) {
		return
	}
	for i := range min(len(want), len(got)) {
		if want[i] != got[i] {
			t.Fatalf("chunks %.300q:\nsentence %d: Splitter %+v, plain loop %+v", chunks, i, got[i], want[i])
		}
	}
	t.Fatalf("chunks %.300q: the Splitter gives %d sentences, the plain loop %d", chunks, len(got), len(want))
}

// chop cuts text into random chunks: mostly a few bytes (tokens, cutting
// characters in two), sometimes one byte at a time, sometimes large, now
// and then an empty one (a role or stop event).
func chop(text string, rng *rand.Rand) []string {
	var chunks []string
	maxLen := []int{1, 3, 6, 16, 64}[rng.IntN(5)]
	for len(text) > 0 {
		n := min(1+rng.IntN(maxLen), len(text))
		chunks = append(chunks, text[:n])
		text = text[n:]
		if rng.IntN(10) == 0 {
			chunks = append(chunks, "")
		}
	}
	return chunks
}

// Pieces of text where the rules have something to decide.
var (
	abbrevs = []string{"Dr", "Mr", "Mrs", "Ms", "Mx", "Prof", "St", "vs", "e.g", "i.e", "cf", "a.m", "p.m", "etc", "No",
		"no", "A.M", "P.m", "ETC", "DR", "Vs", "E.G", "nO", "İ.e", "(Dr", "“etc", "x.a.m", "8a.m"}
	words = []string{"Hello", "It", "We", "Élan", "Ünal", "U.S", "Dr.Who", "world", "the", "it", "été", "walk-in",
		"e.g.,", "a.m.,", "vs.", "3.5", "5", "42", "1,000", "7:30", "0", "x", "a", "Z",
		"loooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooong"}
	marks = []string{".", ".", ".", "!", "?", "..", "...", "....", "…", "!?", "?!", ". . .", ".!", "…!", "。", "！",
		"？", "｡", ".。", "!！", "……"}
	closerPieces = []string{`"`, "'", ")", "]", "”", "’", "」", "』", "）", "】", "》", "〉", "〕", "］", "＂", "＇", `")`}
	openerPieces = []string{`"`, "'", "(", "[", "“", "‘", "「", "『", "（", "【", "《", "〈", "〔", "［", `("`}
	spaces       = []string{" ", " ", " ", "  ", "\t", "\n", "\n\n", "\r\n", "\v", "\f", "\r", "\u00a0", "\u3000", "\u2003",
		"\u0085", "   \n  "}
	cjkPieces = []string{"你好", "我是", "日本語", "です", "한국어", "안녕하세요", "中文", "カタカナ", "𠀀", "，", "、", "；",
		"：", "ｱｲ", "豈"}
	clausePieces = []string{",", ";", ":", " - ", "–", "—", "-", " – ", "— "}
	stray        = []string{"\xe2\x80", "\xa0", "\x85", "\xc3", "\xff", "\xf8\x80\x80\x80", "\xe3\x80", "\xef\xbc", "\xf0\xa0\x80", "\xed\xa0\x80"}
)

func init() {
	// The 64-byte look-back for the word before a dot: opening brackets
	// and an abbreviation that fill it or not quite.
	for n := 59; n <= 63; n++ {
		abbrevs = append(abbrevs, strings.Repeat("(", n)+"Dr", strings.Repeat("(", n-1)+"No")
	}
	abbrevs = append(abbrevs, strings.Repeat("（", 20)+"Dr", strings.Repeat("（", 21)+"Dr")
}

// gen builds a text from a seeded mix of the pieces, shaped like prose
// most of the time (a word, maybe an end mark and closers, white space or
// CJK text, maybe openers, the next word), so that every abbreviation
// meets every kind of next word; now and then a clause mark or a stray
// byte; sometimes cut off anywhere, characters too.
func gen(rng *rand.Rand) string {
	var b strings.Builder
	pick := func(list []string) string { return list[rng.IntN(len(list))] }
	maybe := func(percent int, list []string) {
		if rng.IntN(100) < percent {
			b.WriteString(pick(list))
		}
	}
	for range 1 + rng.IntN(12) {
		maybe(15, openerPieces)
		switch x := rng.IntN(100); {
		case x < 35:
			b.WriteString(pick(abbrevs))
			if rng.IntN(10) > 0 {
				b.WriteString(".")
			}
		case x < 80:
			b.WriteString(pick(words))
			maybe(60, marks)
		default:
			b.WriteString(pick(cjkPieces))
			maybe(60, marks)
		}
		maybe(20, closerPieces)
		maybe(10, clausePieces)
		switch x := rng.IntN(100); {
		case x < 75:
			b.WriteString(pick(spaces))
		case x < 90:
			b.WriteString(pick(cjkPieces))
		case x < 95:
			b.WriteString(pick(stray))
		}
	}
	text := b.String()
	if rng.IntN(4) == 0 && len(text) > 0 {
		text = text[:rng.IntN(len(text))]
	}
	return text
}

// fixedTexts are answers with something to decide at many places, held
// to the properties besides the generated ones.
var fixedTexts = []string{
	"It opens at 8 a.m. on Saturday. Bring your card.", "We open at 8:30 a.m. Please bring ID.",
	"Dr. Lee sees kids, e.g. Babies, etc. and teens. Call us.", "Wait... Then 3.5 hours later! Done.",
	"他说：“好的。”然后走了。", "你好!我是前台。", "「はい。」と言った。", "병원은 8시에 문을 엽니다. 신분증을 가져오세요.",
	"停车每小时3.5元。请早到。", "Hello world. How are you? Dr. Who is 8 a.m. \n\nFine", "İ.e. Next one",
	"One, two, three, four, five", "walk-in at 7:30 for 1,000 people", "你好，世界", "A - b", "Still going,",
	"请带上您的身份证、保险卡和药物清单，我们早上八点开门。", "Wait… (What", "Hello.\xe4\xbd\xa0", "Hello\xe2\x80",
}

// TestProperties holds every prefix of generated texts to the properties,
// and the Splitter to the plain loop on random chunkings of them.
func TestProperties(t *testing.T) {
	texts := 2000
	if testing.Short() {
		texts = 300
	}
	rng := rand.New(rand.NewPCG(22, 1))
	for _, text := range fixedTexts {
		for _, minChars := range []int{0, 8, 20} {
			checkPrefixes(t, text, minChars)
		}
		for range 5 {
			checkSplitter(t, chop(text, rng))
		}
	}
	bytes := 0
	for i := range texts {
		text := gen(rng)
		checkPrefixes(t, text, []int{0, 1, 5, 20, 20, 40}[i%6])
		for range 3 {
			checkSplitter(t, chop(text, rng))
		}
		bytes += len(text)
	}
	t.Logf("%d texts, %d bytes", texts, bytes)
}

// TestSplitterLongAnswer runs the Splitter over long answers made of many
// generated texts, so sentences cross chunks and its buffer is compacted.
func TestSplitterLongAnswer(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 2))
	for range 6 {
		var b strings.Builder
		for b.Len() < 20000 {
			b.WriteString(gen(rng))
			b.WriteString(" ")
		}
		checkSplitter(t, chop(b.String(), rng))
	}
}

// FuzzProperties holds every prefix of the input to the properties, and
// the Splitter to the plain loop on a chunking of it chosen by seed.
func FuzzProperties(f *testing.F) {
	for _, s := range []string{"Dr. Smith arrived. He sat.", "At 8 a.m. we left. Then", "Wait... What?", "你好。我是",
		"He said \"Hi.\" Then left.", "No. 5 is etc. and more", "（注意！）次", "Hmm\xe2\x80", "one, two, three; four: five"} {
		f.Add(s, uint64(1), uint8(20))
	}
	f.Fuzz(func(t *testing.T, text string, seed uint64, minChars uint8) {
		if len(text) > 2000 {
			return
		}
		checkPrefixes(t, text, int(minChars))
		checkSplitter(t, chop(text, rand.New(rand.NewPCG(seed, 0))))
	})
}
