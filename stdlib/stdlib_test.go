package stdlib_test

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/runtime"
	"ttftlab/stdlib"
)

// newVM returns the Lua state of a fresh ttftlab VM: the modules load as
// in a script, with the host's own error levels.
func newVM(t *testing.T) *lua.LState {
	t.Helper()
	vm, err := runtime.New(context.Background(), runtime.Config{Stdout: io.Discard, Stderr: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(vm.Close)
	return vm.State()
}

// eval runs code as chunk "test" and returns what it returned.
func eval(t *testing.T, L *lua.LState, code string) ([]lua.LValue, error) {
	t.Helper()
	fn, err := L.Load(strings.NewReader(code), "test")
	if err != nil {
		t.Fatalf("compiling test chunk: %v\n%s", err, code)
	}
	base := L.GetTop()
	L.Push(fn)
	if err := L.PCall(0, lua.MultRet, nil); err != nil {
		return nil, err
	}
	out := make([]lua.LValue, 0, L.GetTop()-base)
	for i := base + 1; i <= L.GetTop(); i++ {
		out = append(out, L.Get(i))
	}
	L.SetTop(base)
	return out, nil
}

// mustEval is eval for code that must not fail.
func mustEval(t *testing.T, L *lua.LState, code string) []lua.LValue {
	t.Helper()
	out, err := eval(t, L, code)
	if err != nil {
		t.Fatalf("%s\nfailed: %v", code, err)
	}
	return out
}

// assertErr runs code that must fail and checks that the message mentions
// every want and points at the calling line (test:1:), not into the module.
func assertErr(t *testing.T, L *lua.LState, code string, want ...string) {
	t.Helper()
	msg := evalErr(t, L, code)
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("%s: error %q does not mention %q", code, msg, w)
		}
	}
	if !strings.HasPrefix(msg, "test:1:") {
		t.Errorf("%s: error %q should start with the caller's position test:1:", code, msg)
	}
}

// evalErr runs code that must fail and returns the error text.
func evalErr(t *testing.T, L *lua.LState, code string) string {
	t.Helper()
	_, err := eval(t, L, code)
	if err == nil {
		t.Fatalf("%s\nsucceeded, want an error", code)
	}
	return err.Error()
}

