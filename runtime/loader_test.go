package runtime

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"ttftlab/runtime/luatest"
)

func TestRequireEmbeddedModules(t *testing.T) {
	fsys := fstest.MapFS{
		"lab.lua":       {Data: []byte(`local own = require("own") print(own.name, type(require("stats")), require("json").encode({1}))`)},
		"own.lua":       {Data: []byte(`return {name = "own module"}`)},
		"broken.lua":    {Data: []byte("return {\n")},
		"uses_miss.lua": {Data: []byte(`require("no_such_module")`)},
	}
	vm, out := testVM(t, Config{})
	if err := vm.RunFS(fsys, "lab.lua"); err != nil {
		t.Fatal(err)
	}
	if out.String() != "own module\ttable\t[1]\n" {
		t.Fatalf("output = %q", out.String())
	}
	err := vm.RunFS(fsys, "uses_miss.lua")
	if err == nil {
		t.Fatal("expected an error for a missing module")
	}
	luatest.MustContain(t, err.Error(), "uses_miss.lua:1:", "no_such_module", "stdlib/no_such_module.lua")
	vm2, _ := testVM(t, Config{})
	err = vm2.RunString(`require("broken")`, "r.lua")
	if err == nil {
		// broken.lua lives only in fsys, so from a string run it is missing
		t.Fatal("expected an error")
	}
	err = vm2.RunFS(fsys, "lab.lua") // fresh lookups still work after a failure
	if err != nil {
		t.Fatal(err)
	}
	vm3, _ := testVM(t, Config{})
	err = vm3.RunFS(fstest.MapFS{"m.lua": {Data: []byte(`require("broken")`)}, "broken.lua": {Data: []byte("return {\n")}}, "m.lua")
	if err == nil {
		t.Fatal("expected a syntax error")
	}
	luatest.MustContain(t, err.Error(), `require("broken")`, "broken.lua:")
}

func TestPackagePathHasScriptFolder(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"exp/main.lua":       `print(require("helper").twice(21), require("pkg.inner").v)`,
		"exp/helper.lua":     `return {twice = function(x) return 2 * x end}`,
		"exp/pkg/inner.lua":  `return {v = "inner"}`,
		"exp/bad_syntax.lua": "x = = 1\n",
		"exp/req_bad.lua":    `require("bad_syntax")`,
	})
	vm, out := testVM(t, Config{})
	// The working folder is the package folder, not dir: the module must
	// be found through the script's folder.
	if err := vm.RunFile(filepath.Join(dir, "exp", "main.lua")); err != nil {
		t.Fatal(err)
	}
	if out.String() != "42\tinner\n" {
		t.Fatalf("output = %q", out.String())
	}
	err := vm.RunFile(filepath.Join(dir, "exp", "req_bad.lua"))
	if err == nil {
		t.Fatal("expected a syntax error")
	}
	luatest.MustContain(t, err.Error(), filepath.Join(dir, "exp", "bad_syntax.lua")+":1:")
}

func TestDofileResolvesOnDisk(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"scripts/lab.lua":       `local a, b = dofile("steps/one.lua") print(a, b) dofile("fails.lua")`,
		"scripts/steps/one.lua": `return dofile("two.lua") + 1, "second"`,
		"scripts/steps/two.lua": `return 41`,
		"scripts/fails.lua":     "\n\nerror('step failed')\n",
	})
	vm, out := testVM(t, Config{})
	err := vm.RunFile(filepath.Join(dir, "scripts", "lab.lua"))
	if out.String() != "42\tsecond\n" {
		t.Fatalf("output = %q", out.String())
	}
	if err == nil {
		t.Fatal("expected the error from fails.lua")
	}
	luatest.MustContain(t, err.Error(), filepath.Join(dir, "scripts", "fails.lua")+":3: step failed")
}

func TestDofileResolvesInsideFS(t *testing.T) {
	fsys := fstest.MapFS{
		"lab.lua":       {Data: []byte(`print(dofile("03_ttft.lua"), dofile(SCRIPT_DIR .. "/sub/x.lua"), loadfile("missing.lua"))`)},
		"03_ttft.lua":   {Data: []byte(`return "step3"`)},
		"sub/x.lua":     {Data: []byte(`return dofile("y.lua")`)},
		"sub/y.lua":     {Data: []byte(`return "y in sub"`)},
		"missing_d.lua": {Data: []byte(`dofile("nope.lua")`)},
	}
	vm, out := testVM(t, Config{})
	if err := vm.RunFS(fsys, "lab.lua"); err != nil {
		t.Fatal(err)
	}
	want := "step3\ty in sub\tnil\tcannot read missing.lua: no such file among the embedded scripts\n"
	if out.String() != want {
		t.Fatalf("got  %q\nwant %q", out.String(), want)
	}
	err := vm.RunFS(fsys, "missing_d.lua")
	if err == nil {
		t.Fatal("expected an error")
	}
	luatest.MustContain(t, err.Error(), "missing_d.lua:1: dofile: cannot read nope.lua")
}

func TestLoadfileOnDisk(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"main.lua": `local f = assert(loadfile("lib.lua")) print(f()) print(loadfile("bad.lua"))`,
		"lib.lua":  `return "loaded"`,
		"bad.lua":  "return return\n",
	})
	vm, out := testVM(t, Config{})
	if err := vm.RunFile(filepath.Join(dir, "main.lua")); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(out.String(), "\n")
	if lines[0] != "loaded" || !strings.HasPrefix(lines[1], "nil\t"+filepath.Join(dir, "bad.lua")+":1:") {
		t.Fatalf("output = %q", out.String())
	}
}

func TestShebangLineIsSkipped(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"s.lua": "#!/usr/bin/env ttftlab\nprint('ok')\nerror('x')\n"})
	vm, out := testVM(t, Config{})
	err := vm.RunFile(filepath.Join(dir, "s.lua"))
	if out.String() != "ok\n" || err == nil || !strings.Contains(err.Error(), "s.lua:3: x") {
		t.Fatalf("out %q err %v", out.String(), err)
	}
}

// TestOutMadeAtFirstWrite: a run that writes nothing leaves no OUT; the
// first write makes it.
func TestOutMadeAtFirstWrite(t *testing.T) {
	out := filepath.Join(t.TempDir(), "a", "b")
	vm, _ := testVM(t, Config{Out: out})
	if err := vm.RunString(`local x = 1`, "n.lua"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatalf("OUT exists after a run that wrote nothing: %v", err)
	}
	if err := vm.RunString(`write_json("r.json", {a = 1})`, "w.lua"); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(out); err != nil || !st.IsDir() {
		t.Fatalf("OUT not made by the first write: %v", err)
	}
}
