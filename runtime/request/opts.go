package request

import (
	"fmt"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/stream"
	"ttftlab/runtime/luatable"
	"ttftlab/runtime/suggest"
)

// defaultBody is the request every stream() call starts from: greedy and
// seeded so repeated runs compare, short answers, server-side prompt cache
// on (the server's own default, made explicit).
func defaultBody(L *lua.LState) *lua.LTable {
	b := L.CreateTable(0, 8)
	b.RawSetString("stream", lua.LTrue)
	b.RawSetString("max_tokens", lua.LNumber(64))
	b.RawSetString("temperature", lua.LNumber(0))
	b.RawSetString("seed", lua.LNumber(7))
	b.RawSetString("cache_prompt", lua.LTrue)
	return b
}

// StreamOptionNames are the names stream()'s opts may hold.
func StreamOptionNames() []string { return append([]string(nil), optionNames...) }

// optionNames lists the keys opts may hold; anything else is a typo the
// script should hear about.
var optionNames = []string{
	"api", "body", "cache_prompt", "clause", "cut_after_ms", "errors", "headers", "idle_timeout_ms",
	"keep_chunks", "keep_reads", "max_tokens", "min_clause_chars", "on_chunk", "path", "raw_out", "seed", "server",
	"stt", "temperature", "timeout_ms", "tts",
}

// applyOption sets one opts field; body is merged separately, last.
func (rq *Binder) applyOption(L *lua.LState, name string, v lua.LValue, c *streamCall) {
	label := "opts." + name
	switch name {
	case "max_tokens", "temperature", "seed":
		c.body.RawSetString(name, lua.LNumber(luatable.Num(L, label, v)))
	case "cache_prompt":
		c.body.RawSetString(name, lua.LBool(luatable.Bool(L, label, v)))
	case "raw_out":
		c.rawOut = rq.h.OutPath(luatable.Str(L, label, v))
	case "cut_after_ms":
		c.req.CutAfter = luatable.Ms(L, label, v)
	case "timeout_ms":
		c.req.Timeout = luatable.Ms(L, label, v)
	case "idle_timeout_ms":
		// negative switches the idle check off, as in stream.Request
		c.req.IdleTimeout = time.Duration(luatable.Num(L, label, v) * float64(time.Millisecond))
	case "keep_chunks":
		c.req.DiscardChunks = !luatable.Bool(L, label, v)
	case "keep_reads":
		c.req.KeepReads = luatable.Bool(L, label, v)
	case "path":
		c.req.Path = luatable.Str(L, label, v)
	case "server":
		if t, ok := v.(*lua.LTable); ok {
			c.ep = rq.EndpointFromTable(L, t)
		} else {
			c.ep = rq.EndpointFromURL(luatable.Str(L, label, v))
		}
		c.serverFrom = label
	case "headers":
		c.headers = OptHeaders(L, v)
	case "on_chunk":
		c.onChunk = optFunc(L, v)
	case "errors":
		c.returnErrors = OptErrors(L, v)
	case "api":
		c.api = parseAPIOption(L, v)
	case "body", "tts", "clause", "min_clause_chars": // the speech pipeline's (Host.Speech)
	case "stt": // the caller's side (streamHeard), read before the request is built
	default:
		L.RaiseError("stream: unknown option %q%s (known: %s)", name, suggest.DidYouMean(name, optionNames), strings.Join(optionNames, ", "))
	}
}

// streamArgs checks stream()'s arguments and builds the request.
func (rq *Binder) streamArgs(L *lua.LState) streamCall {
	if n, ok := L.Get(2).(lua.LNumber); ok {
		c := rq.newCall(L, L.Get(1))
		rq.applySeedForm(L, n, &c)
		return rq.encodeCall(L, c)
	}
	if v := L.Get(2); v != lua.LNil {
		if _, ok := v.(*lua.LTable); !ok {
			L.ArgError(2, "options table or max_tokens number expected, got "+v.Type().String())
		}
	}
	return rq.buildCall(L, L.Get(1), L.Get(2))
}

// buildCall builds the request of messages and an opts table (or nil).
// The body is one Lua table, encoded to JSON once with write_json's rules.
func (rq *Binder) buildCall(L *lua.LState, messages, opts lua.LValue) streamCall {
	c := rq.newCall(L, messages)
	switch v := opts.(type) {
	case *lua.LNilType:
	case *lua.LTable:
		rq.applyOptions(L, v, &c)
	default:
		L.RaiseError("stream: opts must be a table, got %s", opts.Type())
	}
	return rq.encodeCall(L, c)
}

func (rq *Binder) newCall(L *lua.LState, messages lua.LValue) streamCall {
	c := streamCall{req: stream.Request{URL: rq.h.Server, Timeout: rq.h.RequestTimeout,
		Wire: rq.h.Wire, NoKernelStamps: rq.h.NoKernelStamps}, body: defaultBody(L), serverFrom: rq.h.ServerFrom,
		api: rq.h.API, ep: rq.h.Endpoint}
	c.body.RawSetString("messages", rq.messages(L, messages))
	return c
}

