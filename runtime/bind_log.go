package runtime

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"

	lua "github.com/yuin/gopher-lua"
)

// needLog returns SERVER_LOG or raises naming how to set it.
func (vm *VM) needLog(L *lua.LState, binding string) string {
	if vm.cfg.ServerLog == "" {
		L.RaiseError("%s: no server log is known; set %s to the file llama-server writes its log to", binding, vm.source("SERVER_LOG"))
	}
	return vm.cfg.ServerLog
}

// logMarkBinding is log_mark() -> mark: where SERVER_LOG stands now, as
// {path =, offset =, inode =}.
func (vm *VM) logMarkBinding(L *lua.LState) int {
	path := vm.needLog(L, "log_mark")
	m, err := markLog(path)
	if err != nil {
		L.RaiseError("log_mark: %v", err)
	}
	t := L.CreateTable(0, 3)
	t.RawSetString("path", lua.LString(path))
	t.RawSetString("offset", lua.LNumber(m.offset))
	t.RawSetString("inode", lua.LNumber(m.inode))
	L.Push(t)
	return 1
}

// logContains is log_contains(text, [since]) -> boolean: whether the
// llama-server log (SERVER_LOG) holds text in what was written after
// since (a log_mark()), or, without since, after the script started.
func (vm *VM) logContains(L *lua.LState) int {
	text := L.CheckString(1)
	path := vm.needLog(L, "log_contains")
	since := vm.logStart
	if t, ok := L.Get(2).(*lua.LTable); ok {
		since = logMark{offset: int64(lua.LVAsNumber(t.RawGetString("offset"))), inode: uint64(lua.LVAsNumber(t.RawGetString("inode")))}
	} else if L.Get(2) != lua.LNil {
		L.ArgError(2, "a mark from log_mark() expected, got "+L.Get(2).Type().String())
	}
	data, err := logSince(path, since)
	if errors.Is(err, fs.ErrNotExist) {
		L.RaiseError("log_contains: the server log %s does not exist; check %s and that llama-server writes its log there (its --log-file)", path, vm.source("SERVER_LOG"))
	}
	if err != nil {
		L.RaiseError("log_contains: %v", fmt.Errorf("reading %s: %w", path, err))
	}
	L.Push(lua.LBool(bytes.Contains(data, []byte(text))))
	return 1
}
