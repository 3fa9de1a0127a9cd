package luajson

import (
	"encoding/json"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/runtime/luatest"
)

func TestEncodeCompact(t *testing.T) {
	L, c := newState(t)
	cases := []struct{ expr, want string }{
		{`{b = 1, a = {1, 2, 3}}`, `{"a":[1,2,3],"b":1}`},
		{`3`, `3`},
		{`-0`, `0`},
		{`1.5`, `1.5`},
		{`0.1`, `0.1`},
		{`-42`, `-42`},
		{`2^53`, `9007199254740992`},
		{`-(2^53)`, `-9007199254740992`},
		{`2^60`, `1152921504606847000`}, // beyond 2^53: shortest float form
		{`1e300`, `1e+300`},
		{`1e-7`, `1e-7`},
		{`true`, `true`},
		{`{}`, `[]`},
		{`json_array()`, `[]`},
		{`json_array({})`, `[]`},
		{`json_object()`, `{}`},
		{`json_object({})`, `{}`},
		{`json_null`, `null`},
		{`{json_null, 2, json_null}`, `[null,2,null]`},
		{`{a = json_null}`, `{"a":null}`},
		{`json_object({[1] = "a", [2] = "b", [10] = "c"})`, `{"1":"a","10":"c","2":"b"}`},
		{`json_object({[-1] = "neg", [0] = "zero"})`, `{"-1":"neg","0":"zero"}`},
		{`json_array({1, 2})`, `[1,2]`},
		{`{{}, {x = {}}}`, `[[],{"x":[]}]`},
		{`(function() local t = {1} return {a = t, b = t} end)()`, `{"a":[1],"b":[1]}`},
		{`"<a & b>"`, `"<a & b>"`},
		{`"héllo ✓ 日本"`, `"héllo ✓ 日本"`},
		{`"q\"b\\n\n\r\t"`, `"q\"b\\n\n\r\t"`},
		{`"\1\31\127"`, `"\u0001\u001f\u007f"`},
		{`"ok\255ok"`, `"ok\ufffdok"`},
		{`{["a b"] = 1, ["Z"] = 2, ["_"] = 3}`, `{"Z":2,"_":3,"a b":1}`},
	}
	for _, tc := range cases {
		got, err := c.Encode(luatest.Eval(t, L, tc.expr), false)
		if err != nil {
			t.Errorf("%s: %v", tc.expr, err)
			continue
		}
		if string(got) != tc.want {
			t.Errorf("%s: got %s, want %s", tc.expr, got, tc.want)
		}
	}
}

func TestEncodeIndented(t *testing.T) {
	L, c := newState(t)
	got, err := c.Encode(luatest.Eval(t, L, `{name = "x", runs = {{ttft_ms = 12.5, n = 3}, json_object()}, empty = {}}`), true)
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "empty": [],
  "name": "x",
  "runs": [
    {
      "n": 3,
      "ttft_ms": 12.5
    },
    {}
  ]
}`
	if string(got) != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if !json.Valid(got) {
		t.Fatal("output is not valid JSON")
	}
}

func TestEncodeErrorsNamePath(t *testing.T) {
	L, c := newState(t)
	cases := []struct{ expr, wants string }{
		{`{runs = {{ttft_ms = 1}, {ttft_ms = 2}, {ttft_ms = 0/0}}}`, `runs[3].ttft_ms: NaN`},
		{`{x = {y = 1/0}}`, `x.y: infinity`},
		{`{x = -1/0}`, `x: infinity`},
		{`{list = {1, nil, 3}}`, `list: the array has a hole at [2]|json_null`},
		{`{1, 2, a = 3}`, `(top level): mixes array items|"a"`},
		{`{f = print}`, `f: a function cannot be written`},
		{`{io.stdout}`, `[1]: a userdata value`},
		{`(function() local t = {} t.self = {t} return t end)()`, `self[1]: the table contains itself`},
		{`{[true] = 1}`, `has a key of type boolean`},
		{`{[0] = 1}`, `number key 0|json_object`},
		{`{[1.5] = 1}`, `number key 1.5`},
		{`json_array({1, a = 1})`, `marked json_array but has the key "a"`},
		{`json_array({[3] = 1})`, `hole at [1]`},
		{`json_object({[1] = "x", ["1"] = "y"})`, `the key "1" twice`},
		{`{["a b"] = {0/0}}`, `["a b"][1]: NaN`},
		{`nil`, `(top level): the value is nil`},
	}
	for _, tc := range cases {
		_, err := c.Encode(luatest.Eval(t, L, tc.expr), true)
		if err == nil {
			t.Errorf("%s: expected an error", tc.expr)
			continue
		}
		for _, w := range strings.Split(tc.wants, "|") {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not contain %q", tc.expr, err, w)
			}
		}
	}
}

func TestDecodeRoundTrip(t *testing.T) {
	L, c := newState(t)
	in := `{"a":[],"b":{},"c":[1,null,3],"d":"é ✓ <tag>","e":1.5,"f":true,"g":{"h":[{"i":null}]},"n":-7}`
	v, err := c.Decode(L, []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	out, err := c.Encode(v, false)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != in {
		t.Fatalf("round trip changed the JSON:\n in %s\nout %s", in, out)
	}
	L.SetGlobal("decoded", v)
	if got := luatest.Eval(t, L, `#decoded.c == 3 and decoded.c[2] == json_null and decoded.c[3] == 3`); got.String() != "true" {
		t.Fatal("null inside an array must be json_null and keep the items in place")
	}
	if got := luatest.Eval(t, L, `getmetatable(decoded.a) == getmetatable(json_array()) and getmetatable(decoded.b) == getmetatable(json_object())`); got.String() != "true" {
		t.Fatal("decoded arrays and objects must carry the json_array / json_object marks")
	}
}

