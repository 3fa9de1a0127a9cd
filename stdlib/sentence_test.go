package stdlib_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/sentence"
)

// The sentence rules are Go's and tested there (internal/sentence); these
// tests hold the module to them: each function returns what the Go code
// says, in the module's shapes (a prefix and its end index, or nil), and
// first_time, split and the argument checks written in Lua do what
// stdlib/README.md says.

// callAll calls fn with args and returns every value it returned.
func callAll(t *testing.T, L *lua.LState, fn lua.LValue, args ...lua.LValue) []lua.LValue {
	t.Helper()
	top := L.GetTop()
	if err := L.CallByParam(lua.P{Fn: fn, NRet: lua.MultRet, Protect: true}, args...); err != nil {
		t.Fatalf("%v", err)
	}
	out := make([]lua.LValue, L.GetTop()-top)
	for i := range out {
		out[i] = L.Get(top + 1 + i)
	}
	L.SetTop(top)
	return out
}

// bindingTexts are the inputs the binding is held to the Go code on,
// every prefix of each: the README's examples, every kind of rule, CJK
// text, characters cut off and broken bytes.
var bindingTexts = []string{
	"It opens at 8 a.m. on Saturday. Bring ID.", "We open at 8 a.m. Please call.", "It costs 3.5 dollars",
	"「はい。」と言った。", "병원은 8시에 엽니다. 주차는", "Dr. Smith, e.g. Prof. Lee, etc. and No. 5 left... Then!",
	"Wait… (What? 他说：“好的。”然后走了。", "Please bring your photo ID, your card. Then", "Yes, we open at eight. Then",
	"请带上您的身份证、保险卡和药物清单，我们八点开门。", "walk-in at 7:30 for 1,000 people - or more — yes; no: ok",
	"  \t Hi.\n\nThere  ", "Hello.\xe4\xbd\xa0 \xff\x80 x. 𠀀！\xe2\x80", "",
}

// TestSentenceBindsGo: first, first_clause (with the default and given
// min_chars), split and chars return what internal/sentence says, on
// every prefix of bindingTexts; first_time what First says of the text so
// far after each chunk, on random chunkings of them.
func TestSentenceBindsGo(t *testing.T) {
	L := newVM(t)
	mod := mustEval(t, L, `return require("sentence")`)[0]
	fn := func(name string) lua.LValue { return L.GetField(mod, name) }
	if got := num(t, L.GetField(mod, "MIN_CLAUSE_CHARS")); got != sentence.MinClauseChars {
		t.Errorf("sentence.MIN_CLAUSE_CHARS = %v, Go's MinClauseChars %d", got, sentence.MinClauseChars)
	}
	// same holds one call's values to Go's answer: the prefix of p ending
	// at end and end, or a single nil.
	same := func(call string, p string, got []lua.LValue, end int, ok bool) {
		t.Helper()
		want := "[nil]"
		if ok {
			want = fmt.Sprintf("[%s %d]", p[:end], end)
		}
		if fmt.Sprint(got) != want {
			t.Errorf("%s on %q = %v, Go says %v", call, p, got, want)
		}
	}
	for _, text := range bindingTexts {
		for n := 0; n <= len(text); n++ {
			p := text[:n]
			for _, final := range []bool{false, true} {
				e, ok := sentence.First(p, final)
				same(fmt.Sprintf("first(p, %v)", final), p, callAll(t, L, fn("first"), lua.LString(p), lua.LBool(final)), e, ok)
				e, ok = sentence.FirstClause(p, final, sentence.MinClauseChars)
				same(fmt.Sprintf("first_clause(p, %v)", final), p, callAll(t, L, fn("first_clause"), lua.LString(p), lua.LBool(final)), e, ok)
				for _, min := range []int{0, 8} {
					e, ok = sentence.FirstClause(p, final, min)
					same(fmt.Sprintf("first_clause(p, %v, %d)", final, min), p,
						callAll(t, L, fn("first_clause"), lua.LString(p), lua.LBool(final), lua.LNumber(min)), e, ok)
				}
			}
		}
		var s sentence.Splitter
		var want []string
		for _, r := range append(s.Feed(text, 0), s.End(0)...) {
			want = append(want, r.Text)
		}
		split := callAll(t, L, fn("split"), lua.LString(text))[0].(*lua.LTable)
		var got []string
		for i := 1; i <= split.Len(); i++ {
			got = append(got, split.RawGetInt(i).String())
		}
		if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
			t.Errorf("split(%q) = %q, the Go Splitter gives %q", text, got, want)
		}
		if got := num(t, callAll(t, L, fn("chars"), lua.LString(text))[0]); int(got) != sentence.Chars(text) {
			t.Errorf("chars(%q) = %v, Go's Chars %d", text, got, sentence.Chars(text))
		}
	}
	rng := rand.New(rand.NewPCG(3, 3))
	for _, text := range bindingTexts {
		for range 20 {
			chunks := L.NewTable()
			var texts []string
			for rest := text; rest != ""; {
				k := min(1+rng.IntN(6), len(rest))
				texts = append(texts, rest[:k])
				rest = rest[k:]
			}
			for i, c := range texts {
				chunk := L.NewTable()
				chunk.RawSetString("t_ms", lua.LNumber(10*(i+1)))
				chunk.RawSetString("text", lua.LString(c))
				chunks.Append(chunk)
			}
			want := "[nil]"
			so := ""
			for i, c := range texts {
				so += c
				if e, ok := sentence.First(so, false); ok {
					want = fmt.Sprintf("[%s %d]", so[:e], 10*(i+1))
					break
				}
				if i == len(texts)-1 {
					if e, ok := sentence.First(so, true); ok {
						want = fmt.Sprintf("[%s %d]", so[:e], 10*(i+1))
					}
				}
			}
			if got := fmt.Sprint(callAll(t, L, fn("first_time"), chunks)); got != want {
				t.Errorf("first_time(%q) = %s, Go's First after each chunk says %s", texts, got, want)
			}
		}
	}
}

