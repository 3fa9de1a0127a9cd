package runtime

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"time"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"
)

// RunFile runs the script at path. Its folder is SCRIPT_DIR, the base for
// relative dofile/loadfile names, and first on package.path.
//
// A Lua error comes back as *ScriptError ("file:line: message" plus a short
// traceback), os.exit as *ExitError.
func (vm *VM) RunFile(path string) error {
	return vm.RunFileContext(vm.ctx, path)
}

// RunFS runs the script name from fsys (e.g. the scripts embedded in the
// binary). Relative dofile/loadfile names and require of the script's own
// modules resolve inside fsys; SCRIPT_DIR is "(embedded)".
func (vm *VM) RunFS(fsys fs.FS, name string) error {
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return fmt.Errorf("cannot read embedded script %s: %w", name, err)
	}
	res, err := vm.run(vm.ctx, data, name, source{fsys: fsys, dir: path.Dir(name)}, 1)
	vm.keepNeeds(res)
	return err
}

// Needs is what the last RunFile or RunFS under Config.Preflight
// returned; zero when the script returned no table.
func (vm *VM) Needs() Needs { return vm.needs }

// keepNeeds reads a preflight run's returned table.
func (vm *VM) keepNeeds(res []lua.LValue) {
	if !vm.cfg.Preflight || len(res) == 0 {
		return
	}
	if t, ok := res[0].(*lua.LTable); ok {
		vm.needs = Needs{TTS: lua.LVAsBool(t.RawGetString("tts")), STT: lua.LVAsBool(t.RawGetString("stt"))}
	}
}

// RunString runs a piece of Lua source named name in error messages, as an
// interactive prompt does. Relative file names resolve against the
// working folder.
func (vm *VM) RunString(code, name string) error {
	_, err := vm.run(vm.ctx, []byte(code), name, source{dir: "."}, 0)
	return err
}

// Eval runs code like RunString, but under ctx instead of the context
// given to New, and returns the values the chunk returns. Cancelling ctx
// stops this evaluation only: the VM stays usable and the next Eval runs
// normally. An interactive prompt uses it with one context per line, which
// Ctrl-C cancels.
func (vm *VM) Eval(ctx context.Context, code, name string) ([]lua.LValue, error) {
	return vm.run(ctx, []byte(code), name, source{dir: "."}, lua.MultRet)
}

// RunFileContext is RunFile under ctx instead of the context given to New
// (see Eval).
func (vm *VM) RunFileContext(ctx context.Context, path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("cannot read script %s: %w", path, err)
	}
	name := filepath.Clean(path)
	res, err := vm.run(ctx, data, name, source{dir: filepath.Dir(name)}, 1)
	vm.keepNeeds(res)
	return err
}

// EvalStatements runs parsed statements like Eval: an interactive prompt
// parses what was typed itself, to keep its top-level locals for the
// session. name is the chunk's name in messages.
func (vm *VM) EvalStatements(ctx context.Context, stmts []ast.Stmt, name string) ([]lua.LValue, error) {
	proto, err := lua.Compile(stmts, name)
	if err != nil {
		return nil, syntaxError(err, name, 0)
	}
	return vm.runFn(ctx, vm.L.NewFunctionFromProto(proto), name, source{dir: "."}, lua.MultRet)
}

// run compiles and runs one chunk under a context derived from parent and
// returns up to nret of its results (lua.MultRet: all of them).
func (vm *VM) run(parent context.Context, data []byte, name string, src source, nret int) ([]lua.LValue, error) {
	fn, err := vm.load(data, name)
	if err != nil {
		return nil, err
	}
	return vm.runFn(parent, fn, name, src, nret)
}

// runFn runs a compiled chunk (see run).
func (vm *VM) runFn(parent context.Context, fn *lua.LFunction, name string, src source, nret int) ([]lua.LValue, error) {
	// A run context of its own lets os.exit stop the script (pcall cannot
	// swallow a cancelled context) without cancelling the caller's.
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	vm.cancelRun, vm.exit, vm.hostErr = cancel, nil, ""
	vm.req.StartRun()
	vm.runBegan = time.Now()
	vm.L.SetContext(ctx)
	defer vm.L.SetContext(vm.ctx)
	vm.enter(name, src)
	base := vm.L.GetTop()
	vm.L.Push(fn)
	err := vm.L.PCall(0, nret, nil)
	if vm.exit != nil {
		vm.L.SetTop(base)
		return nil, vm.exit
	}
	if err != nil {
		vm.L.SetTop(base)
		return nil, vm.dropHostTrace(scriptError(err, parent.Err()))
	}
	results := make([]lua.LValue, 0, vm.L.GetTop()-base)
	for i := base + 1; i <= vm.L.GetTop(); i++ {
		results = append(results, vm.L.Get(i))
	}
	vm.L.SetTop(base)
	return results, nil
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
