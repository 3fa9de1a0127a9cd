package repl

import (
	"context"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// prettyOf evaluates expr (after setup statements) and pretty-prints it.
func prettyOf(t *testing.T, setup, expr string, lim prettyLimits) string {
	t.Helper()
	p := newPiped(t, "http://127.0.0.1:1")
	vals, err := p.cfg.VM.Eval(context.Background(), setup+"\nreturn "+expr, "test")
	if err != nil {
		t.Fatal(err)
	}
	return pretty(p.cfg.VM.State(), vals[0], lim)
}

func TestPrettyScalarsAndStrings(t *testing.T) {
	lim := defaultPrettyLimits
	for expr, want := range map[string]string{
		`nil`:                        "nil",
		`true`:                       "true",
		`3`:                          "3",
		`2.5`:                        "2.5",
		`"tab\there"`:                `"tab\there"`,
		`{}`:                         "{}",
		`json_null`:                  "json_null",
		`{s = string.rep("x", 200)}`: "{\n  s = \"" + strings.Repeat("x", 120) + "\"…(+80 bytes),\n}",
		`string.rep("y", 200)`:       `"` + strings.Repeat("y", 200) + `"`,
		`{[1.5] = 1, ["a b"] = 2, ["end"] = 3, z = 4, [true] = 5}`: `{[1.5] = 1, ["a b"] = 2, ["end"] = 3, z = 4, [true] = 5}`,
		`json_array({1, 2})`: "json_array {1, 2}",
		`setmetatable({}, {__tostring = function() return "custom" end})`: "custom",
		`setmetatable({}, {__tostring = function() error("bad") end})`:    "<table: __tostring failed: ",
	} {
		got := prettyOf(t, "", expr, lim)
		if !strings.HasPrefix(got, want) {
			t.Errorf("pretty(%s) = %s, want %s", expr, got, want)
		}
	}
}

func TestPrettySortsAndIndents(t *testing.T) {
	got := prettyOf(t, "", `{zeta = 1, alpha = {beta = "a fairly long string value", gamma = "another fairly long one"}, 10, 20}`, defaultPrettyLimits)
	want := `{
  10,
  20,
  alpha = {
    beta = "a fairly long string value",
    gamma = "another fairly long one",
  },
  zeta = 1,
}`
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

func TestPrettyMarksCyclesAndLimitsDepth(t *testing.T) {
	got := prettyOf(t, `t = {name = "t"} t.self = t shared = {1} t.a = shared t.b = shared`, "t", defaultPrettyLimits)
	if !strings.Contains(got, "self = <cycle: table: ") || strings.Count(got, "{1}") != 2 {
		t.Fatalf("cycle / shared table:\n%s", got)
	}
	got = prettyOf(t, "", `{a = {b = {c = {d = {e = 1, f = 2}}}}}`, prettyLimits{depth: 3, items: 10, str: 100, width: 72})
	if want := "{a = {b = {c = {…1 items}}}}"; got != want {
		t.Fatalf("depth limit: %s, want %s", got, want)
	}
}

func TestPrettyShortensLongArrays(t *testing.T) {
	got := prettyOf(t, "t = {} for i = 1, 500 do t[i] = i end t.n = 500", "t", defaultPrettyLimits)
	if want := "{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, … 490 more, n = 500}"; got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	// Arrays of tables go one per line.
	got = prettyOf(t, "t = {} for i = 1, 30 do t[i] = {t_ms = i * 1.5, text = ' word'} end", "t", defaultPrettyLimits)
	lines := strings.Split(got, "\n")
	if len(lines) != 13 || lines[1] != `  {t_ms = 1.5, text = " word"},` || lines[11] != "  … 20 more," {
		t.Fatalf("got\n%s", got)
	}
}

func TestIsStreamResult(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	info := L.NewTable()
	info.RawSetString("done", lua.LTrue)
	info.RawSetString("cut", lua.LFalse)
	info.RawSetString("status", lua.LNumber(200))
	ok := []lua.LValue{L.NewTable(), lua.LNumber(12), lua.LNil, info}
	if !isStreamResult(ok) {
		t.Fatal("stream's four values not recognised")
	}
	for name, v := range map[string][]lua.LValue{
		"three values":   ok[:3],
		"total a string": {ok[0], lua.LString("12"), ok[2], info},
		"info without status": {ok[0], ok[1], ok[2], func() *lua.LTable {
			t := L.NewTable()
			t.RawSetString("done", lua.LTrue)
			t.RawSetString("cut", lua.LFalse)
			return t
		}()},
	} {
		if isStreamResult(v) {
			t.Errorf("%s recognised as a stream result", name)
		}
	}
}

func TestTailKeepsTheEnd(t *testing.T) {
	if got := tail("abcdef", 10); got != "abcdef" {
		t.Errorf("short text changed: %q", got)
	}
	if got := tail("abcdef", 3); got != "[… 3 bytes before]def" {
		t.Errorf("got %q", got)
	}
	if got := tail("aéé", 3); got != "[… 3 bytes before]é" {
		t.Errorf("a character was split: %q", got)
	}
}
