package runtime

import (
	"context"
	"time"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/artifact"
	"ttftlab/internal/servers"
	"ttftlab/runtime/streammany"
)

// streamMany is stream_many(requests, opts): runtime/streammany's, over
// this VM.
func (vm *VM) streamMany(L *lua.LState) int { return vm.manyHost().Binding(L) }

// LoadRunner makes the runner of the load set describes (load.Runner),
// whose requests exp builds: runtime/streammany's, over this VM. The
// run's clock (each row's run_ms) starts now.
func (vm *VM) LoadRunner(exp *Experiment, set artifact.LoadSettings) *streammany.Runner {
	vm.runBegan = time.Now()
	return streammany.NewRunner(vm.manyHost(), exp.fn, exp.name, set)
}

// RealtimeRunner makes the runner of the speech-to-speech sessions set
// describes (load --realtime: load.Runner), whose callers' lines exp
// builds: runtime/streammany's, over this VM, which needs no LLM server.
// The run's clock (each row's run_ms) starts now.
func (vm *VM) RealtimeRunner(exp *Experiment, set artifact.LoadSettings, cfg streammany.RealtimeConfig) *streammany.RealtimeRunner {
	vm.runBegan = time.Now()
	return streammany.NewRealtimeRunner(vm.manyHost(), exp.fn, exp.name, set, cfg)
}

// manyHost is what stream_many and the load's runner take from the VM.
func (vm *VM) manyHost() *streammany.Host {
	h := &streammany.Host{
		Stderr:    vm.cfg.Stderr,
		JSON:      vm.json,
		Ctx:       vm.callCtx,
		RunBegan:  func() time.Time { return vm.runBegan },
		Requests:  vm.req,
		Speech:    vm.speak.TTSOption,
		OutPath:   vm.outPath,
		Endpoint:  vm.endpoint,
		Kind:      func(L *lua.LState) servers.Kind { return vm.req.Kind(L).Kind },
		FailWrite: vm.writeError,
		Written:   func(err error) error { return &WriteError{Err: err} },
		Protect:   vm.protect,
	}
	if t := vm.cfg.TTS; t != nil && t.CPU != nil {
		h.TTSCPU = t.CPU
	}
	h.Caller = vm.cfg.STT
	return h
}

// protect runs f on the VM's state under ctx as a protected call, so
// that what the bindings raise comes back as an error (a failed write as
// its *WriteError, the rest as a *ScriptError).
func (vm *VM) protect(ctx context.Context, f func(L *lua.LState)) error {
	vm.hostErr, vm.writeErr = "", nil
	L := vm.L
	L.SetContext(ctx)
	defer L.SetContext(vm.ctx)
	base := L.GetTop()
	defer L.SetTop(base)
	L.Push(L.NewFunction(func(L *lua.LState) int { f(L); return 0 }))
	if err := L.PCall(0, 0, nil); err != nil {
		if vm.writeErr != nil && vm.hostErr != "" {
			return vm.writeErr
		}
		return vm.dropHostTrace(scriptError(err, ctx.Err()))
	}
	return nil
}