func (rq *Binder) encodeCall(L *lua.LState, c streamCall) streamCall {
	c.req.URL, c.req.TLS = c.ep.Base, c.ep.TLS
	c.req.Header = c.ep.Headers()
	if len(c.headers) > 0 {
		if c.req.Header == nil {
			c.req.Header = map[string]string{}
		}
		for k, v := range c.headers {
			c.req.Header[k] = v
		}
	}
	// The model goes in every body unless the script set one.
	if c.ep.Model != "" && c.body.RawGetString("model") == lua.LNil {
		c.body.RawSetString("model", lua.LString(c.ep.Model))
	}
	rq.shapeBody(L, &c)
	rq.fitToKind(&c)
	body, err := rq.h.JSON.Encode(c.body, false)
	if err != nil {
		L.RaiseError("stream: the request body cannot be sent as JSON: %v", err)
	}
	c.req.Body = body
	return c
}

func (rq *Binder) applyOptions(L *lua.LState, opts *lua.LTable, c *streamCall) {
	opts.ForEach(func(k, v lua.LValue) {
		name, ok := k.(lua.LString)
		if !ok {
			L.RaiseError("stream: opts must only have named fields, found the key %s", k)
		}
		rq.applyOption(L, string(name), v, c)
	})
	// body goes last so it can override anything, including defaults.
	switch body := opts.RawGetString("body").(type) {
	case *lua.LNilType:
	case *lua.LTable:
		body.ForEach(func(k, v lua.LValue) {
			name, ok := k.(lua.LString)
			if !ok {
				L.RaiseError("stream: opts.body must be a table of request fields, found the key %s", k)
			}
			c.body.RawSetString(string(name), v)
		})
	default:
		L.RaiseError("stream: opts.body must be a table, got %s", body.Type())
	}
}

// applySeedForm handles stream(messages, max_tokens, cache_prompt, raw_out).
func (rq *Binder) applySeedForm(L *lua.LState, maxTokens lua.LNumber, c *streamCall) {
	c.body.RawSetString("max_tokens", maxTokens)
	if v := L.Get(3); v != lua.LNil {
		c.body.RawSetString("cache_prompt", lua.LBool(luatable.Bool(L, "cache_prompt (argument 3)", v)))
	}
	if v := L.Get(4); v != lua.LNil {
		c.rawOut = rq.h.OutPath(luatable.Str(L, "raw_out (argument 4)", v))
	}
}

// messages accepts a string (one user message) or an array of
// {role=, content=} tables, which is sent as given; an empty array only
// when the body gets its API's own prompt instead (shapeBody).
func (rq *Binder) messages(L *lua.LState, v lua.LValue) lua.LValue {
	switch v := v.(type) {
	case lua.LString:
		m := L.CreateTable(0, 2)
		m.RawSetString("role", lua.LString("user"))
		m.RawSetString("content", v)
		list := L.CreateTable(1, 0)
		list.Append(m)
		return list
	case *lua.LTable:
		n := v.Len()
		for i := 1; i <= n; i++ {
			m, ok := v.RawGetInt(i).(*lua.LTable)
			if !ok || m.RawGetString("role").Type() != lua.LTString {
				L.ArgError(1, fmt.Sprintf("messages[%d] must be a table with a string role, like {role=\"user\", content=\"...\"}", i))
			}
		}
		return v
	}
	L.ArgError(1, "messages must be a string or an array of {role=, content=} tables, got "+v.Type().String())
	return nil
}

func optFunc(L *lua.LState, v lua.LValue) *lua.LFunction {
	f, ok := v.(*lua.LFunction)
	if !ok {
		L.RaiseError("stream: opts.on_chunk must be a function, got %s", v.Type())
	}
	return f
}

func OptHeaders(L *lua.LState, v lua.LValue) map[string]string {
	t, ok := v.(*lua.LTable)
	if !ok {
		L.RaiseError("stream: opts.headers must be a table of name = value strings, got %s", v.Type())
	}
	h := map[string]string{}
	t.ForEach(func(k, val lua.LValue) {
		ks, kok := k.(lua.LString)
		vs, vok := val.(lua.LString)
		if !kok || !vok {
			L.RaiseError("stream: opts.headers must map strings to strings (%s = %s)", k, val)
		}
		h[string(ks)] = string(vs)
	})
	return h
}

func OptErrors(L *lua.LState, v lua.LValue) bool {
	switch lua.LVAsString(v) {
	case "raise":
		return false
	case "return":
		return true
	}
	L.RaiseError("stream: opts.errors must be \"raise\" (default) or \"return\", got %s", v)
	return false
}
