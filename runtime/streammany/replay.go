package streammany

import (
	"bytes"
	"time"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/artifact"
	"ttftlab/internal/load"
	"ttftlab/internal/trace"
)

// replay is the trace a load replays (settings.trace): read once per
// Runner, its timing the plan's, each due turn's line handed to the
// request builder and its row tagged with where it came from.
type replay struct {
	tr     *trace.Trace
	timing trace.Timing
	vocab  trace.Vocab
	block  int
	// turns is the most turns of a call.
	turns int
}

// readReplay reads the trace of set (its Options as the settings record
// them) and checks it is the one the run began with (its SHA-256); the
// timing is for a caller who speaks each turn when spoken (--stt).
func readReplay(set *artifact.LoadTrace, spoken bool) (*replay, error) {
	o := trace.Options{Format: trace.Format(set.Format), Speed: set.Speed, FromMs: set.FromMs, ToMs: set.ToMs, Block: set.Block}
	tr, err := trace.Read(set.File, o)
	if err != nil {
		return nil, err
	}
	if tr.SHA256 != set.SHA256 {
		return nil, &changedTrace{file: set.File, was: set.SHA256, now: tr.SHA256}
	}
	rp := &replay{tr: tr, timing: tr.Timing(spoken), vocab: trace.VocabOf(set.Vocab), block: tr.Block}
	if rp.block <= 0 {
		rp.block = trace.DefaultBlock
	}
	for _, n := range rp.timing.Turns {
		rp.turns = max(rp.turns, n)
	}
	return rp, nil
}

// changedTrace is a trace whose content is no longer what the run read
// when it began.
type changedTrace struct{ file, was, now string }

func (e *changedTrace) Error() string {
	return "--trace " + e.file + ": the trace changed since the run began (sha256 " + e.was + ", now " + e.now + ")"
}

// plan makes p replay the trace: its calls' due times and turns, the
// pauses before later turns, max calls at once (0: no cap).
func (rp *replay) plan(p *load.Plan, max int) {
	p.Schedule = &load.Schedule{Starts: rp.timing.Starts, Turns: rp.timing.Turns}
	p.Calls, p.Rate, p.Turns = len(rp.timing.Starts), 0, rp.turns
	p.Think = load.Think{}
	if think := rp.timing.Think; think != nil {
		p.Think.Func = func(call, turn int) (time.Duration, error) { return think(call, turn), nil }
	}
	p.Concurrency = max
	if max == 0 {
		p.Concurrency = load.NoLimit
	}
}

// line is the request builder's sixth argument for turn of call: the
// trace's line, nil when the trace has no such turn.
func (rp *replay) line(L *lua.LState, call, turn int) lua.LValue {
	t := rp.tr.Turn(call, turn)
	if t == nil {
		return lua.LNil
	}
	c := rp.tr.Calls[call-1]
	line := L.CreateTable(0, 12)
	line.RawSetString("call_id", lua.LString(c.ID))
	line.RawSetString("line", lua.LNumber(t.Line))
	line.RawSetString("turns", lua.LNumber(len(c.Turns)))
	if t.Text != "" {
		line.RawSetString("text", lua.LString(t.Text))
	}
	if t.InputTokens > 0 {
		line.RawSetString("input_tokens", lua.LNumber(t.InputTokens))
	}
	if t.OutputTokens > 0 {
		line.RawSetString("output_tokens", lua.LNumber(t.OutputTokens))
	}
	if rp.tr.Format == trace.Mooncake {
		ids := t.Prompt(rp.block, rp.vocab)
		prompt := L.CreateTable(len(ids), 0)
		for _, id := range ids {
			prompt.Append(lua.LNumber(id))
		}
		line.RawSetString("prompt", prompt)
	}
	line.RawSetString("speak_ms", lua.LNumber(t.SpeakMs))
	line.RawSetString("pause_ms", lua.LNumber(t.PauseMs))
	if t.Audio != "" {
		line.RawSetString("audio", lua.LString(t.Audio))
	}
	return line
}

// audio is the caller's audio file of turn of call, "" when the trace
// gives none.
func (rp *replay) audio(call, turn int) string {
	if t := rp.tr.Turn(call, turn); t != nil {
		return t.Audio
	}
	return ""
}

// fill tags a row with the trace's line it replayed: the call's id and
// the line, a Mooncake line's input and shared tokens, and where the
// trace fixed the answer's length whether the request carried
// ignore_eos (its built body, as fitted to the kind of server).
func (rp *replay) fill(rec *artifact.Request, call, turn int, body []byte) {
	t := rp.tr.Turn(call, turn)
	if t == nil {
		return
	}
	rec.TraceCall, rec.TraceLine = rp.tr.Calls[call-1].ID, t.Line
	if rp.tr.Format == trace.Mooncake {
		rec.TraceInputN, rec.TraceSharedN = artifact.Num(float64(t.InputTokens)), artifact.Num(float64(t.SharedTokens))
	}
	if t.OutputTokens > 0 {
		ignore := carriesIgnoreEOS(body)
		rec.IgnoreEOS = &ignore
	}
}

// carriesIgnoreEOS says whether a request body (compact JSON, as stream()
// encodes it) asks the server to ignore its end of text. A string of the
// body cannot hold the member: its quotes would be escaped.
func carriesIgnoreEOS(body []byte) bool {
	return bytes.Contains(body, []byte(`"ignore_eos":true`))
}
