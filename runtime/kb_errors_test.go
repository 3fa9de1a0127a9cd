package runtime

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"ttftlab/runtime/luatest"
)

// A KB folder that does not exist is the user's input to fix, not a bug
// in the script: the error names the folder and the script's line, with
// no Lua stack traceback under it. A script error of its own keeps its
// traceback, and a caught KB error leaves the next error's alone.
func TestKBErrorWithoutTraceback(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope")
	vm, _ := testVM(t, Config{KBDir: missing})
	err := vm.RunString("local function docs()\n  return kb_docs()\nend\ndocs()", "k.lua")
	if err == nil {
		t.Fatal("kb_docs() of a missing folder succeeded")
	}
	luatest.MustContain(t, err.Error(), "k.lua:2:", missing, "does not exist")
	luatest.MustNotContain(t, err.Error(), "stack traceback")

	err = vm.RunString("pcall(kb_docs)\nlocal function f() error('boom') end\nf()", "e.lua")
	if err == nil || !strings.Contains(err.Error(), "stack traceback") {
		t.Errorf("a script's own error after a caught KB error: %v, want its traceback", err)
	}
}

// An empty .md file is left out of kb_docs() with one warning on stderr,
// however often the script asks.
func TestKBEmptyFileWarnsOnce(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a.md": "# A\nay\n", "b.md": ""})
	var errOut bytes.Buffer
	vm, out := testVM(t, Config{KBDir: dir, Stderr: &errOut})
	if err := vm.RunString("print(#kb_docs(), #kb_docs())", "k.lua"); err != nil {
		t.Fatal(err)
	}
	if out.String() != "1\t1\n" {
		t.Errorf("output %q, want 1 document each time", out.String())
	}
	if n := strings.Count(errOut.String(), "warning"); n != 1 || !strings.Contains(errOut.String(), filepath.Join(dir, "b.md")) {
		t.Errorf("stderr %q, want one warning naming b.md", errOut.String())
	}
}
