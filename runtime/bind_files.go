package runtime

import (
	"fmt"
	"os"
	"path/filepath"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/atomicfile"
)

// outPath resolves a script-given file name: relative to OUT unless
// absolute.
func (vm *VM) outPath(name string) string {
	if filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(vm.cfg.Out, name)
}

// writeJSON is write_json(path, value) -> written path: indented JSON with
// sorted keys, replaced atomically. See package luajson for the rules.
func (vm *VM) writeJSON(L *lua.LState) int {
	name := L.CheckString(1)
	data, err := vm.json.Encode(L.CheckAny(2), true)
	if err != nil {
		L.RaiseError("write_json(%q): %v", name, err)
	}
	L.Push(lua.LString(vm.replaceFile(L, "write_json", name, append(data, '\n'))))
	return 1
}

// writeText is write_text(path, text) -> written path, replaced atomically.
func (vm *VM) writeText(L *lua.LState) int {
	name := L.CheckString(1)
	text := L.CheckString(2)
	L.Push(lua.LString(vm.replaceFile(L, "write_text", name, []byte(text))))
	return 1
}

// appendJSONL is append_jsonl(path, value) -> written path: one compact
// JSON line added at the end of the file.
func (vm *VM) appendJSONL(L *lua.LState) int {
	name := L.CheckString(1)
	data, err := vm.json.Encode(L.CheckAny(2), false)
	if err != nil {
		L.RaiseError("append_jsonl(%q): %v", name, err)
	}
	p := vm.prepareDir(L, "append_jsonl", name)
	if err := atomicfile.Append(p, append(data, '\n')); err != nil {
		vm.writeError(L, "append_jsonl: ", err)
	}
	L.Push(lua.LString(p))
	return 1
}

// readJSON is read_json(path) -> value, with arrays and objects marked so
// they write back unchanged and null as json_null.
func (vm *VM) readJSON(L *lua.LState) int {
	p := vm.outPath(L.CheckString(1))
	data, err := os.ReadFile(p)
	if err != nil {
		L.RaiseError("read_json: %v", err)
	}
	v, err := vm.json.Decode(L, data)
	if err != nil {
		L.RaiseError("read_json: %s: %v", p, err)
	}
	L.Push(v)
	return 1
}

// readText is read_text(path) -> string.
func (vm *VM) readText(L *lua.LState) int {
	p := vm.outPath(L.CheckString(1))
	data, err := os.ReadFile(p)
	if err != nil {
		L.RaiseError("read_text: %v", err)
	}
	L.Push(lua.LString(data))
	return 1
}

func (vm *VM) replaceFile(L *lua.LState, binding, name string, data []byte) string {
	p := vm.prepareDir(L, binding, name)
	if err := atomicfile.Write(p, data, 0o644); err != nil {
		vm.writeError(L, binding+": ", err)
	}
	return p
}

// prepareDir resolves name and creates its folder.
func (vm *VM) prepareDir(L *lua.LState, binding, name string) string {
	p := vm.outPath(name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		vm.writeError(L, binding+": ", fmt.Errorf("cannot create the folder for %s: %w", p, err))
	}
	return p
}