func TestDecodeErrorPosition(t *testing.T) {
	L, c := newState(t)
	_, err := c.Decode(L, []byte("{\n  \"a\": 1,\n  \"b\": x\n}"))
	if err == nil {
		t.Fatal("expected a syntax error")
	}
	luatest.MustContain(t, err.Error(), "line 3, column 8", "invalid character 'x'")
	_, err = c.Decode(L, []byte("[1, 2"))
	if err == nil {
		t.Fatal("expected an error for truncated JSON")
	}
	luatest.MustContain(t, err.Error(), "line 1", "unexpected end")
}

func TestMarkRefusesForeignMetatable(t *testing.T) {
	L, _ := newState(t)
	err := L.DoString(`json_array(setmetatable({}, {}))`)
	if err == nil {
		t.Fatal("expected an error")
	}
	luatest.MustContain(t, err.Error(), "json_array: the table already has a metatable")
	// re-marking between the two JSON kinds is allowed
	if got := luatest.Eval(t, L, `getmetatable(json_object(json_array())) == getmetatable(json_object())`); got.String() != "true" {
		t.Fatal("json_object on a json_array table should re-mark it")
	}
}

// TestTimesRoundedToTheMicrosecond: numbers under *_ms names are written
// to 0.001 ms, other numbers in full.
func TestTimesRoundedToTheMicrosecond(t *testing.T) {
	L, c := newState(t)
	got, err := c.Encode(luatest.Eval(t, L, `{ttft_ms = 9.17602000000079, runs_ms = {1.0004999, -0.0001},
		share = 0.123456789, nested = {{t_ms = 2.5000001}}, ttft_p50 = 9.3037461, total_ms = {p99 = 1.23456}}`), true)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"ttft_ms": 9.176`, "1,\n", "0\n", `"share": 0.123456789`, `"t_ms": 2.5`, `"ttft_p50": 9.304`, `"p99": 1.235`} {
		if !strings.Contains(string(got), want) {
			t.Errorf("the JSON lacks %q:\n%s", want, got)
		}
	}
}

// BenchmarkEncodeTokenArray: a request body holding a prompt of 30,000
// token ids, as a replayed Mooncake line sends it; it is encoded when the
// request is due, so its time is part of the request's late_ms.
func BenchmarkEncodeTokenArray(b *testing.B) {
	L := lua.NewState()
	defer L.Close()
	prompt := L.CreateTable(30000, 0)
	for i := range 30000 {
		prompt.Append(lua.LNumber(128 + i%128))
	}
	body := L.CreateTable(0, 2)
	body.RawSetString("prompt", prompt)
	body.RawSetString("max_tokens", lua.LNumber(64))
	c := &Codec{}
	b.ResetTimer()
	for range b.N {
		if _, err := c.Encode(body, false); err != nil {
			b.Fatal(err)
		}
	}
}
