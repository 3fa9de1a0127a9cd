package luajson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"ttftlab/runtime/luatest"

	lua "github.com/yuin/gopher-lua"
)

// The property: whatever value a script hands the codec (write_json
// indented, append_jsonl compact), the result is either an error naming
// the path of a value JSON cannot hold, or text that a strict parser
// accepts, holds no Inf or NaN, and gives back every number (times
// rounded to the microsecond) and string that went in; compact text is
// one line.

// jsonModel generates Lua values together with what their JSON must
// decode to, and the key paths at which writing must stop.
type jsonModel struct {
	rng *rand.Rand
	L   *lua.LState
	c   *Codec
	// bad holds the paths (in the writers' notation) of values that
	// cannot be written; a write must fail naming one of them.
	bad map[string]bool
	// clean holds finished tables free of bad values, to be referenced
	// again elsewhere (a table may appear twice).
	clean []cleanTable
}

type cleanTable struct {
	t       *lua.LTable
	want    any
	context string // timeContext of the path it was built at
}

// step is one key of a path: a member name, or an array position.
type step struct {
	key   string
	index int
}

var luaIdent = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// formatPath writes a path the way the writers' messages do (see
// docs/lua-api.md): `a.b[2]["x y"]`, "(top level)" for none, and the
// middle of a path longer than 16 steps shortened to "…(N more)…".
func formatPath(steps []step) string {
	if len(steps) == 0 {
		return "(top level)"
	}
	parts := make([]string, len(steps))
	for i, s := range steps {
		switch {
		case s.index > 0:
			parts[i] = "[" + strconv.Itoa(s.index) + "]"
		case luaIdent.MatchString(s.key):
			parts[i] = "." + s.key
		default:
			parts[i] = fmt.Sprintf("[%q]", s.key)
		}
	}
	if n := len(parts); n > 16 {
		parts = append(append(parts[:8:8], fmt.Sprintf("…(%d more)…", n-16)), parts[n-8:]...)
	}
	return strings.TrimPrefix(strings.Join(parts, ""), ".")
}

// isTimePath: a number is a time (rounded to the microsecond, bounded by
// ±2^53 µs) under any member named *_ms, or when the nearest member name
// above it is a percentile *_pNN.
func isTimePath(steps []step) bool {
	nearest := true
	for i := len(steps) - 1; i >= 0; i-- {
		k := steps[i].key
		if steps[i].index > 0 {
			continue
		}
		if strings.HasSuffix(k, "_ms") || (nearest && percentileKey.MatchString(k)) {
			return true
		}
		nearest = false
	}
	return false
}

var percentileKey = regexp.MustCompile(`_p[0-9]+$`)

// timeContext is what decides whether the numbers inside a table at
// path are times: a *_ms member above it, and the nearest member name
// (a percentile name reaches through arrays). A table is only reused
// where the context is the same, so its model stays right.
func timeContext(path []step) string {
	underMs, nearest := false, ""
	for i := len(path) - 1; i >= 0; i-- {
		if path[i].index > 0 {
			continue
		}
		if nearest == "" {
			nearest = path[i].key
		}
		underMs = underMs || strings.HasSuffix(path[i].key, "_ms")
	}
	return fmt.Sprint(underMs, percentileKey.MatchString(nearest))
}

func with(steps []step, s step) []step {
	return append(steps[:len(steps):len(steps)], s)
}

const timeLimitMs = float64(1<<53) / 1000

// numberPool mixes ordinary numbers with every edge the writers must
// handle.
func (g *jsonModel) number() float64 {
	edges := []float64{
		math.Inf(1), math.Inf(-1), math.NaN(), math.MaxFloat64, -math.MaxFloat64,
		math.Nextafter(math.MaxFloat64, 0), math.MaxFloat64 / 2, 1e308, -1e308, 8.99e306,
		math.Copysign(0, -1), 1e-320, 5e-324, -5e-324, 1 << 53, -(1 << 53), 1 << 60, 1e21, 1e-7,
		timeLimitMs, math.Nextafter(timeLimitMs, 0), -timeLimitMs, 1e13, 1.7e12, 0.0005, -0.0005, 9.17602000000079,
	}
	switch g.rng.Intn(4) {
	case 0:
		return edges[g.rng.Intn(len(edges))]
	case 1:
		return float64(g.rng.Intn(2001) - 1000)
	case 2:
		return math.Float64frombits(g.rng.Uint64()) // NaN and Inf included, rarely
	}
	return g.rng.NormFloat64() * math.Pow(10, float64(g.rng.Intn(40)-20))
}

