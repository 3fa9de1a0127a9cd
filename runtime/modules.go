package runtime

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"

	lua "github.com/yuin/gopher-lua"
	gluajson "layeh.com/gopher-json"

	"ttftlab/runtime/luaerror"
	"ttftlab/stdlib"
)

// installModules sets up require: package.loaders becomes
//
//  1. embedded modules: stdlib first, then (for a script run from an
//     fs.FS) the script's own modules next to it
//  2. package.preload (require("json") is gopher-json)
//  3. files on package.path, read by this package so syntax errors read
//     "file:line:" like everywhere else
func (vm *VM) installModules() {
	L := vm.L
	gluajson.Preload(L)
	pkg, ok := L.GetGlobal("package").(*lua.LTable)
	if !ok {
		return
	}
	vm.defaultPath = lua.LVAsString(L.GetField(pkg, "path"))
	loaders, ok := L.GetField(pkg, "loaders").(*lua.LTable)
	if !ok {
		return
	}
	preload := loaders.RawGetInt(1)
	loaders.RawSetInt(1, L.NewFunction(luaerror.Guard("require", vm.embeddedLoader)))
	loaders.RawSetInt(2, preload)
	loaders.RawSetInt(3, L.NewFunction(luaerror.Guard("require", vm.pathLoader)))
}

// moduleFile maps "a.b" to "a/b.lua", as Lua's loaders do.
func moduleFile(name string) string {
	return strings.ReplaceAll(name, ".", "/") + ".lua"
}

// embeddedFile is one place a module may be embedded; chunk is its name in
// error messages.
type embeddedFile struct {
	fsys  fs.FS
	path  string
	chunk string
}

// embeddedLoader finds modules inside the binary. Like every loader it
// returns the compiled chunk, or a string saying where it looked.
func (vm *VM) embeddedLoader(L *lua.LState) int {
	name := L.CheckString(1)
	file := moduleFile(name)
	candidates := []embeddedFile{{stdlib.FS, file, luaerror.StdlibChunk + file}}
	if vm.root.fsys != nil {
		p := path.Join(vm.root.dir, file)
		candidates = append(candidates, embeddedFile{vm.root.fsys, p, p})
	}
	var tried []string
	for _, c := range candidates {
		data, err := fs.ReadFile(c.fsys, c.path)
		if err != nil {
			tried = append(tried, fmt.Sprintf("no embedded file '%s'", c.chunk))
			continue
		}
		fn, err := vm.load(data, c.chunk)
		if err != nil {
			L.RaiseError("require(%q): %v", name, err)
		}
		L.Push(fn)
		return 1
	}
	L.Push(lua.LString(strings.Join(tried, "\n\t")))
	return 1
}

// pathLoader searches package.path (re-read on every call, so scripts may
// change it).
func (vm *VM) pathLoader(L *lua.LState) int {
	name := L.CheckString(1)
	search := lua.LVAsString(L.GetField(L.GetGlobal("package"), "path"))
	file := strings.TrimSuffix(moduleFile(name), ".lua")
	var tried []string
	for _, tmpl := range strings.Split(search, ";") {
		if tmpl == "" {
			continue
		}
		p := strings.ReplaceAll(tmpl, "?", file)
		data, err := os.ReadFile(p)
		if err != nil {
			tried = append(tried, fmt.Sprintf("no file '%s'", p))
			continue
		}
		fn, err := vm.load(data, p)
		if err != nil {
			L.RaiseError("require(%q): %v", name, err)
		}
		L.Push(fn)
		return 1
	}
	L.Push(lua.LString(strings.Join(tried, "\n\t")))
	return 1
}

// callModule calls require(module)[fn](args...) on L and returns its
// results.
func callModule(L *lua.LState, module, fn string, args ...lua.LValue) ([]lua.LValue, error) {
	top := L.GetTop()
	defer L.SetTop(top)
	L.Push(L.GetGlobal("require"))
	L.Push(lua.LString(module))
	if err := L.PCall(1, 1, nil); err != nil {
		return nil, err
	}
	mod, ok := L.Get(-1).(*lua.LTable)
	if !ok {
		return nil, errors.New(module + " is not a module table")
	}
	L.Push(L.GetField(mod, fn))
	for _, a := range args {
		L.Push(a)
	}
	if err := L.PCall(len(args), lua.MultRet, nil); err != nil {
		return nil, err
	}
	var out []lua.LValue
	for i := top + 2; i <= L.GetTop(); i++ {
		out = append(out, L.Get(i))
	}
	return out, nil
}
