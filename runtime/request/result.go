package request

import (
	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/stream"
	"ttftlab/runtime/luatable"
)

// pushStreamResult pushes chunks, total_ms, timings, info. err (only set
// with errors = "return") becomes info.error.
func (rq *Binder) pushStreamResult(L *lua.LState, res *stream.Result, err error) int {
	for _, v := range rq.Values(L, res, err) {
		L.Push(v)
	}
	return 4
}

// Values are stream()'s four results: chunks, total_ms, timings
// (nil when none came), info.
func (rq *Binder) Values(L *lua.LState, res *stream.Result, err error) []lua.LValue {
	chunks := L.CreateTable(len(res.Chunks), 0)
	for _, c := range res.Chunks {
		t := L.CreateTable(0, 2)
		t.RawSetString("t_ms", lua.LNumber(c.TMs))
		t.RawSetString("text", lua.LString(c.Text))
		chunks.Append(t)
	}
	var timings lua.LValue = lua.LNil
	if res.Timings != nil {
		timings = rq.h.JSON.ToLua(L, res.Timings)
	}
	var info luatable.Fields
	rq.streamInfo(L, &info, res.Info)
	tokenInfo(&info, res)
	if res.Reads != nil {
		info.Set("read_stamps", readStamps(L, res.Reads))
	}
	if err != nil {
		info.Set("error", lua.LString(err.Error()))
	}
	return []lua.LValue{chunks, lua.LNumber(res.TotalMs), timings, info.Table(L)}
}

// streamInfo gathers info's fields from stream.Info; absent values are nil, not zero, so a
// script cannot mistake "no first token" for "first token at 0 ms".
func (rq *Binder) streamInfo(L *lua.LState, info *luatable.Fields, in stream.Info) {
	if in.HasTTFT {
		info.Set("ttft_ms", lua.LNumber(in.TTFTMs))
	}
	if !in.T0.IsZero() {
		// t0 on now_ms()'s clock, so scripts can relate stream times to
		// their own measurements (e.g. when a slot went idle after a cut).
		info.Set("t0_ms", lua.LNumber(rq.h.SinceStart(in.T0)))
	}
	info.Set("headers_ms", lua.LNumber(in.HeadersMs))
	for _, f := range []struct {
		name string
		v    *float64
	}{{"first_event_ms", in.FirstEventMs}, {"first_progress_ms", in.FirstProgressMs}, {"first_reasoning_ms", in.FirstReasoningMs},
		{"first_tool_call_ms", in.FirstToolCallMs}, {"first_output_ms", in.FirstOutputMs}} {
		if f.v != nil {
			info.Set(f.name, lua.LNumber(*f.v))
		}
	}
	if len(in.Reasoning) > 0 {
		list := L.CreateTable(len(in.Reasoning), 0)
		for _, r := range in.Reasoning {
			t := L.CreateTable(0, 2)
			t.RawSetString("t_ms", lua.LNumber(r.TMs))
			t.RawSetString("text", lua.LString(r.Text))
			list.Append(t)
		}
		info.Set("reasoning", list)
	}
	info.Set("done", lua.LBool(in.Done))
	info.Set("cut", lua.LBool(in.Cut))
	if in.Cut {
		info.Set("closed_at_ms", lua.LNumber(in.ClosedAtMs))
	}
	if in.FinishReason != "" {
		info.Set("finish_reason", lua.LString(in.FinishReason))
	}
	info.Set("status", lua.LNumber(in.Status))
	info.Set("lines", lua.LNumber(in.Lines))
	if in.IgnoredEvents > 0 {
		info.Set("ignored_events", lua.LNumber(in.IgnoredEvents))
		info.Set("first_ignored", lua.LString(in.FirstIgnored))
	}
	if in.Usage != nil {
		info.Set("usage", rq.h.JSON.ToLua(L, in.Usage))
	}
	if in.StampSource != stream.SourceNone {
		info.Set("stamp_source", lua.LString(in.StampSource.String()))
	}
	info.Set("reads", lua.LNumber(in.Reads))
	info.Set("kernel_stamps", lua.LNumber(in.KernelStamps))
	info.Set("read_pauses", lua.LNumber(in.ReadPauses))
}

// readStamps is info.read_stamps: {t_ms=, read_ms=, source=, bytes=} per
// read that brought data.
func readStamps(L *lua.LState, reads []stream.Read) *lua.LTable {
	t := L.CreateTable(len(reads), 0)
	for _, r := range reads {
		e := L.CreateTable(0, 4)
		e.RawSetString("t_ms", lua.LNumber(r.TMs))
		e.RawSetString("read_ms", lua.LNumber(r.ReadMs))
		e.RawSetString("source", lua.LString(r.Source.String()))
		e.RawSetString("bytes", lua.LNumber(r.Bytes))
		t.Append(e)
	}
	return t
}

// tokenInfo adds info.api and the prompt's tokens: info.prompt_tokens and
// info.cached_tokens, read from timings or else usage (PromptTokens), with
// info.tokens_from naming which; all three are nil when the server sent
// neither.
func tokenInfo(info *luatable.Fields, res *stream.Result) {
	info.Set("api", lua.LString(res.Info.API.String()))
	prompt, cached, from := PromptTokens(res.Timings, res.Info.Usage)
	if prompt != nil {
		info.Set("prompt_tokens", lua.LNumber(*prompt))
	}
	if cached != nil {
		info.Set("cached_tokens", lua.LNumber(*cached))
	}
	if from != "" {
		info.Set("tokens_from", lua.LString(from))
	}
}
