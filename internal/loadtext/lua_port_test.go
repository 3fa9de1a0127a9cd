package loadtext_test

// The proof of the port: the console text of this package against the
// Lua it was ported from (scripts/loadtext.lua, run in ttftlab's own Lua
// VM), line by line, on the same records. It goes when loadtext.lua goes.

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"ttftlab/internal/artifact"
	"ttftlab/internal/loadtext"
	"ttftlab/runtime"
	"ttftlab/scripts"
)

// portDriver prints, for each case of cases.json, what loadtext.lua
// makes of it, each case after a "=== name" line.
const portDriver = `
local cases = read_json("cases.json")
for _, c in ipairs(cases.tables) do
  print("=== " .. c.name)
  local text = dofile("loadtext.lua")
  print(text.header(c.mode))
  for _, r in ipairs(c.rows) do
    for _, line in ipairs(text.level_lines(r.label, r.level, { engine = c.engine })) do print(line) end
  end
  for _, line in ipairs(text.legend(c.scope)) do print(line) end
end
for _, c in ipairs(cases.capacity) do
  print("=== " .. c.name)
  local text = dofile("loadtext.lua")
  print(text.capacity_line(c.mode, c.levels, c.levels[c.capacity or 0], c.levels[c.above or 0], c.lowest))
end
local text = dofile("loadtext.lua")
print("=== misc")
for _, x in ipairs(cases.ms) do print(text.ms(x)) end
for _, b in ipairs(cases.bounds) do print(text.bounds(b.value, b.ci)) end
for _, t in ipairs(cases.thirds) do print(text.thirds_text(t)) end
for _, u in ipairs(cases.units) do print(text.unit(u.mode, u.level)) end
`

type portRow struct {
	Label string             `json:"label"`
	Level artifact.LoadLevel `json:"level"`
}

type portTable struct {
	Name   string    `json:"name"`
	Mode   string    `json:"mode"`
	Engine string    `json:"engine,omitempty"`
	Scope  string    `json:"scope,omitempty"`
	Rows   []portRow `json:"rows"`
}

type portCapacity struct {
	Name     string               `json:"name"`
	Mode     string               `json:"mode"`
	Levels   []artifact.LoadLevel `json:"levels"`
	Capacity int                  `json:"capacity,omitempty"`
	Above    int                  `json:"above,omitempty"`
	Lowest   *float64             `json:"lowest,omitempty"`
}

type portBounds struct {
	Value *float64    `json:"value"`
	CI    [2]*float64 `json:"ci"`
}

type portUnit struct {
	Mode  string  `json:"mode"`
	Level float64 `json:"level"`
}

// TestPortMatchesLua: every table, capacity line and piece of text of the
// fixtures reads as loadtext.lua wrote it.
func TestPortMatchesLua(t *testing.T) {
	var in struct {
		Tables   []portTable           `json:"tables"`
		Capacity []portCapacity        `json:"capacity"`
		MS       []float64             `json:"ms"`
		Bounds   []portBounds          `json:"bounds"`
		Thirds   []artifact.LevelTrend `json:"thirds"`
		Units    []portUnit            `json:"units"`
	}
	var want []string
	for _, c := range tableCases() {
		pt := portTable{Name: c.name, Mode: c.mode, Engine: c.engine, Scope: c.scope}
		tab := &loadtext.Table{Mode: c.mode, Engine: c.engine, Scope: c.scope}
		want = append(want, "=== "+c.name, loadtext.Header(c.mode))
		for i, l := range c.levels {
			pt.Rows = append(pt.Rows, portRow{c.labels[i], l})
			want = append(want, tab.Level(c.labels[i], l)...)
		}
		want = append(want, tab.Legend()...)
		in.Tables = append(in.Tables, pt)
	}
	for _, c := range capacityCases() {
		pc := portCapacity{Name: c.name, Mode: c.mode, Levels: append([]artifact.LoadLevel{}, c.levels...)}
		var capacity, above *artifact.LoadLevel
		if c.capacity >= 0 {
			capacity, pc.Capacity = &c.levels[c.capacity], c.capacity+1
		}
		if c.above >= 0 {
			above, pc.Above = &c.levels[c.above], c.above+1
		}
		if !math.IsNaN(c.lowest) {
			pc.Lowest = &c.lowest
		}
		in.Capacity = append(in.Capacity, pc)
		want = append(want, "=== "+c.name, loadtext.CapacityLine(c.mode, c.levels, capacity, above, c.lowest))
	}
	want = append(want, "=== misc")
	in.MS = []float64{0, 0.04, 0.05, 0.25, 9.94, 9.96, 10, 10.5, 11.5, 812.49, -3.25, -12.5, 123456.5}
	for _, x := range in.MS {
		want = append(want, artifact.ShowMs(x))
	}
	in.Bounds = []portBounds{{f(812), [2]*float64{f(790), f(838)}}, {f(812), [2]*float64{nil, f(838)}},
		{f(812), [2]*float64{f(790), nil}}, {nil, [2]*float64{nil, nil}}, {nil, [2]*float64{f(4000), nil}}, {f(5), [2]*float64{nil, nil}}}
	for _, b := range in.Bounds {
		want = append(want, loadtext.Bounds(b.Value, b.CI))
	}
	in.Thirds = []artifact.LevelTrend{*trend(true, true, f(12), f(13.25), f(12.5)), *trend(false, true, f(12), f(80), nil)}
	for _, th := range in.Thirds {
		want = append(want, loadtext.ThirdsText(th))
	}
	in.Units = []portUnit{{"rate", 1}, {"rate", 0.5}, {"concurrency", 1}, {"concurrency", 2}}
	for _, u := range in.Units {
		want = append(want, loadtext.Unit(u.Mode, u.Level))
	}

	out := t.TempDir()
	data, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "cases.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	lua, err := fs.ReadFile(scripts.FS, "loadtext.lua")
	if err != nil {
		t.Fatal(err)
	}
	got := runLua(t, out, fstest.MapFS{"loadtext.lua": {Data: lua}, "driver.lua": {Data: []byte(portDriver)}}, "driver.lua", nil)
	sameLines(t, got, strings.Join(want, "\n")+"\n")
}

// runLua runs the script name of fsys in ttftlab's Lua VM with OUT the
// folder out, and returns what it printed.
func runLua(t *testing.T, out string, fsys fs.FS, name string, params map[string]any) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	vm, err := runtime.New(context.Background(), runtime.Config{Out: out, Params: params, Stdout: &stdout, Stderr: &stderr})
	if err != nil {
		t.Fatal(err)
	}
	defer vm.Close()
	if err := vm.RunFS(fsys, name); err != nil {
		t.Fatalf("%s: %v\n%s", name, err, stderr.String())
	}
	return stdout.String()
}

// sameLines fails on the first line where got and want differ.
func sameLines(t *testing.T, got, want string) {
	t.Helper()
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range max(len(g), len(w)) {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			t.Fatalf("line %d differs:\nlua: %q\ngo:  %q\n(%d lines from lua, %d from go)", i+1, gl, wl, len(g), len(w))
		}
	}
}