// wantNumber is what f must read back as, or false when f must be
// refused.
func wantNumber(f float64, time bool) (float64, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) >= math.MaxFloat64 {
		return 0, false
	}
	if !time {
		return f, true
	}
	if math.Abs(f) >= timeLimitMs {
		return 0, false
	}
	return math.Round(f*1000) / 1000, true
}

var stringPieces = []string{"a", "ok", " ", "\"", "\\", "\n", "\r\t", "\x01", "\x7f", "é", "日本", "<b>&", "✓", "\xff"}

func (g *jsonModel) str() (string, string) {
	var in, want strings.Builder
	for range g.rng.Intn(5) {
		p := stringPieces[g.rng.Intn(len(stringPieces))]
		in.WriteString(p)
		if p == "\xff" {
			want.WriteString("\uFFFD")
		} else {
			want.WriteString(p)
		}
	}
	return in.String(), want.String()
}

var memberNames = []string{"a", "b", "n", "ttft_ms", "value_ms", "runs_ms", "x_p95", "ttft_p50", "slo", "levels", "a b", "é", "1x", `q"`, "ok_ms_x"}

// gen returns a value for the slot at path, what it must decode to, and
// whether it is free of bad values. ancestors are the tables being
// built above it (a reference to one is a cycle).
func (g *jsonModel) gen(path []step, ancestors []*lua.LTable) (lua.LValue, any, bool) {
	depth := len(ancestors)
	r := g.rng.Intn(100)
	if depth >= 4 {
		r = g.rng.Intn(45) // leaves only
	}
	switch {
	case r < 25:
		f := g.number()
		want, ok := wantNumber(f, isTimePath(path))
		if !ok {
			g.bad[formatPath(path)] = true
		}
		return lua.LNumber(f), want, ok
	case r < 33:
		in, want := g.str()
		return lua.LString(in), want, true
	case r < 37:
		b := g.rng.Intn(2) == 0
		return lua.LBool(b), b, true
	case r < 41:
		return g.c.null, nil, true
	case r < 43:
		g.bad[formatPath(path)] = true
		return g.L.NewFunction(func(*lua.LState) int { return 0 }), nil, false
	case r < 45 && depth > 0:
		g.bad[formatPath(path)] = true // a cycle
		return ancestors[g.rng.Intn(depth)], nil, false
	case r < 50 && len(g.clean) > 0:
		c := g.clean[g.rng.Intn(len(g.clean))]
		if c.context == timeContext(path) {
			return c.t, c.want, true // the same table a second time
		}
	case r < 75:
		return g.array(path, ancestors)
	}
	return g.object(path, ancestors)
}

func (g *jsonModel) array(path []step, ancestors []*lua.LTable) (lua.LValue, any, bool) {
	t := g.L.NewTable()
	if g.rng.Intn(3) == 0 {
		t.Metatable = g.c.array
	}
	want, clean := []any{}, true
	for i := 1; i <= g.rng.Intn(5); i++ {
		v, w, ok := g.gen(with(path, step{index: i}), append(ancestors, t))
		t.RawSetInt(i, v)
		want, clean = append(want, w), clean && ok
	}
	if clean {
		g.clean = append(g.clean, cleanTable{t, want, timeContext(path)})
	}
	return t, want, clean
}

func (g *jsonModel) object(path []step, ancestors []*lua.LTable) (lua.LValue, any, bool) {
	t := g.L.NewTable()
	marked := g.rng.Intn(2) == 0
	if marked {
		t.Metatable = g.c.object
	}
	want, clean := map[string]any{}, true
	for range g.rng.Intn(5) {
		k := memberNames[g.rng.Intn(len(memberNames))]
		if _, dup := want[k]; dup {
			continue
		}
		v, w, ok := g.gen(with(path, step{key: k}), append(ancestors, t))
		t.RawSetString(k, v)
		want[k], clean = w, clean && ok
	}
	if !marked && len(want) == 0 {
		return t, []any{}, true // an empty plain table is []
	}
	if clean {
		g.clean = append(g.clean, cleanTable{t, want, timeContext(path)})
	}
	return t, want, clean
}

// strictJSON parses one JSON text the strict way: encoding/json with
// UseNumber, nothing after the value, and every number token finite.
func strictJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if n, ok := tok.(json.Number); ok {
			f, err := strconv.ParseFloat(string(n), 64)
			if err != nil || math.IsInf(f, 0) || math.IsNaN(f) || strings.ContainsAny(string(n), "IN") {
				return nil, fmt.Errorf("number token %s is not finite", n)
			}
		}
	}
	dec = json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("text after the value (%v)", err)
	}
	return v, nil
}