func num(t *testing.T, v lua.LValue) float64 {
	t.Helper()
	n, ok := v.(lua.LNumber)
	if !ok {
		t.Fatalf("got %s %v, want a number", v.Type(), v)
	}
	return float64(n)
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestModulesReturnTablesAndLeakNoGlobals(t *testing.T) {
	for _, name := range []string{"stats", "sentence", "prompt", "speech"} {
		L := newVM(t)
		out := mustEval(t, L, `
			local before = {}
			for k in pairs(_G) do before[k] = true end
			local m = require("`+name+`")
			local leaked = {}
			for k in pairs(_G) do
				if not before[k] then leaked[#leaked + 1] = tostring(k) end
			end
			return type(m), table.concat(leaked, ",")`)
		if out[0].String() != "table" {
			t.Errorf("%s returns a %s, want a table", name, out[0])
		}
		if out[1].String() != "" {
			t.Errorf("%s leaked globals: %s", name, out[1])
		}
	}
}

func TestStatsMedian(t *testing.T) {
	L := newVM(t)
	cases := []struct {
		xs   string
		want float64
	}{
		{"{5, 1, 4, 2, 3}", 3},
		{"{10, 50, 20, 40, 30}", 30},
		{"{4, 1, 3, 2}", 2.5},
		{"{7}", 7},
		{"{2, 2, 9}", 2},
		{"{-1, -3}", -2},
	}
	for _, c := range cases {
		got := num(t, mustEval(t, L, `return require("stats").median(`+c.xs+`)`)[0])
		if got != c.want {
			t.Errorf("median(%s) = %v, want %v", c.xs, got, c.want)
		}
	}
}

func TestStatsDoesNotMutateInput(t *testing.T) {
	L := newVM(t)
	out := mustEval(t, L, `
		local stats = require("stats")
		local xs = {5, 1, 4, 2, 3}
		stats.median(xs); stats.percentile(xs, 90); stats.summary(xs); stats.stdev(xs)
		return table.concat(xs, ",")`)
	if out[0].String() != "5,1,4,2,3" {
		t.Errorf("input became %s, want 5,1,4,2,3", out[0])
	}
}

func TestStatsPercentile(t *testing.T) {
	L := newVM(t)
	cases := []struct {
		xs   string
		p    string
		want float64
	}{
		{"{5, 4, 3, 2, 1}", "0", 1},
		{"{5, 4, 3, 2, 1}", "100", 5},
		{"{5, 4, 3, 2, 1}", "50", 3},
		{"{5, 4, 3, 2, 1}", "25", 2},
		{"{5, 4, 3, 2, 1}", "90", 4.6},
		{"{10, 20}", "50", 15},
		{"{10, 20}", "99", 19.9},
		{"{42}", "73", 42},
		{"{1, 2, 3, 4}", "50", 2.5},
	}
	for _, c := range cases {
		got := num(t, mustEval(t, L, `return require("stats").percentile(`+c.xs+`, `+c.p+`)`)[0])
		if !near(got, c.want) {
			t.Errorf("percentile(%s, %s) = %v, want %v", c.xs, c.p, got, c.want)
		}
	}
}

func TestStatsMeanMinMaxStdev(t *testing.T) {
	L := newVM(t)
	out := mustEval(t, L, `
		local s = require("stats")
		local xs = {2, 4, 4, 4, 5, 5, 7, 9}
		return s.mean(xs), s.min(xs), s.max(xs), s.stdev(xs), s.min({3, -8, 1}), s.max({-3, -8})`)
	want := []float64{5, 2, 9, math.Sqrt(32.0 / 7.0), -8, -3}
	for i, w := range want {
		if got := num(t, out[i]); !near(got, w) {
			t.Errorf("result %d = %v, want %v", i, got, w)
		}
	}
}

func TestStatsSummary(t *testing.T) {
	L := newVM(t)
	out := mustEval(t, L, `
		local s = require("stats").summary({50, 10, 40, 20, 30})
		return s.n, s.min, s.p50, s.p90, s.p99, s.max, s.mean`)
	want := []float64{5, 10, 30, 46, 49.6, 50, 30}
	names := []string{"n", "min", "p50", "p90", "p99", "max", "mean"}
	for i, w := range want {
		if got := num(t, out[i]); !near(got, w) {
			t.Errorf("summary.%s = %v, want %v", names[i], got, w)
		}
	}
}

func TestStatsErrors(t *testing.T) {
	L := newVM(t)
	cases := []struct {
		code string
		want []string
	}{
		{`require("stats").median({})`, []string{"stats.median", "empty"}},
		{`require("stats").mean({1, "x", 3})`, []string{"stats.mean", "[2]", "string"}},
		{`require("stats").max({1, 0/0})`, []string{"stats.max", "[2]", "NaN"}},
		{`require("stats").summary("12")`, []string{"stats.summary", "array", "string"}},
		{`require("stats").percentile({1, 2}, 101)`, []string{"stats.percentile", "0 to 100", "101"}},
		{`require("stats").percentile({1, 2})`, []string{"stats.percentile", "nil"}},
		{`require("stats").stdev({1})`, []string{"stats.stdev", "at least 2"}},
		{`require("stats").min({1, true})`, []string{"stats.min", "[2]", "boolean"}},
	}
	for _, c := range cases {
		assertErr(t, L, c.code, c.want...)
	}
}

// first calls sentence.first and returns the sentence ("" and false for nil)
// and the end index.
func first(t *testing.T, L *lua.LState, text string, final bool) (string, bool, int) {
	t.Helper()
	mod := mustEval(t, L, `return require("sentence")`)[0]
	fn := L.GetField(mod, "first")
	if err := L.CallByParam(lua.P{Fn: fn, NRet: 2, Protect: true}, lua.LString(text), lua.LBool(final)); err != nil {
		t.Fatalf("first(%q, %v): %v", text, final, err)
	}
	s, e := L.Get(-2), L.Get(-1)
	L.Pop(2)
	if s == lua.LNil {
		if e != lua.LNil {
			t.Errorf("first(%q, %v) returned nil with end index %v", text, final, e)
		}
		return "", false, 0
	}
	return s.String(), true, int(num(t, e))
}

// undecided stands for a nil answer of first in a firstCase.
const undecided = "\x00nil"

type firstCase struct {
	text  string
	final bool
	want  string // or undecided
}

// checkFirst holds sentence.first to each case: the sentence, and an end
// index that makes it a prefix of the text.
func checkFirst(t *testing.T, L *lua.LState, cases []firstCase) {
	t.Helper()
	for _, c := range cases {
		got, ok, end := first(t, L, c.text, c.final)
		if c.want == undecided {
			if ok {
				t.Errorf("first(%q, %v) = %q, want nil (not decidable)", c.text, c.final, got)
			}
			continue
		}
		if !ok || got != c.want {
			t.Errorf("first(%q, %v) = %q (found %v), want %q", c.text, c.final, got, ok, c.want)
			continue
		}
		if end != len(got) || !strings.HasPrefix(c.text, got) {
			t.Errorf("first(%q, %v): end index %d, sentence %q: want a prefix ending at #sentence", c.text, c.final, end, got)
		}
	}
}

// checkStreamedStable feeds each text one byte at a time: once decided,
// the answer must never change, and it must equal the final-mode answer.
func checkStreamedStable(t *testing.T, L *lua.LState, texts []string) {
	t.Helper()
	for _, text := range texts {
		decided := ""
		for i := 1; i <= len(text); i++ {
			got, ok, _ := first(t, L, text[:i], false)
			if decided != "" && got != decided {
				t.Errorf("%q: prefix %q gives %q (found %v), earlier prefix gave %q", text, text[:i], got, ok, decided)
				break
			}
			if ok {
				decided = got
			}
		}
		want, _, _ := first(t, L, text, true)
		if decided != want {
			t.Errorf("%q: streamed answer %q, final answer %q", text, decided, want)
		}
	}
}

type firstTimeCase struct {
	chunks string // a Lua array of chunks
	want   string
	tMs    float64
}

func checkFirstTime(t *testing.T, L *lua.LState, cases []firstTimeCase) {
	t.Helper()
	for _, c := range cases {
		out := mustEval(t, L, `return require("sentence").first_time(`+c.chunks+`)`)
		if len(out) != 2 || out[0].String() != c.want || num(t, out[1]) != c.tMs {
			t.Errorf("first_time(%s) = %v, want %q, %v", c.chunks, out, c.want, c.tMs)
		}
	}
}

type splitCase struct {
	text string
	want string // sentences joined with "|"
}

func checkSplit(t *testing.T, L *lua.LState, cases []splitCase) {
	t.Helper()
	for _, c := range cases {
		out := mustEval(t, L, `return table.concat(require("sentence").split(`+luaQuote(c.text)+`), "|")`)
		if out[0].String() != c.want {
			t.Errorf("split(%q) = %q, want %q", c.text, out[0], c.want)
		}
	}
}

func TestSentenceFirst(t *testing.T) {
	L := newVM(t)
	const none = undecided
	cases := []firstCase{
		{"Hello there. How are you?", false, "Hello there."},
		{"Hello there", false, none},
		{"Hello there", true, "Hello there"},
		{"Hello there.  ", false, "Hello there."},
		{"Hello there.", false, none},
		{"Hello there.", true, "Hello there."},
		{"Hello there. \n", true, "Hello there."},
		{"  Hi. There", false, "  Hi."},
		{"Hi.\nThere", false, "Hi."},
		{"Hi.\tThere", false, "Hi."},
		{"", true, none},
		{" \n ", true, none},
		{"", false, none},
		// Numbers: no space after the dot.
		{"It costs 3.5 dollars. Next", false, "It costs 3.5 dollars."},
		{"Version 2.0.1 is out", true, "Version 2.0.1 is out"},
		{"It costs 3.", false, none},
		{"Step 3. Next step", false, "Step 3."},
		// a.m. / p.m. need the next word.
		{"It opens at 8 a", false, none},
		{"It opens at 8 a.m", false, none},
		{"It opens at 8 a.m.", false, none},
		{"It opens at 8 a.m. ", false, none},
		{"It opens at 8 a.m.  \n", false, none},
		{"It opens at 8 a.m. ", true, "It opens at 8 a.m."},
		{"It opens at 8 a.m. o", false, none},
		{"It opens at 8 a.m. on Saturday. We", false, "It opens at 8 a.m. on Saturday."},
		{"We open at 8 a.m. Please call.", false, "We open at 8 a.m."},
		{"We open at 8:30 A.M. Please call.", false, "We open at 8:30 A.M."},
		{"Open at 8 a.m. 5 days a week. Yes", false, "Open at 8 a.m. 5 days a week."},
		{"From 8:30 a.m. to 12:30 p.m. on Saturday. Bring ID.", false, "From 8:30 a.m. to 12:30 p.m. on Saturday."},
		{"Closes at 5 p.m. (Call first.) Ok", false, "Closes at 5 p.m."},
		{"Closes at 5 p.m., so hurry. Ok", false, "Closes at 5 p.m., so hurry."},
		// Titles and other abbreviations that never end a sentence.
		{"Ask Dr. Smith about it. Then", false, "Ask Dr. Smith about it."},
		{"Ask Dr. ", false, none},
		{"Ask Dr. ", true, "Ask Dr."},
		{"Mr. and Mrs. Lee came. ", false, "Mr. and Mrs. Lee came."},
		{"Ms. Park and Prof. Ode left. x", false, "Ms. Park and Prof. Ode left."},
		{"We are on Maple St. Parking is behind. x", false, "We are on Maple St. Parking is behind."},
		{"Cats vs. Dogs is on. x", false, "Cats vs. Dogs is on."},
		{"Bring ID, e.g. Passport or card. Then", false, "Bring ID, e.g. Passport or card."},
		{"One form, i.e. The blue one. x", false, "One form, i.e. The blue one."},
		{"(E.g. Tuesday) works. x", false, "(E.g. Tuesday) works."},
		{"Is it e.g., a test? Yes", false, "Is it e.g., a test?"},
		// etc. continues only before lowercase.
		{"Pens, paper, etc. and more. X", false, "Pens, paper, etc. and more."},
		{"Pens, paper, etc. Then more.", false, "Pens, paper, etc."},
		{"Pens, paper, etc. 5 more. x", false, "Pens, paper, etc."},
		{"Pens, etc. ", false, none},
		{"Pens, etc. ", true, "Pens, etc."},
		// No. continues only before a digit.
		{"Room No. 5 is free. Next", false, "Room No. 5 is free."},
		{"The answer is No. Then we left.", false, "The answer is No."},
		{"Room No. ", false, none},
		// Ellipsis ends only before a capitalised word.
		{"Wait... what? Yes", false, "Wait... what?"},
		{"Wait... Then it came. x", false, "Wait..."},
		{"Wait.. Then it came. x", false, "Wait.."},
		{"Wait.. then go. X", false, "Wait.. then go."},
		{"Wait... ", false, none},
		{"Wait... ", true, "Wait..."},
		{"Wait\u2026 Then", false, "Wait\u2026"},
		{"Wait\u2026 then go. X", false, "Wait\u2026 then go."},
		{"Wait\u2026", false, none},
		{"Caf\u00e9 open. x", false, "Caf\u00e9 open."},
		// ! and ? always end before white space.
		{"Really?! Yes.", false, "Really?!"},
		{"Stop! Now", false, "Stop!"},
		{"Stop!", false, none},
		{"Why?Because. x", false, "Why?Because."},
		// Closing quotes and brackets belong to the sentence.
		{`He said "Stop." Then left.`, false, `He said "Stop."`},
		{`He said "Stop.`, false, none},
		{"(See the desk.) Then", false, "(See the desk.)"},
		{"She said \u201cyes.\u201d Then", false, "She said \u201cyes.\u201d"},
	}
	checkFirst(t, L, cases)
}

// TestSentenceFirstStreamed feeds a text one byte at a time: once decided,
// the answer must never change, and it must equal the final-mode answer.
func TestSentenceFirstStreamed(t *testing.T) {
	L := newVM(t)
	texts := []string{
		"It opens at 8 a.m. on Saturday. Bring your card.",
		"We open at 8:30 a.m. Please bring ID.",
		"Dr. Lee sees kids, e.g. Babies, etc. and teens. Call us.",
		"Wait... Then 3.5 hours later! Done.",
	}
	checkStreamedStable(t, L, texts)
}

func TestSentenceFirstTime(t *testing.T) {
	L := newVM(t)
	cases := []firstTimeCase{
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
	}
	checkFirstTime(t, L, cases)
	for _, chunks := range []string{`{}`, `{{t_ms=1, text="  "}}`} {
		out := mustEval(t, L, `return require("sentence").first_time(`+chunks+`)`)
		if len(out) == 0 || out[0] != lua.LNil {
			t.Errorf("first_time(%s) = %v, want nil", chunks, out)
		}
	}
	assertErr(t, L, `require("sentence").first_time({{t_ms=1, text="a"}, {t_ms="x", text="b"}})`, "sentence.first_time", "chunks[2]", "t_ms")
	assertErr(t, L, `require("sentence").first_time({"a"})`, "chunks[1]", "string")
	assertErr(t, L, `require("sentence").first_time("a")`, "chunks must be an array")
}

func TestSentenceSplit(t *testing.T) {
	L := newVM(t)
	cases := []splitCase{
		{"Hi. We open at 8 a.m. on Saturday. Call Dr. Lee!  Ok", "Hi.|We open at 8 a.m. on Saturday.|Call Dr. Lee!|Ok"},
		{"  One.\n\nTwo?  ", "One.|Two?"},
		{"Open 8 a.m. Bye", "Open 8 a.m.|Bye"},
		{"No end here", "No end here"},
		{"", ""},
		{"   ", ""},
	}
	checkSplit(t, L, cases)
	assertErr(t, L, `require("sentence").first(42)`, "sentence.first", "number")
	assertErr(t, L, `require("sentence").split(nil)`, "sentence.split", "nil")
}

// luaQuote writes s as a Lua 5.1 string literal: every byte outside
// printable ASCII as a decimal escape (Lua 5.1 has no \x).
func luaQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 32 || c > 126 || c == '"' || c == '\\' {
			fmt.Fprintf(&b, "\\%03d", c)
		} else {
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func TestPromptBuild(t *testing.T) {
	L := newVM(t)
	cases := []struct {
		code string
		want string
	}{
		{`prompt.build("SYS", {"# A\nalpha\n", "# B\nbeta"}, 2)`, "SYS\n\n# A\nalpha\n\n# B\nbeta"},
		{`prompt.build("SYS", {"A", "B", "C"}, 1)`, "SYS\n\nA"},
		{`prompt.build("SYS", {"A", "B"}, 0)`, "SYS"},
		{`prompt.build("SYS", {"A", "B"})`, "SYS\n\nA\n\nB"},
		{`prompt.build("SYS", {{name="01-a.md", text="A\n"}, {name="02-b.md", text="B\n"}}, 2)`, "SYS\n\nA\n\nB"},
		{`prompt.build("SYS", {"A", "B"}, 2, {sep="\n---\n"})`, "SYS\n---\nA\n---\nB"},
		{`prompt.prepend("abc", "X\n")`, "X\nabc"},
		{`prompt.prepend("abc", "")`, "abc"},
	}
	for _, c := range cases {
		out := mustEval(t, L, `local prompt = require("prompt"); return `+c.code)
		if out[0].String() != c.want {
			t.Errorf("%s = %q, want %q", c.code, out[0], c.want)
		}
	}
}

func TestPromptMessages(t *testing.T) {
	L := newVM(t)
	out := mustEval(t, L, `
		local m = require("prompt").messages("be brief", "When do you open?")
		return #m, m[1].role, m[1].content, m[2].role, m[2].content`)
	got := []string{out[0].String(), out[1].String(), out[2].String(), out[3].String(), out[4].String()}
	want := []string{"2", "system", "be brief", "user", "When do you open?"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("messages = %q, want %q", got, want)
	}
}

func TestPromptErrors(t *testing.T) {
	L := newVM(t)
	cases := []struct {
		code string
		want []string
	}{
		{`require("prompt").build("S", {"a", "b"}, 3)`, []string{"asked for 3 docs", "only 2 exist"}},
		{`require("prompt").build("S", {"a"}, -1)`, []string{"n must be", "-1"}},
		{`require("prompt").build("S", {"a"}, 0.5)`, []string{"n must be", "0.5"}},
		{`require("prompt").build(nil, {"a"}, 1)`, []string{"system", "nil"}},
		{`require("prompt").build("S", {"a", 7}, 2)`, []string{"docs[2]", "number"}},
		{`require("prompt").messages("S")`, []string{"prompt.messages", "user"}},
		{`require("prompt").prepend("S")`, []string{"prompt.prepend"}},
	}
	for _, c := range cases {
		assertErr(t, L, c.code, c.want...)
	}
}

// TestModuleListsAgree: every list of the built-in modules in the docs
// (README.md, docs/lua-api.md, docs/repl.md, docs/ARCHITECTURE.md) and in
// require's help names exactly the modules there are. Fails before this
// change: the lists differed, none naming calls or options.
func TestModuleListsAgree(t *testing.T) {
	want := stdlib.Names()
	list := regexp.MustCompile("`stats`(?:,\\s+(?:and\\s+)?`\\w+`)+")
	for _, f := range []string{"../README.md", "../docs/lua-api.md", "../docs/repl.md", "../docs/ARCHITECTURE.md"} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lists := list.FindAllString(string(data), -1)
		if len(lists) == 0 {
			t.Errorf("%s lists no modules", f)
		}
		for _, l := range lists {
			got := regexp.MustCompile("`(\\w+)`").FindAllStringSubmatch(l, -1)
			var names []string
			for _, m := range got {
				names = append(names, m[1])
			}
			sort.Strings(names)
			if !slices.Equal(names, want) {
				t.Errorf("%s lists the modules %v, there are %v", f, names, want)
			}
		}
	}
	for _, e := range runtime.API() {
		if e.Name == "require" && !strings.Contains(e.Summary, strings.Join(want, ", ")) {
			t.Errorf("require's help: %s", e.Summary)
		}
	}
}