type firstTimeCase struct {
	chunks string // a Lua array of chunks
	want   string
	tMs    float64
}

func TestSentenceFirstTime(t *testing.T) {
	L := newVM(t)
	for _, c := range []firstTimeCase{
		// The dot after "Saturday" is last until " Bring" arrives.
		{`{{t_ms=10, text="It opens at 8 a"}, {t_ms=20, text=".m. on"}, {t_ms=30, text=" Saturday."}, {t_ms=40, text=" Bring ID."}}`,
			"It opens at 8 a.m. on Saturday.", 40},
		// White space alone does not decide "a.m."; the next word does.
		{`{{t_ms=5, text="We open at 8 a.m."}, {t_ms=6, text=" "}, {t_ms=9, text="Please"}, {t_ms=12, text=" call."}}`,
			"We open at 8 a.m.", 9},
		{`{{t_ms=5, text="Hi."}, {t_ms=7, text=" There"}}`, "Hi.", 7},
		{`{{t_ms=5, text="Hi. There"}, {t_ms=7, text="."}}`, "Hi.", 5},
		// Never decidable: the whole answer at the last chunk's time.
		{`{{t_ms=1, text="Hello"}, {t_ms=2, text=" world"}, {t_ms=3, text="  "}}`, "Hello world", 3},
		{`{{t_ms=1, text="Open at 8 a.m."}}`, "Open at 8 a.m.", 1},
		// Positional pairs work too.
		{`{{3, "One."}, {4, " Two."}}`, "One.", 4},
		// A full stop last in its chunk: the next character decides.
		{`{{t_ms=10, text="请带上"}, {t_ms=20, text="身份证。"}, {t_ms=30, text="还有"}}`, "请带上身份证。", 30},
		// A closing quote in the next chunk still belongs to the sentence.
		{`{{t_ms=10, text="他说：“好的。"}, {t_ms=20, text="”"}, {t_ms=30, text="然后"}}`, "他说：“好的。”", 30},
		{`{{t_ms=5, text="明日は休みです。月"}, {t_ms=9, text="曜日"}}`, "明日は休みです。", 5},
		{`{{t_ms=5, text="네, 8시에 엽니다."}, {t_ms=7, text=" 감사합니다."}}`, "네, 8시에 엽니다.", 7},
		{`{{t_ms=1, text="请带上"}, {t_ms=2, text="身份证。"}}`, "请带上身份证。", 2},
		// Empty chunks (a role or stop event) are no text.
		{`{{t_ms=1, text="Hi."}, {t_ms=2, text=""}, {t_ms=3, text=" x"}, {t_ms=4, text=""}}`, "Hi.", 3},
	} {
		out := mustEval(t, L, `return require("sentence").first_time(`+c.chunks+`)`)
		if len(out) != 2 || out[0].String() != c.want || num(t, out[1]) != c.tMs {
			t.Errorf("first_time(%s) = %v, want %q, %v", c.chunks, out, c.want, c.tMs)
		}
	}
	for _, chunks := range []string{`{}`, `{{t_ms=1, text="  "}}`} {
		out := mustEval(t, L, `return require("sentence").first_time(`+chunks+`)`)
		if len(out) != 1 || out[0] != lua.LNil {
			t.Errorf("first_time(%s) = %v, want nil", chunks, out)
		}
	}
	assertErr(t, L, `require("sentence").first_time({{t_ms=1, text="a"}, {t_ms="x", text="b"}})`, "sentence.first_time", "chunks[2]", "t_ms")
	assertErr(t, L, `require("sentence").first_time({"a"})`, "chunks[1]", "string")
	assertErr(t, L, `require("sentence").first_time("a")`, "chunks must be an array")
}