// sameJSON compares decoded JSON with the model, numbers exactly.
func sameJSON(got, want any, at string) error {
	switch w := want.(type) {
	case nil:
		if got != nil {
			return fmt.Errorf("%s: got %v, want null", at, got)
		}
	case float64:
		n, ok := got.(json.Number)
		if !ok {
			return fmt.Errorf("%s: got %v, want the number %v", at, got, w)
		}
		if f, _ := strconv.ParseFloat(string(n), 64); f != w {
			return fmt.Errorf("%s: read back %s, want %v", at, n, w)
		}
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return fmt.Errorf("%s: got %v, want an array of %d", at, got, len(w))
		}
		for i := range w {
			if err := sameJSON(g[i], w[i], fmt.Sprintf("%s[%d]", at, i+1)); err != nil {
				return err
			}
		}
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok || len(g) != len(w) {
			return fmt.Errorf("%s: got %v, want an object of %d", at, got, len(w))
		}
		for k := range w {
			if err := sameJSON(g[k], w[k], at+"."+k); err != nil {
				return err
			}
		}
	default:
		if got != want {
			return fmt.Errorf("%s: got %#v, want %#v", at, got, want)
		}
	}
	return nil
}

// checkEncode encodes v indented and compact and checks the property
// for both.
func checkEncode(t *testing.T, c *Codec, v lua.LValue, want any, bad map[string]bool, label string) {
	t.Helper()
	for _, indent := range []bool{true, false} {
		form := map[bool]string{true: "indented", false: "compact"}[indent]
		text, err := c.Encode(v, indent)
		if err != nil {
			if len(bad) == 0 {
				t.Fatalf("%s: %s: refused a value that can be written: %v", label, form, err)
			}
			msg := err.Error()
			named := false
			for p := range bad {
				named = named || strings.HasPrefix(msg, p+": ")
			}
			if !named {
				t.Fatalf("%s: %s: the error names none of the bad paths %v:\n%s", label, form, keys(bad), msg)
			}
			continue
		}
		if len(bad) > 0 {
			t.Fatalf("%s: %s: wrote a value with bad paths %v:\n%s", label, form, keys(bad), text)
		}
		if !indent && bytes.ContainsAny(text, "\r\n") {
			t.Fatalf("%s: the compact text is more than one line: %q", label, text)
		}
		got, err := strictJSON(text)
		if err != nil {
			t.Fatalf("%s: %s: text a strict parser refuses (%v):\n%s", label, form, err, text)
		}
		if err := sameJSON(got, want, "(top level)"); err != nil {
			t.Fatalf("%s: %s: %v\n%s", label, form, err, text)
		}
	}
}

func keys(m map[string]bool) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

// TestJSONWritersProperty drives the codec in both forms with seeded
// random values: numbers of every kind (NaN, ±Inf, ±MaxFloat64,
// huge times, subnormals, -0), strings with quotes, control characters
// and bytes that are not UTF-8, marked and plain tables, functions,
// cycles and tables that appear twice.
func TestJSONWritersProperty(t *testing.T) {
	L, c := newState(t)
	// a fixed seed keeps CI repeatable; TTFTLAB_JSON_SEED=N explores others
	seed := int64(18)
	if s := os.Getenv("TTFTLAB_JSON_SEED"); s != "" {
		seed, _ = strconv.ParseInt(s, 10, 64)
	}
	rng := rand.New(rand.NewSource(seed))
	written, refused := 0, 0
	for i := range 600 {
		g := &jsonModel{rng: rng, L: L, c: c, bad: map[string]bool{}}
		v, want, _ := g.gen(nil, nil)
		checkEncode(t, c, v, want, g.bad, fmt.Sprintf("seed %d, case %d", seed, i))
		if len(g.bad) == 0 {
			written++
		} else {
			refused++
		}
	}
	if written < 100 || refused < 100 {
		t.Fatalf("the generator is lopsided: %d values written, %d refused", written, refused)
	}
	t.Logf("seed %d: %d values written and read back, %d refused naming their path", seed, written, refused)
}

