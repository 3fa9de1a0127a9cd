package stdlib_test

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestSentenceChars: chars counts every byte that does not continue a
// UTF-8 character, for ASCII (the fast path), CJK, mixed and broken text,
// and for a range of it.
func TestSentenceChars(t *testing.T) {
	L := newVM(t)
	count := func(s string) int {
		n := 0
		for i := 0; i < len(s); i++ {
			if s[i] < 128 || s[i] > 191 {
				n++
			}
		}
		return n
	}
	texts := []string{"", "Hello there.", strings.Repeat("digits 1234567890 ", 200), "请带上身份证。",
		"mixed: café, naïve, 東京", "\xff\xfe broken \x80\x80", strings.Repeat("日本語のテキスト", 100)}
	for _, s := range texts {
		got := int(num(t, mustEval(t, L, fmt.Sprintf(`return require("sentence").chars(%s)`, luaQuote(s)))[0]))
		if got != count(s) {
			t.Errorf("chars(%q) = %d, want %d", s, got, count(s))
		}
		if utf8.ValidString(s) && got != utf8.RuneCountInString(s) {
			t.Errorf("chars(%q) = %d, want the rune count %d", s, got, utf8.RuneCountInString(s))
		}
		if len(s) > 4 {
			got := int(num(t, mustEval(t, L, fmt.Sprintf(`return require("sentence").chars(%s, 2, %d)`, luaQuote(s), len(s)-1))[0]))
			if want := count(s[1 : len(s)-1]); got != want {
				t.Errorf("chars(%q, 2, %d) = %d, want %d", s, len(s)-1, got, want)
			}
		}
	}
}

// referenceLua is the plain way the fast functions must agree with: the
// first sentence tried after every chunk, the sentences cut one by one
// after every chunk, the first clause tried after every chunk.
const referenceLua = `
local sentence = require("sentence")
local M = {}
function M.first_time(chunks)
  local text = ""
  for i, c in ipairs(chunks) do
    text = text .. c.text
    local s = sentence.first(text, false)
    if s then return s, c.t_ms end
  end
  if #chunks == 0 then return nil end
  local s = sentence.first(text, true)
  if not s then return nil end
  return s, chunks[#chunks].t_ms
end
function M.sentences(chunks)
  local out, rest = {}, ""
  for _, c in ipairs(chunks) do
    rest = rest .. c.text
    while true do
      local s, e = sentence.first(rest, false)
      if not s then break end
      out[#out + 1] = (s:gsub("^%s+", "")) .. "@" .. c.t_ms
      rest = rest:sub(e + 1)
    end
  end
  for _, s in ipairs(sentence.split(rest)) do
    out[#out + 1] = s .. "@" .. chunks[#chunks].t_ms
  end
  return table.concat(out, "|")
end
function M.clause(chunks)
  local text = ""
  for _, c in ipairs(chunks) do
    text = text .. c.text
    if sentence.first_clause(text, false) then return c.t_ms end
  end
  if #chunks == 0 or not sentence.first_clause(text, true) then return nil end
  return chunks[#chunks].t_ms
end
return M
`

// TestFastMatchesReference cuts answers into chunks at random and checks
// that first_time, speech.pacing's sentences and first_clause_ms say what
// the per-chunk reference says: the fast ones try only a few chunks, which
// is right only if a decision, once made, stands for every longer text.
func TestFastMatchesReference(t *testing.T) {
	L := newVM(t)
	if err := L.DoString(`REF = (function() ` + referenceLua + ` end)()`); err != nil {
		t.Fatal(err)
	}
	answers := []string{
		"Dr. Smith will see you at 9 a.m. tomorrow. Please bring your card. Thanks!",
		"It costs 3.5 dollars... Or so. Wait, no; it is free: really. \"Yes.\" (OK.) Fine",
		"I met Mr. Brown, e.g. at work, and Prof. Lee etc. and more. No. 5 is here. no. Done",
		"请带上身份证。还有保险卡！好吗？“好的。”谢谢",
		"明日は休みです。月曜日に来てください｡はい",
		"Well, the clinic opens at seven thirty, so please arrive a little early, and bring your card. Thanks.",
		"   Leading space. Then more... And more?! Yes. ",
		strings.Repeat("word ", 40) + "end. " + strings.Repeat("x", 100) + ". Next",
		"no end at all, just a clause that goes on and on without any stop",
	}
	rng := rand.New(rand.NewSource(7))
	for _, a := range answers {
		for trial := 0; trial < 30; trial++ {
			chunks := cutAtRandom(rng, a)
			src := luaChunks(chunks)
			out := mustEval(t, L, `local c = `+src+`
				local sentence, speech = require("sentence"), require("speech")
				local s1, t1 = sentence.first_time(c)
				local s2, t2 = REF.first_time(c)
				local p = speech.pacing(c)
				local got = {}
				for i, s in ipairs(p.sentences) do got[i] = s.text .. "@" .. s.ready_ms end
				return tostring(s1) .. "@" .. tostring(t1), tostring(s2) .. "@" .. tostring(t2),
					table.concat(got, "|"), REF.sentences(c),
					tostring(speech.first_clause_ms(c)), tostring(REF.clause(c))`)
			for k := 0; k < 6; k += 2 {
				if out[k].String() != out[k+1].String() {
					t.Errorf("%q cut as %q:\n got  %s\n want %s", a, chunks, out[k], out[k+1])
				}
			}
		}
	}
}

// cutAtRandom splits s into chunks of 1 to 8 bytes, sometimes mid-character.
func cutAtRandom(rng *rand.Rand, s string) []string {
	var out []string
	for len(s) > 0 {
		n := min(1+rng.Intn(8), len(s))
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

func luaChunks(texts []string) string {
	var b strings.Builder
	b.WriteString("{")
	for i, s := range texts {
		fmt.Fprintf(&b, "{t_ms = %d, text = %s},", (i+1)*10, luaQuote(s))
	}
	b.WriteString("}")
	return b.String()
}
