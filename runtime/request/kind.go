package request

import (
	"context"
	"errors"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/servers"
	"ttftlab/internal/stream"
)

// Kind is the kind of server at SERVER: Host.Kind when the command line
// detected it, else detected now, once per Binder.
func (rq *Binder) Kind(L *lua.LState) servers.Detection {
	if rq.detected == nil {
		d := rq.h.Kind
		if d.Kind == "" {
			d = servers.Detect(rq.h.Ctx(L), rq.getter())
		}
		rq.detected = &d
	}
	return *rq.detected
}

// getter GETs paths of SERVER with the endpoint's headers and TLS, for
// the servers probes.
func (rq *Binder) getter() servers.Getter {
	return func(ctx context.Context, path string) (int, []byte, error) {
		url := rq.URL(path)
		return stream.Get(ctx, url, rq.CallOptions(url))
	}
}

// ServerCaps is server_caps() -> caps: the kind of server at SERVER and
// what it offers (docs/servers.md).
func (rq *Binder) ServerCaps(L *lua.LState) int {
	d := rq.Kind(L)
	c := servers.CapsOf(d.Kind)
	t := L.CreateTable(0, 16)
	t.RawSetString("kind", lua.LString(c.Kind))
	t.RawSetString("evidence", lua.LString(d.Evidence))
	if d.Version != "" {
		t.RawSetString("version", lua.LString(d.Version))
	}
	t.RawSetString("health", lua.LString(c.Health))
	t.RawSetString("llama_fields", lua.LBool(c.LlamaFields))
	t.RawSetString("ignore_eos", lua.LBool(c.IgnoreEOS))
	t.RawSetString("token_limit", lua.LString(c.TokenLimit))
	t.RawSetString("cold_prompt", lua.LBool(c.ColdPrompt))
	t.RawSetString("timings", lua.LBool(c.Timings))
	t.RawSetString("usage", lua.LBool(c.Usage))
	t.RawSetString("cached_tokens", lua.LBool(c.CachedTokens))
	if c.Flush != "" {
		t.RawSetString("flush", lua.LString(c.Flush))
	}
	t.RawSetString("evict", lua.LBool(c.Evict))
	t.RawSetString("slots", lua.LBool(c.Slots))
	if c.Running != "" {
		t.RawSetString("running_metric", lua.LString(c.Running))
	}
	L.Push(t)
	return 1
}

// RunningRequests is running_requests() -> n | nil, why: the kind's
// running-requests gauge from SERVER's /metrics.
func (rq *Binder) RunningRequests(L *lua.LState) int {
	d := rq.Kind(L)
	c := servers.CapsOf(d.Kind)
	if c.Running == "" {
		L.Push(lua.LNil)
		L.Push(lua.LString("a " + string(c.Kind) + " server has no running-requests gauge"))
		return 2
	}
	v, ok, err := servers.Running(rq.h.Ctx(L), rq.getter(), d.Kind)
	switch {
	case err != nil:
		// A failed request names itself (GET SERVER/metrics); an answer
		// that could not be read is named here.
		var answer *servers.AnswerError
		if errors.As(err, &answer) {
			rq.h.Fail(L, "running_requests: GET %s%s: %v", rq.h.Server, answer.Path, answer.Err)
		}
		rq.h.Fail(L, "running_requests: %v", err)
	case !ok:
		L.Push(lua.LNil)
		L.Push(lua.LString(rq.h.Server + "/metrics does not serve " + c.Running +
			" (llama-server needs --metrics, SGLang --enable-metrics)"))
		return 2
	}
	L.Push(lua.LNumber(v))
	return 1
}

// fitToKind makes a request body fit the kind of server at SERVER, after
// the body is built (API shape, opts, opts.body): llama.cpp's own fields go
// to llama.cpp only, the token limit goes under the field the kind takes,
// and kinds that count tokens in usage are asked for it
// (stream_options.include_usage) unless the script set stream_options.
// Only a kind the command line detected (Host.Kind) changes the body, and
// only for requests to SERVER.
func (rq *Binder) fitToKind(c *streamCall) {
	if rq.h.Kind.Kind == "" || c.req.URL != rq.h.Server {
		return
	}
	caps := servers.CapsOf(rq.h.Kind.Kind)
	for _, name := range servers.Dropped(caps.Kind) {
		c.body.RawSetString(name, lua.LNil)
	}
	if caps.TokenLimit != "max_tokens" {
		if v := c.body.RawGetString("max_tokens"); v != lua.LNil {
			c.body.RawSetString("max_tokens", lua.LNil)
			if c.body.RawGetString(caps.TokenLimit) == lua.LNil {
				c.body.RawSetString(caps.TokenLimit, v)
			}
		}
	}
	// The Responses API sends usage in response.completed and takes no
	// stream_options.
	responses := c.api == stream.APIResponses || strings.HasSuffix(c.req.Path, "/responses")
	if caps.Usage && !caps.Timings && !responses && c.body.RawGetString("stream_options") == lua.LNil {
		so := &lua.LTable{}
		so.RawSetString("include_usage", lua.LTrue)
		c.body.RawSetString("stream_options", so)
	}
}