// TestJSONWritersEdgeValues: hand-picked values, each written or refused
// in both forms.
func TestJSONWritersEdgeValues(t *testing.T) {
	L, c := newState(t)
	cases := []struct {
		lua  string
		want any    // when written
		bad  string // the path named when refused
	}{
		{`{x = 1/0}`, nil, "x"},
		{`{x = -1/0}`, nil, "x"},
		{`{x = 0/0}`, nil, "x"},
		{`{x = math.huge}`, nil, "x"},
		{`{x = -math.huge}`, nil, "x"},
		{`{x = 1e308 * 10}`, nil, "x"},
		{`{x = 1.7976931348623157e308}`, nil, "x"},
		{`{x = 1e308}`, map[string]any{"x": 1e308}, ""},
		{`{x = -0}`, map[string]any{"x": 0.0}, ""},
		{`{x = 1e-320}`, map[string]any{"x": 1e-320}, ""},
		{`{t_ms = -0.0000001}`, map[string]any{"t_ms": 0.0}, ""},
		{`{value_ms = 9007199254740.99}`, map[string]any{"value_ms": 9007199254740.99}, ""},
		{`{value_ms = 2^53 / 1000}`, nil, "value_ms"},
		{`{value_ms = 1e308}`, nil, "value_ms"},
		{`{levels = {{n = 0}, {slo = {{value_ms = math.huge / 2}}}}}`, nil, "levels[2].slo[1].value_ms"},
		{`{runs_ms = {1, 2, 8.99e306}}`, nil, "runs_ms[3]"},
		{`{ttft_p95 = 8.99e306}`, nil, "ttft_p95"},
		{`{rate = 8.99e306}`, map[string]any{"rate": 8.99e306}, ""},
		{`{x = json_null}`, map[string]any{"x": nil}, ""},
		{`(function() local t = {1} return {a = t, b = {t, t}} end)()`,
			map[string]any{"a": []any{1.0}, "b": []any{[]any{1.0}, []any{1.0}}}, ""},
		{`(function() local t = {} t.a = {b = {t}} return t end)()`, nil, "a.b[1]"},
		{`(function() local t = {} t[1] = t return t end)()`, nil, "[1]"},
	}
	for _, tc := range cases {
		bad := map[string]bool{}
		if tc.bad != "" {
			bad[tc.bad] = true
		}
		checkEncode(t, c, luatest.Eval(t, L, tc.lua), tc.want, bad, tc.lua)
	}
}

// nested builds depth tables inside one another ({{{...}}}), the
// innermost holding 1.
func nested(depth int) string {
	return fmt.Sprintf(`(function() local t = {1} for i = 2, %d do t = {t} end return t end)()`, depth)
}

// TestJSONWritersDepthLimit: 1000 levels are written, 1001 refused at the
// path of the table that passes the limit, also far past it.
func TestJSONWritersDepthLimit(t *testing.T) {
	L, c := newState(t)
	var want any = []any{1.0}
	for range maxJSONDepth - 1 {
		want = []any{want}
	}
	checkEncode(t, c, luatest.Eval(t, L, nested(maxJSONDepth)), want, nil, "1000 levels")
	for _, depth := range []int{maxJSONDepth + 1, 5 * maxJSONDepth} {
		v := luatest.Eval(t, L, nested(depth))
		steps := make([]step, maxJSONDepth)
		for i := range steps {
			steps[i] = step{index: 1}
		}
		checkEncode(t, c, v, nil, map[string]bool{formatPath(steps): true}, fmt.Sprintf("%d levels", depth))
	}
	// members: the path shows the names
	v := luatest.Eval(t, L, `(function() local t = {} for i = 1, 1500 do t = {ttft_ms = t} end return {levels = t} end)()`)
	steps := []step{{key: "levels"}}
	for len(steps) < maxJSONDepth {
		steps = append(steps, step{key: "ttft_ms"})
	}
	checkEncode(t, c, v, nil, map[string]bool{formatPath(steps): true}, "1500 named levels")
}

// TestJSONWritersSizeLimit: a table that appears twice at every level
// doubles the text per level; the encoder stops at the size limit instead
// of growing until the process is killed.
func TestJSONWritersSizeLimit(t *testing.T) {
	L, c := newState(t)
	defer func(n int) { maxJSONBytes = n }(maxJSONBytes)
	maxJSONBytes = 1 << 20
	v := luatest.Eval(t, L, `(function() local t = {string.rep("x", 100)}
for i = 1, 60 do t = {a = t, b = t} end
return t end)()`)
	for _, indent := range []bool{true, false} {
		text, err := c.Encode(v, indent)
		if err == nil {
			t.Fatalf("encoded %d bytes, expected an error", len(text))
		}
		luatest.MustContain(t, err.Error(), "passes 1 MiB", "a.a.a")
	}
}
