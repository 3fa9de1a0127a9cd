package runtime

import (
	"bytes"
	"errors"
	"io/fs"
	"os"

	lua "github.com/yuin/gopher-lua"
)

// logContains is log_contains(text) -> boolean: whether the llama-server
// log (SERVER_LOG) holds text, e.g. "stop: cancel task" after a cut.
func (vm *VM) logContains(L *lua.LState) int {
	text := L.CheckString(1)
	if vm.cfg.ServerLog == "" {
		L.RaiseError("log_contains: no server log is known; set %s to the file llama-server writes its log to", vm.source("SERVER_LOG"))
	}
	data, err := os.ReadFile(vm.cfg.ServerLog)
	if errors.Is(err, fs.ErrNotExist) {
		L.RaiseError("log_contains: the server log %s does not exist; check %s and that llama-server writes its log there (its --log-file)", vm.cfg.ServerLog, vm.source("SERVER_LOG"))
	}
	if err != nil {
		L.RaiseError("log_contains: %v", err)
	}
	L.Push(lua.LBool(bytes.Contains(data, []byte(text))))
	return 1
}
