package request

import (
	"strings"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/stream"
)

// Post is post(path, body) -> decoded, body_text, status: body (a table,
// encoded with write_json's rules, or a string sent as is) is POSTed as
// JSON to SERVER .. path. Any status is returned, not raised, since the
// server's error answers are JSON worth reading; decoded is nil when the
// answer is not JSON. A network failure raises, naming the URL.
func (rq *Binder) Post(L *lua.LState) int {
	p := L.CheckString(1)
	var payload []byte
	switch v := L.Get(2).(type) {
	case lua.LString:
		payload = []byte(v)
	case *lua.LTable:
		b, err := rq.h.JSON.Encode(v, false)
		if err != nil {
			L.RaiseError("post: the body cannot be sent as JSON: %v", err)
		}
		payload = b
	default:
		L.ArgError(2, "a table (sent as JSON) or a string expected, got "+v.Type().String())
	}
	url := rq.URL(p)
	status, body, err := stream.Post(rq.h.Ctx(L), url, payload, rq.CallOptions(url))
	if err != nil {
		msg := err.Error()
		if !strings.Contains(msg, url) {
			msg = "POST " + url + ": " + msg
		}
		rq.h.Fail(L, "post: %s%s", msg, rq.getHint(err))
	}
	decoded := lua.LValue(lua.LNil)
	if v, err := rq.h.JSON.Decode(L, body); err == nil {
		decoded = v
	}
	L.Push(decoded)
	L.Push(lua.LString(body))
	L.Push(lua.LNumber(status))
	return 3
}
