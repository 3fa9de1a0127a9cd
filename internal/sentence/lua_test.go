package sentence_test

// The Go rules against the Lua module they twin, run in ttftlab's own VM:
// every prefix of thousands of generated texts in both modes, and the
// Splitter against the voice module's loop over random chunkings.

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/sentence"
	"ttftlab/runtime"
)

// luaTwin is the Lua side: prefixes(text, min) gives, for every prefix of
// text (0 to #text bytes), the end_index of sentence.first in both modes
// and of sentence.first_clause with min_chars min in both modes (-1 for
// nil); voice(chunks) runs the voice module's on_chunk loop (and its end)
// over the chunks and gives each sentence followed by the number of the
// chunk that completed it (#chunks + 1 for the end).
const luaTwin = `
local sentence = require("sentence")

local function trim(s)
  return (s:gsub("^%s+", ""):gsub("%s+$", ""))
end

function __prefixes(text, min)
  local out = {}
  for n = 0, #text do
    local p = text:sub(1, n)
    local s1, e1 = sentence.first(p, false)
    local s2, e2 = sentence.first(p, true)
    local s3, e3 = sentence.first_clause(p, false, min)
    local s4, e4 = sentence.first_clause(p, true, min)
    for _, pair in ipairs({ { s1, e1 }, { s2, e2 }, { s3, e3 }, { s4, e4 } }) do
      local s, e = pair[1], pair[2]
      if s == nil then
        out[#out + 1] = -1
      else
        assert(s == p:sub(1, e), "sentence is not the prefix up to end_index")
        out[#out + 1] = e
      end
    end
  end
  return out
end

function __voice(chunks)
  local pending, out = "", {}
  local function send(s, i)
    s = trim(s)
    if s ~= "" then
      out[#out + 1] = s
      out[#out + 1] = i
    end
  end
  for i, c in ipairs(chunks) do
    pending = pending .. c
    while true do
      local s, e = sentence.first(pending, false)
      if s == nil then
        break
      end
      send(s, i)
      pending = pending:sub(e + 1)
    end
  end
  while true do
    local s, e = sentence.first(pending, true)
    if s == nil then
      break
    end
    send(s, #chunks + 1)
    pending = pending:sub(e + 1)
  end
  return out
end
`

// twin is one VM holding luaTwin; a Lua state is not safe for several
// goroutines, hence the lock.
type twin struct {
	mu sync.Mutex
	L  *lua.LState
}

func newTwin(tb testing.TB) *twin {
	tb.Helper()
	vm, err := runtime.New(context.Background(), runtime.Config{Stdout: io.Discard, Stderr: io.Discard})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(vm.Close)
	L := vm.State()
	if err := L.DoString(luaTwin); err != nil {
		tb.Fatal(err)
	}
	return &twin{L: L}
}

func (w *twin) call(tb testing.TB, fn string, args ...lua.LValue) *lua.LTable {
	tb.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.L.CallByParam(lua.P{Fn: w.L.GetGlobal(fn), NRet: 1, Protect: true}, args...); err != nil {
		tb.Fatalf("%s: %v", fn, err)
	}
	v := w.L.Get(-1)
	w.L.Pop(1)
	t, ok := v.(*lua.LTable)
	if !ok {
		tb.Fatalf("%s returned %s", fn, v.Type())
	}
	return t
}

// prefixes returns the Lua module's four ends for every prefix of text.
func (w *twin) prefixes(tb testing.TB, text string, minChars int) [][4]int {
	tb.Helper()
	t := w.call(tb, "__prefixes", lua.LString(text), lua.LNumber(minChars))
	out := make([][4]int, len(text)+1)
	for n := range out {
		for k := range 4 {
			out[n][k] = int(lua.LVAsNumber(t.RawGetInt(4*n + k + 1)))
		}
	}
	return out
}

// voice returns the voice loop's sentences over chunks, each with the
// number of the chunk that completed it (len(chunks) + 1 for the end).
func (w *twin) voice(tb testing.TB, chunks []string) []sentence.Ready {
	tb.Helper()
	arr := w.L.NewTable()
	for _, c := range chunks {
		arr.Append(lua.LString(c))
	}
	t := w.call(tb, "__voice", arr)
	var out []sentence.Ready
	for i := 1; i <= t.Len(); i += 2 {
		out = append(out, sentence.Ready{Text: lua.LVAsString(t.RawGetInt(i)), TMs: float64(lua.LVAsNumber(t.RawGetInt(i + 1)))})
	}
	return out
}

// goEnds is the Go side of prefixes.
func goEnds(text string, minChars int) [][4]int {
	out := make([][4]int, len(text)+1)
	for n := range out {
		p := text[:n]
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
			out[n][k] = e
		}
	}
	return out
}

// goVoice feeds chunks to a Splitter, chunk i at time i.
func goVoice(chunks []string) []sentence.Ready {
	var s sentence.Splitter
	var out []sentence.Ready
	for i, c := range chunks {
		out = append(out, s.Feed(c, float64(i+1))...)
	}
	return append(out, s.End(float64(len(chunks)+1))...)
}

var calls = [4]string{"first(p, false)", "first(p, true)", "first_clause(p, false, min)", "first_clause(p, true, min)"}

