package runtime

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	lua "github.com/yuin/gopher-lua"
)

// RunFile runs the script at path. Its folder is SCRIPT_DIR, the base for
// relative dofile/loadfile names, and first on package.path.
//
// A Lua error comes back as *ScriptError ("file:line: message" plus a short
// traceback), os.exit as *ExitError.
func (vm *VM) RunFile(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("cannot read script %s: %w", path, err)
	}
	name := filepath.Clean(path)
	return vm.run(data, name, source{dir: filepath.Dir(name)})
}

// RunFS runs the script name from fsys (e.g. the scripts embedded in the
// binary). Relative dofile/loadfile names and require of the script's own
// modules resolve inside fsys; SCRIPT_DIR is "(embedded)".
func (vm *VM) RunFS(fsys fs.FS, name string) error {
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return fmt.Errorf("cannot read embedded script %s: %w", name, err)
	}
	return vm.run(data, name, source{fsys: fsys, dir: path.Dir(name)})
}

// RunString runs a piece of Lua source named name in error messages, as an
// interactive prompt does. Relative file names resolve against the
// working folder.
func (vm *VM) RunString(code, name string) error {
	return vm.run([]byte(code), name, source{dir: "."})
}

func (vm *VM) run(data []byte, name string, src source) error {
	fn, err := vm.load(data, name)
	if err != nil {
		return err
	}
	// A run context of its own lets os.exit stop the script (pcall cannot
	// swallow a cancelled context) without cancelling the caller's.
	ctx, cancel := context.WithCancel(vm.ctx)
	defer cancel()
	vm.cancelRun, vm.exit = cancel, nil
	vm.L.SetContext(ctx)
	defer vm.L.SetContext(vm.ctx)
	vm.enter(name, src)
	vm.L.Push(fn)
	err = vm.L.PCall(0, 0, nil)
	if vm.exit != nil {
		return vm.exit
	}
	if err != nil {
		return scriptError(err, vm.ctx.Err())
	}
	return nil
}

// enter points SCRIPT_DIR, arg[0], package.path and the module and file
// lookups at the script about to run.
func (vm *VM) enter(name string, src source) {
	L := vm.L
	vm.src, vm.root = src, src
	L.SetGlobal("SCRIPT_DIR", lua.LString(src.scriptDir()))
	if args, ok := L.GetGlobal("arg").(*lua.LTable); ok {
		args.RawSetInt(0, lua.LString(name))
	}
	p := vm.defaultPath
	if src.fsys == nil {
		p = filepath.Join(src.dir, "?.lua") + ";" + filepath.Join(src.dir, "?", "init.lua") + ";" + p
	}
	L.SetField(L.GetGlobal("package"), "path", lua.LString(p))
}
