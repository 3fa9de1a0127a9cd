package runtime

import (
	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/check"
)

// checkArtifacts is check_artifacts([files]) -> outcomes: `ttftlab check`'s
// rules on OUT, with SERVER_LOG as its --server-log. With files, only the
// outcomes that concern them (check.Artifacts): each file's own check and
// every rule that reads one of them. Each outcome is {status = "PASS",
// "FAIL", "SKIP" or "WARN", name =, detail =, line =}, line as check
// prints it.
func (vm *VM) checkArtifacts(L *lua.LState) int {
	var outcomes []check.Outcome
	switch v := L.Get(1).(type) {
	case *lua.LNilType:
		outcomes = check.Results(vm.cfg.Out, vm.cfg.ServerLog)
	case *lua.LTable:
		files := []string{}
		for i := 1; i <= v.Len(); i++ {
			s, ok := v.RawGetInt(i).(lua.LString)
			if !ok {
				L.ArgError(1, "files must be an array of file names")
			}
			files = append(files, string(s))
		}
		outcomes = check.Artifacts(vm.cfg.Out, vm.cfg.ServerLog, files)
	default:
		L.ArgError(1, "files must be an array of file names, or nil for the whole folder")
	}
	t := L.CreateTable(len(outcomes), 0)
	for _, o := range outcomes {
		row := L.CreateTable(0, 4)
		row.RawSetString("status", lua.LString(o.Status))
		row.RawSetString("name", lua.LString(o.Name))
		row.RawSetString("detail", lua.LString(o.Detail))
		row.RawSetString("line", lua.LString(o.Line()))
		t.Append(row)
	}
	L.Push(t)
	return 1
}

// checkNotMeasured is check_not_measured() -> steps: the steps whose
// numbers the lab's report copies that did not measure in OUT, in the
// report's order, each {step =, why =} (check.Unmeasured: the rule check
// holds report.json's nulls and not_measured to).
func (vm *VM) checkNotMeasured(L *lua.LState) int {
	steps, err := check.Unmeasured(vm.cfg.Out)
	if err != nil {
		L.RaiseError("check_not_measured: %s", err.Error())
	}
	t := L.CreateTable(len(steps), 0)
	for _, s := range steps {
		row := L.CreateTable(0, 2)
		row.RawSetString("step", lua.LString(s.Step))
		row.RawSetString("why", lua.LString(s.Why))
		t.Append(row)
	}
	L.Push(t)
	return 1
}

// takeTurn is take_turn(step): Config.Turn, or nothing.
func (vm *VM) takeTurn(L *lua.LState) int {
	step := L.CheckString(1)
	if vm.cfg.Turn == nil {
		return 0
	}
	if err := vm.cfg.Turn(step); err != nil {
		L.RaiseError("take_turn: %s", err.Error())
	}
	return 0
}
