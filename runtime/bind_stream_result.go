package runtime

import (
	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/stream"
)

// pushStreamResult pushes chunks, total_ms, timings, info. err (only set
// with errors = "return") becomes info.error.
func (vm *VM) pushStreamResult(L *lua.LState, res *stream.Result, err error) int {
	for _, v := range vm.streamValues(L, res, err) {
		L.Push(v)
	}
	return 4
}

// streamValues are stream()'s four results: chunks, total_ms, timings
// (nil when none came), info.
func (vm *VM) streamValues(L *lua.LState, res *stream.Result, err error) []lua.LValue {
	chunks := L.CreateTable(len(res.Chunks), 0)
	for _, c := range res.Chunks {
		t := L.CreateTable(0, 2)
		t.RawSetString("t_ms", lua.LNumber(c.TMs))
		t.RawSetString("text", lua.LString(c.Text))
		chunks.Append(t)
	}
	var timings lua.LValue = lua.LNil
	if res.Timings != nil {
		timings = vm.json.ToLua(L, res.Timings)
	}
	var info fields
	vm.streamInfo(L, &info, res.Info)
	tokenInfo(&info, res)
	if res.Reads != nil {
		info.set("read_stamps", readStamps(L, res.Reads))
	}
	if err != nil {
		info.set("error", lua.LString(err.Error()))
	}
	return []lua.LValue{chunks, lua.LNumber(res.TotalMs), timings, info.table(L)}
}

// streamInfo gathers info's fields from stream.Info; absent values are nil, not zero, so a
// script cannot mistake "no first token" for "first token at 0 ms".
func (vm *VM) streamInfo(L *lua.LState, info *fields, in stream.Info) {
	if in.HasTTFT {
		info.set("ttft_ms", lua.LNumber(in.TTFTMs))
	}
	if !in.T0.IsZero() {
		// t0 on now_ms()'s clock, so scripts can relate stream times to
		// their own measurements (e.g. when a slot went idle after a cut).
		info.set("t0_ms", lua.LNumber(msSinceStart(in.T0)))
	}
	info.set("headers_ms", lua.LNumber(in.HeadersMs))
	for _, f := range []struct {
		name string
		v    *float64
	}{{"first_event_ms", in.FirstEventMs}, {"first_progress_ms", in.FirstProgressMs}, {"first_reasoning_ms", in.FirstReasoningMs},
		{"first_tool_call_ms", in.FirstToolCallMs}, {"first_output_ms", in.FirstOutputMs}} {
		if f.v != nil {
			info.set(f.name, lua.LNumber(*f.v))
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
		info.set("reasoning", list)
	}
	info.set("done", lua.LBool(in.Done))
	info.set("cut", lua.LBool(in.Cut))
	if in.Cut {
		info.set("closed_at_ms", lua.LNumber(in.ClosedAtMs))
	}
	if in.FinishReason != "" {
		info.set("finish_reason", lua.LString(in.FinishReason))
	}
	info.set("status", lua.LNumber(in.Status))
	info.set("lines", lua.LNumber(in.Lines))
	if in.IgnoredEvents > 0 {
		info.set("ignored_events", lua.LNumber(in.IgnoredEvents))
		info.set("first_ignored", lua.LString(in.FirstIgnored))
	}
	if in.Usage != nil {
		info.set("usage", vm.json.ToLua(L, in.Usage))
	}
	if in.StampSource != stream.SourceNone {
		info.set("stamp_source", lua.LString(in.StampSource.String()))
	}
	info.set("reads", lua.LNumber(in.Reads))
	info.set("kernel_stamps", lua.LNumber(in.KernelStamps))
	info.set("read_pauses", lua.LNumber(in.ReadPauses))
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
// info.cached_tokens, read from timings or else usage (promptTokens), with
// info.tokens_from naming which; all three are nil when the server sent
// neither.
func tokenInfo(info *fields, res *stream.Result) {
	info.set("api", lua.LString(res.Info.API.String()))
	prompt, cached, from := promptTokens(res.Timings, res.Info.Usage)
	if prompt != nil {
		info.set("prompt_tokens", lua.LNumber(*prompt))
	}
	if cached != nil {
		info.set("cached_tokens", lua.LNumber(*cached))
	}
	if from != "" {
		info.set("tokens_from", lua.LString(from))
	}
}
