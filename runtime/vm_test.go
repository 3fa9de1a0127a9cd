package runtime

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"
	"ttftlab/runtime/luatest"

	lua "github.com/yuin/gopher-lua"
)

func TestPrintAndIOWriteGoToStdout(t *testing.T) {
	vm, out := testVM(t, Config{})
	if err := vm.RunString(`print("a", 1, nil, true, 2.5) io.write("x", 3, "\n")`, "p.lua"); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "a\t1\tnil\ttrue\t2.5\nx3\n" {
		t.Fatalf("output = %q", got)
	}
}

func TestStdioGoesToConfigWriters(t *testing.T) {
	var stderr bytes.Buffer
	vm, out := testVM(t, Config{Stderr: &stderr})
	err := vm.RunString(`
		io.stdout:write("o", 1):write("k\n")
		io.stderr:write("step failed: ", "x", "\n")
		eprint("e", 2)
		io.stderr:flush()
		print(tostring(io.stderr))`, "s.lua")
	if err != nil {
		t.Fatal(err)
	}
	if out.String() != "o1k\nfile (stderr)\n" || stderr.String() != "step failed: x\ne\t2\n" {
		t.Fatalf("stdout %q stderr %q", out.String(), stderr.String())
	}
	if err := vm.RunString(`io.stderr:write({})`, "s.lua"); err == nil || !strings.Contains(err.Error(), "string expected, got table") {
		t.Fatalf("got %v", err)
	}
}

func TestGlobals(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"g.lua": `
		print(SERVER, OUT == nil, KB_DIR, SERVER_LOG, arg[0], arg[1], arg[2], #arg, SCRIPT_DIR)`})
	vm, out := testVM(t, Config{Server: "http://h:1/", Args: []string{"x", "y"}})
	if err := vm.RunFile(filepath.Join(dir, "g.lua")); err != nil {
		t.Fatal(err)
	}
	want := "http://h:1\tfalse\tnil\tnil\t" + filepath.Join(dir, "g.lua") + "\tx\ty\t2\t" + dir + "\n"
	if out.String() != want {
		t.Fatalf("got  %q\nwant %q", out.String(), want)
	}
	vm2, out2 := testVM(t, Config{KBDir: "kbdir", ServerLog: "s.log"})
	if err := vm2.RunFS(fstest.MapFS{"m.lua": {Data: []byte(`print(KB_DIR, SERVER_LOG, SCRIPT_DIR, arg[0])`)}}, "m.lua"); err != nil {
		t.Fatal(err)
	}
	if out2.String() != "kbdir\ts.log\t(embedded)\tm.lua\n" {
		t.Fatalf("got %q", out2.String())
	}
}

func TestOSExitEndsRunNotProcess(t *testing.T) {
	cases := []struct {
		code string
		want int
	}{{"3", 3}, {"", 0}, {"true", 0}, {"false", 1}}
	for _, c := range cases {
		vm, out := testVM(t, Config{})
		err := vm.RunString(`print("before") os.exit(`+c.code+`) print("after")`, "x.lua")
		var exit *ExitError
		if !errors.As(err, &exit) || exit.Code != c.want {
			t.Fatalf("os.exit(%s): got %v, want ExitError{%d}", c.code, err, c.want)
		}
		if out.String() != "before\n" {
			t.Fatalf("output = %q", out.String())
		}
	}
}

// pcall cannot keep a script alive after os.exit.
func TestOSExitInsidePcall(t *testing.T) {
	vm, out := testVM(t, Config{})
	err := vm.RunString(`
		local ok = pcall(os.exit, 4)
		print("still running", ok)`, "x.lua")
	var exit *ExitError
	if !errors.As(err, &exit) || exit.Code != 4 {
		t.Fatalf("got %v, want ExitError{4}", err)
	}
	if out.Len() != 0 {
		t.Fatalf("the script went on after os.exit: %q", out.String())
	}
	// the VM is usable again afterwards
	if err := vm.RunString(`print("again")`, "y.lua"); err != nil {
		t.Fatal(err)
	}
}

func TestRuntimeErrorHasFileLineAndTraceback(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"lab.lua": "local x = 1\nlocal function f()\n  error('boom')\nend\nf()\n"})
	vm, _ := testVM(t, Config{})
	path := filepath.Join(dir, "lab.lua")
	err := vm.RunFile(path)
	var se *ScriptError
	if !errors.As(err, &se) {
		t.Fatalf("got %T %v, want *ScriptError", err, err)
	}
	if !strings.HasPrefix(se.Message, path+":3: boom") {
		t.Fatalf("message %q should start with %s:3: boom", se.Message, path)
	}
	luatest.MustContain(t, se.Traceback, "stack traceback:", path+":5:")
	if strings.Contains(err.Error(), "@") {
		t.Fatalf("chunk names must not carry '@': %v", err)
	}
}

func TestSyntaxErrorHasFileLine(t *testing.T) {
	vm, _ := testVM(t, Config{})
	err := vm.RunFS(fstest.MapFS{"lab.lua": {Data: []byte("print(1)\nlocal = 2\n")}}, "lab.lua")
	if err == nil || !strings.HasPrefix(err.Error(), "lab.lua:2:") {
		t.Fatalf("got %v, want an error starting with lab.lua:2:", err)
	}
	err = vm.RunString("if true then\n", "open.lua")
	if err == nil || !strings.HasPrefix(err.Error(), "open.lua:") {
		t.Fatalf("got %v", err)
	}
}

func TestBindingPanicBecomesLuaError(t *testing.T) {
	vm, out := testVM(t, Config{})
	vm.setFunc("explode", func(L *lua.LState) int {
		var m map[string]int
		m["x"] = 1 // a nil-map write: a real Go panic
		return 0
	})
	err := vm.RunString(`
		local ok, msg = pcall(explode)
		print(ok, msg)
		explode()`, "p.lua")
	luatest.MustContain(t, out.String(), "false", "explode: internal error: assignment to entry in nil map")
	var se *ScriptError
	if !errors.As(err, &se) || !strings.HasPrefix(se.Message, "p.lua:4: explode: internal error") {
		t.Fatalf("got %v", err)
	}
}

func TestCancelStopsBusyLoop(t *testing.T) {
	for _, code := range []string{
		`while true do end`,
		`while true do pcall(function() while true do end end) end`,
		`sleep_ms(600000)`,
	} {
		ctx, cancel := context.WithCancel(context.Background())
		vm, err := New(ctx, Config{Out: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- vm.RunString(code, "loop.lua") }()
		time.Sleep(30 * time.Millisecond)
		cancel()
		select {
		case err := <-done:
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("%s: got %v, want an error wrapping context.Canceled", code, err)
			}
			luatest.MustContain(t, err.Error(), "loop.lua:1:")
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: cancelling did not stop the script", code)
		}
		vm.Close()
	}
}

// The raised limits: gopher-lua's defaults fail both of these.
func TestLargeUnpackAndDeepRecursion(t *testing.T) {
	vm, out := testVM(t, Config{})
	err := vm.RunString(`
		local t = {}
		for i = 1, 100000 do t[i] = "x" end
		local function depth(n) if n == 0 then return 0 end return 1 + depth(n - 1) end
		print(select("#", unpack(t)), #table.concat(t), depth(600))`, "big.lua")
	if err != nil {
		t.Fatal(err)
	}
	if out.String() != "100000\t100000\t600\n" {
		t.Fatalf("output = %q", out.String())
	}
}