// compare checks every prefix of text and the Splitter over chunkings of
// it; it returns the number of comparisons made.
func compare(t *testing.T, w *twin, text string, minChars int, rng *rand.Rand, chunkings int) int {
	t.Helper()
	want, got := w.prefixes(t, text, minChars), goEnds(text, minChars)
	for n := range want {
		for k := range 4 {
			if want[n][k] != got[n][k] {
				t.Fatalf("%s with p = %q, min = %d: Lua end %d, Go end %d", calls[k], text[:n], minChars, want[n][k], got[n][k])
			}
		}
	}
	for range chunkings {
		chunks := chop(text, rng)
		want, got := w.voice(t, chunks), goVoice(chunks)
		if fmt.Sprint(want) != fmt.Sprint(got) {
			t.Fatalf("chunks %q:\nLua voice loop %+v\nGo Splitter    %+v", chunks, want, got)
		}
	}
	return 4*len(want) + chunkings
}

// chop cuts text into random chunks: mostly a few bytes (tokens, cutting
// characters in two), sometimes one byte at a time, sometimes large.
func chop(text string, rng *rand.Rand) []string {
	var chunks []string
	maxLen := []int{1, 3, 6, 16, 64}[rng.IntN(5)]
	for len(text) > 0 {
		n := min(1+rng.IntN(maxLen), len(text))
		chunks = append(chunks, text[:n])
		text = text[n:]
		if rng.IntN(10) == 0 {
			chunks = append(chunks, "") // an empty chunk (a role or stop event)
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

// fixedTexts are the cases of the Go tests, held to the Lua module too.
var fixedTexts = []string{
	"Dr. Smith arrived. He sat.", "It costs 3.5 dollars. Yes", "e.g., this. Then", "At 8 a.m. we left. So",
	"At 8 a.m. 9 of us. So", "At 8 a.m. We left", "Apples etc. and pears. So", "Apples etc. 5 more", "No. 5 is here. So",
	"No. Five", "Mr. Big is here", "Wait... what now. So", "Wait... What", "Wait… (What", "Really?! yes",
	`He said "Hi." Then`, "「你好。」我", "你好!我是", "Hello.\xe4\xbd\xa0", "Hello\xe2\x80", "  Hi  ",
	"İ.e. Next one", "One, two, three, four, five", "  One, two, three, four, five", "One, two. Three, four",
	"walk-in at 7:30 for 1,000 people", "你好，世界", "A - b", "A — b", "Still going,",
	"Hello world. How are you? Dr. Who is 8 a.m. \n\nFine",
}

// TestSameAsLua compares the Go rules with the Lua module on every prefix
// of generated texts, and the Splitter with the voice loop on random
// chunkings of them.
func TestSameAsLua(t *testing.T) {
	w := newTwin(t)
	texts := 2000
	if testing.Short() {
		texts = 300
	}
	rng := rand.New(rand.NewPCG(22, 1))
	comparisons, bytes := 0, 0
	for _, text := range fixedTexts {
		for _, minChars := range []int{0, 20} {
			comparisons += compare(t, w, text, minChars, rng, 3)
		}
	}
	for i := range texts {
		text := gen(rng)
		minChars := []int{0, 1, 5, 20, 20, 40}[i%6]
		comparisons += compare(t, w, text, minChars, rng, 3)
		bytes += len(text)
	}
	t.Logf("%d texts (%d bytes), %d comparisons", texts, bytes, comparisons)
}

// TestSameAsLuaLongAnswer runs the Splitter and the voice loop over a long
// answer made of many generated texts, so sentences cross chunks and the
// Splitter's buffer is compacted.
func TestSameAsLuaLongAnswer(t *testing.T) {
	w := newTwin(t)
	rng := rand.New(rand.NewPCG(22, 2))
	answers := 6
	if testing.Short() {
		answers = 2
	}
	for range answers {
		var b strings.Builder
		for b.Len() < 20000 {
			b.WriteString(gen(rng))
			b.WriteString(" ")
		}
		chunks := chop(b.String(), rng)
		want, got := w.voice(t, chunks), goVoice(chunks)
		if fmt.Sprint(want) != fmt.Sprint(got) {
			for i := range min(len(want), len(got)) {
				if want[i] != got[i] {
					t.Fatalf("sentence %d: Lua %+v, Go %+v", i, want[i], got[i])
				}
			}
			t.Fatalf("Lua gives %d sentences, Go %d", len(want), len(got))
		}
	}
}

var fuzzTwin struct {
	once sync.Once
	w    *twin
}

// FuzzSameAsLua compares the Go rules with the Lua module on every prefix
// of the input, and the Splitter with the voice loop on a chunking of it
// chosen by seed.
func FuzzSameAsLua(f *testing.F) {
	for _, s := range []string{"Dr. Smith arrived. He sat.", "At 8 a.m. we left. Then", "Wait... What?", "你好。我是",
		"He said \"Hi.\" Then left.", "No. 5 is etc. and more", "（注意！）次", "Hmm\xe2\x80", "one, two, three; four: five"} {
		f.Add(s, uint64(1), uint8(20))
	}
	f.Fuzz(func(t *testing.T, text string, seed uint64, minChars uint8) {
		if len(text) > 400 {
			return
		}
		fuzzTwin.once.Do(func() {
			vm, err := runtime.New(context.Background(), runtime.Config{Stdout: io.Discard, Stderr: io.Discard})
			if err != nil {
				panic(err)
			}
			if err := vm.State().DoString(luaTwin); err != nil {
				panic(err)
			}
			fuzzTwin.w = &twin{L: vm.State()}
		})
		compare(t, fuzzTwin.w, text, int(minChars), rand.New(rand.NewPCG(seed, 0)), 1)
	})
}
