package request

import (
	"fmt"
	"os"
	"path/filepath"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/endpoint"
	"ttftlab/internal/stream"
	"ttftlab/internal/voice"
	"ttftlab/runtime/luaerror"
	"ttftlab/runtime/luatable"
)

// streamCall is one stream() invocation, its arguments checked.
type streamCall struct {
	req     stream.Request
	body    *lua.LTable // the request body, encoded into req.Body
	rawOut  string      // resolved path; "" for none
	onChunk *lua.LFunction
	// serverFrom names how the user chose the server: opts.server or
	// SERVER's source.
	serverFrom string
	// returnErrors: opts.errors == "return".
	returnErrors bool
	// api is opts.api, else the command's --api (Host.API).
	api stream.API
	// ep is where the request goes (opts.server, else the Host's
	// endpoint); headers are opts.headers, sent over the endpoint's.
	ep      *endpoint.Endpoint
	headers map[string]string
}

// Stream is
//
//	stream(messages, opts) -> chunks, total_ms, timings, info
//	stream(messages, max_tokens, cache_prompt, raw_out) -> same
//
// It sends one streamed chat completion on a fresh connection and reports
// when each content chunk arrived (see the README's "Lua bindings" section for every option). A
// failure raises a Lua error naming the URL, unless opts.errors is
// "return": then the partial results come back with info.error set.
// Bytes that arrived are in raw_out either way.
func (rq *Binder) Stream(L *lua.LState) int {
	speech := rq.h.Speech(L)
	// With opts.stt the caller speaks first: the transcript is what the
	// LLM is asked.
	heard := rq.streamHeard(L)
	if heard != nil && heard.err != nil {
		return rq.failedTurn(L, heard)
	}
	call := rq.streamArgs(L)
	// failed keeps an error raised inside on_chunk so it can be re-raised
	// unchanged, with the position inside the callback.
	var failed lua.LValue
	if call.onChunk != nil {
		call.req.OnChunk = ChunkCallback(L, call.onChunk, &failed)
	}
	// With opts.tts each sentence goes to the speech server as it
	// completes: stream_many's pipeline (internal/voice), the same for one
	// stream as for many.
	var spoken func(res *stream.Result, err error) *voice.Answer
	if speech != nil {
		spoken = SpeakWhileStreaming(rq.h.Ctx(L), speech, &call.req)
	}
	var raw *os.File
	if call.rawOut != "" {
		raw = OpenRawOut(L, call.rawOut)
		call.req.RawOut = raw
	}
	ctx := rq.h.Ctx(L)
	res, err := stream.Do(ctx, call.req)
	var answer *voice.Answer
	if spoken != nil {
		answer = spoken(res, err)
	}
	if raw != nil {
		if cerr := raw.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("closing raw_out %s: %w", call.rawOut, cerr)
		}
	}
	if err != nil && res != nil && ctx.Err() != nil {
		// Nothing in Lua will see the partial answer: the cancel ends the
		// whole run. Keep it for the host, so a prompt can show what
		// arrived. A cancel that struck inside on_chunk surfaces as the
		// callback's error; name the cancel instead. Either way the
		// connection was closed (at TotalMs) because of the cancel: a cut.
		if failed != nil {
			err = fmt.Errorf("canceled while on_chunk ran: %w", ctx.Err())
			res.Info.Cut, res.Info.ClosedAtMs = true, res.TotalMs
		}
		rq.interrupted = &InterruptedStream{Values: rq.Values(L, res, err), OnChunk: call.onChunk != nil}
	}
	if failed != nil {
		L.Error(failed, 0)
	}
	if err != nil {
		err = rq.Hint(err, call.serverFrom)
	}
	if err != nil && !call.returnErrors {
		rq.h.Fail(L, "stream: %v", err)
	}
	if res == nil {
		res = &stream.Result{}
	}
	n := rq.pushStreamResult(L, res, err)
	if info, ok := L.Get(-1).(*lua.LTable); ok && answer != nil {
		var spoken luatable.Fields
		FillSpoken(L, &spoken, answer)
		spoken.Into(info)
	}
	if info, ok := L.Get(-1).(*lua.LTable); ok && heard != nil {
		info.RawSetString("turn", TurnInfo(L, heard.said, heard.engine, heard.result, res, answer))
	}
	return n
}

// ChunkCallback calls the script's on_chunk on the caller's goroutine (an
// LState must never be touched from another). Exactly false stops the
// stream; an error stops it too and is kept for re-raising.
func ChunkCallback(L *lua.LState, fn *lua.LFunction, failed *lua.LValue) func(stream.Chunk) (bool, error) {
	return func(c stream.Chunk) (bool, error) {
		t := L.CreateTable(0, 3)
		t.RawSetString("t_ms", lua.LNumber(c.TMs))
		t.RawSetString("text", lua.LString(c.Text))
		t.RawSetString("index", lua.LNumber(c.Index))
		L.Push(fn)
		L.Push(t)
		if err := L.PCall(1, 1, nil); err != nil {
			*failed = luaerror.Value(err)
			return false, fmt.Errorf("on_chunk: %w", err)
		}
		keep := L.Get(-1)
		L.Pop(1)
		return keep != lua.LFalse, nil
	}
}

// OpenRawOut opens raw_out for appending: every run adds its bytes, nothing
// earlier is lost.
func OpenRawOut(L *lua.LState, p string) *os.File {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		L.RaiseError("stream: cannot create the folder for raw_out %s: %v", p, err)
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		L.RaiseError("stream: cannot open raw_out %s: %v", p, err)
	}
	return f
}

// InterruptedStream is what a stream() call had received when a cancelled
// context (Ctrl-C) stopped it and with it the whole run.
type InterruptedStream struct {
	// Values are what stream() would have returned with errors = "return":
	// chunks, total_ms, timings, info (info.error says it was cancelled).
	Values []lua.LValue
	// OnChunk is true when the call had an on_chunk callback, which saw
	// every chunk as it arrived (and may have shown it already).
	OnChunk bool
}

// Interrupted returns the stream() call that a cancelled context stopped
// during the last run, or nil. A host that cancels runs on Ctrl-C uses it
// to show what had arrived.
func (rq *Binder) Interrupted() *InterruptedStream { return rq.interrupted }

// hinted is an error with what to try appended to its message; it unwraps
// to the original.
type hinted struct {
	err  error
	hint string
}

func (h hinted) Error() string { return h.err.Error() + h.hint }
func (h hinted) Unwrap() error { return h.err }

// Call is one request built from a script's messages and opts as stream()
// builds it, for stream_many to stream.
type Call struct {
	// Stream is the request to stream.
	Stream stream.Request
	// OnChunk is opts.on_chunk; RawOut the file of opts.raw_out ("":
	// none).
	OnChunk *lua.LFunction
	RawOut  string
	// ServerFrom names how the user chose the server (opts.server or
	// SERVER's source), for Hint.
	ServerFrom string
}

// Build builds the request of messages and an opts table (or nil) as
// stream() builds it.
func (rq *Binder) Build(L *lua.LState, messages, opts lua.LValue) Call {
	c := rq.buildCall(L, messages, opts)
	return Call{Stream: c.req, OnChunk: c.onChunk, RawOut: c.rawOut, ServerFrom: c.serverFrom}
}
