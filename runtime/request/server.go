package request

import (
	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/llamaserver"
)

// ServerInfo is server_info() -> table: what `ttftlab server status` knows
// about SERVER. Fields: url, endpoint (url, api_key as "set from SOURCE",
// headers redacted, model, ca_cert, insecure: never the key), healthy,
// health, model, n_ctx, slots, processing, and, when ttftlab started that
// server, tracked = true with pid, log_path and args (the command line).
func (rq *Binder) ServerInfo(L *lua.LState) int {
	url := rq.h.Server
	p := llamaserver.Ask(rq.h.Ctx(L), rq.h.Endpoint)
	t := L.NewTable()
	t.RawSetString("url", lua.LString(url))
	t.RawSetString("endpoint", endpointTable(L, rq.h.Endpoint))
	t.RawSetString("healthy", lua.LBool(p.Healthy))
	t.RawSetString("health", lua.LString(p.Health))
	if p.Healthy {
		t.RawSetString("model", lua.LString(p.Model))
		t.RawSetString("n_ctx", lua.LNumber(p.NCtx))
		t.RawSetString("slots", lua.LNumber(p.Slots))
		t.RawSetString("processing", lua.LNumber(p.Processing))
	}
	var st *llamaserver.State
	if reg, err := llamaserver.OpenRegistry(); err == nil {
		st = reg.ForURL(url)
	}
	t.RawSetString("tracked", lua.LBool(st != nil))
	if st != nil {
		t.RawSetString("pid", lua.LNumber(st.PID))
		t.RawSetString("log_path", lua.LString(st.LogPath))
		args := L.CreateTable(len(st.Args), 0)
		for _, a := range st.Args {
			args.Append(lua.LString(a))
		}
		t.RawSetString("args", args)
		if !p.Healthy && st.Model != "" {
			t.RawSetString("model", lua.LString(st.Model))
		}
	}
	L.Push(t)
	return 1
}
