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