func TestSentenceSplit(t *testing.T) {
	L := newVM(t)
	for _, c := range []struct {
		text string
		want string // sentences joined with "|"
	}{
		{"Hi. We open at 8 a.m. on Saturday. Call Dr. Lee!  Ok", "Hi.|We open at 8 a.m. on Saturday.|Call Dr. Lee!|Ok"},
		{"  One.\n\nTwo?  ", "One.|Two?"},
		{"Open 8 a.m. Bye", "Open 8 a.m.|Bye"},
		{"No end here", "No end here"},
		{"", ""},
		{"   ", ""},
		{"请带上身份证。还有保险卡！您几点到？", "请带上身份证。|还有保险卡！|您几点到？"},
		{"Please come early. 请早到。", "Please come early.|请早到。"},
	} {
		out := mustEval(t, L, `return table.concat(require("sentence").split(`+luaQuote(c.text)+`), "|")`)
		if out[0].String() != c.want {
			t.Errorf("split(%q) = %q, want %q", c.text, out[0], c.want)
		}
	}
}

// TestSentenceArguments: the module's own argument checks, which name the
// function and blame the caller.
func TestSentenceArguments(t *testing.T) {
	L := newVM(t)
	assertErr(t, L, `require("sentence").first(42)`, "sentence.first", "number")
	assertErr(t, L, `require("sentence").split(nil)`, "sentence.split", "nil")
	assertErr(t, L, `require("sentence").first_clause(7)`, "sentence.first_clause", "text must be a string")
	assertErr(t, L, `require("sentence").first_clause("a", false, -1)`, "sentence.first_clause", "min_chars", "-1")
	assertErr(t, L, `require("sentence").first_clause("a", false, 1.5)`, "sentence.first_clause", "min_chars", "1.5")
	// final is any Lua value, read as a condition.
	out := mustEval(t, L, `local s = require("sentence"); return s.first("x", nil), s.first("x", 0)`)
	if fmt.Sprint(out) != "[nil x 1]" {
		t.Errorf("first(\"x\", nil), first(\"x\", 0) = %v, want nil and \"x\"", out)
	}
	if msg := evalErr(t, L, "\n\nrequire(\"sentence\").first({})"); !strings.Contains(msg, ":3:") {
		t.Errorf("the error blames %q, want the caller's line 3", msg)
	}
}
