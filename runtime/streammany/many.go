package streammany

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/artifact"
	"ttftlab/internal/load"
	"ttftlab/internal/stream"
	"ttftlab/internal/voice"
	"ttftlab/runtime/luaerror"
	"ttftlab/runtime/request"
)

// Binding is stream_many(requests, opts) -> results, summary: many
// streamed requests at once, a closed loop (opts.concurrency) or an open
// one (opts.rate), as calls of opts.turns turns with opts.think_ms
// between them. The load package's plan decides which call's which turn
// is due when; the script only builds each request when it is due. Every
// request is timed as stream() times it; the Lua work (building the next
// request, on_chunk, on_result, a think_ms function) runs on the script's
// goroutine and never delays a stamp. A failed request is a result with
// its error; the run goes on. See docs/lua-api.md.
func (h *Host) Binding(L *lua.LState) int {
	src := requestSourceOf(L, L.Get(1))
	o := h.options(L, L.Get(2))
	if !o.startAt.IsZero() {
		if err := load.WaitUntil(h.Ctx(L), o.startAt); err != nil {
			L.RaiseError("stream_many: %v while waiting for opts.start_at_ms (%s)", err, o.startAt.UTC().Format(time.RFC3339Nano))
		}
	}
	m := h.newMany(L, src, o)
	err := m.run()
	var failedWrite *writeFailed
	switch {
	case m.raised != nil:
		L.Error(m.raised, 0) // an error inside a callback, with its own position
	case err == load.ErrNoRequests:
	case errors.As(err, &failedWrite):
		// The level ends with the rows recorded so far; the caller
		// finishes what the run left (load marks the level interrupted).
		h.FailWrite(L, "stream_many: ", failedWrite.err)
	case err != nil:
		L.RaiseError("stream_many: %v", err)
	}
	if ctx := h.Ctx(L); ctx.Err() != nil {
		L.RaiseError("stream_many: %v after %d requests", ctx.Err(), m.started)
	}
	L.Push(m.results)
	L.Push(m.summary())
	return 2
}

// newMany prepares a run of the requests of src as o plans them: what
// stream_many and the load's Runner share.
func (h *Host) newMany(L *lua.LState, src requestSource, o manyOptions) *many {
	return &many{h: h, L: L, opts: o, src: src, results: L.CreateTable(0, 0)}
}

// run runs the requests on the script's goroutine until the plan ends, a
// hook fails or L's context is done. Its error is the loop's
// (load.ErrNoRequests when none started; a *writeFailed for a record that
// could not be written); a Lua error of a callback is in m.raised. A Lua
// error of the request builder itself unwinds through it as through any
// host function; m.rows keeps the rows recorded until then.
func (m *many) run() error {
	h, L, o := m.h, m.L, m.opts
	m.begin, m.use0 = time.Now(), clientUsage()
	if o.overSLO != nil {
		m.over = &load.OverSaturation{SLO: *o.overSLO}
	}
	if began := h.RunBegan(); !began.IsZero() {
		m.runOffset = m.begin.Sub(began)
	}
	if o.thinkFn != nil {
		m.opts.plan.Think.Func = m.think
	}
	loop, err := load.New(m.opts.plan)
	if err != nil {
		return err
	}
	m.loop = loop
	if o.record != nil {
		if err := o.record.open(); err != nil {
			return written(err)
		}
		defer o.record.close()
	}
	stopWatch := m.watchServer()
	defer stopWatch()
	defer m.progress.end()
	defer func() {
		m.elapsed = time.Since(m.begin)
		m.use1 = clientUsage()
	}()
	hooks := load.Hooks{Next: m.next, Finished: m.finished, Tick: m.tick}
	return loop.Run(h.Ctx(L), hooks)
}

// many is the state of one stream_many call. Everything but what the
// request goroutines hand over runs on the script's goroutine.
type many struct {
	h       *Host
	L       *lua.LState
	opts    manyOptions
	src     requestSource
	loop    *load.Loop
	results *lua.LTable
	begin   time.Time
	// runOffset is begin since the run began (Host.RunBegan): what turns a
	// time since begin into run_ms.
	runOffset time.Duration
	elapsed   time.Duration
	started   int
	// calls are the requests started, by index, until they finish.
	calls map[int]*manyCall
	// rows are the finished requests' rows in the order they ended, with
	// their call and turn.
	rows []artifact.LoadRequest
	// over is the over-saturation check (opts.over_saturation), nil
	// without one.
	over     *load.OverSaturation
	raised   lua.LValue
	progress progressLine
	// use0 and use1 are the machine's cost at the start and the end.
	use0, use1 usage
}

// manyCall is one started request's own parts.
type manyCall struct {
	call request.Call
	raw  *os.File
	tags *lua.LTable // the request's opts.tags, or nil
	// spoken is the answer as spoken, when it was sent to a speech
	// server; set on the request's goroutine before its result is handed
	// back.
	spoken *voice.Answer
	// heard is the turn as the caller spoke it (--stt); nil when not.
	heard *heardTurn
	// history is the turns a call that started in steady state holds as
	// history in its first request (load.Turn.History).
	history int
}

// next builds the request of a due turn for the loop.
func (m *many) next(t load.Turn) (load.Job, load.Status, error) {
	if m.raised != nil {
		return load.Job{}, load.Done, nil
	}
	var line lua.LValue
	if m.opts.replay != nil {
		line = m.opts.replay.line(m.L, t.Call, t.Turn)
	}
	messages, opts, status := m.src.get(m.L, t, m.results, line)
	if status != load.Ready {
		return load.Job{}, status, nil
	}
	tags := requestTags(opts)
	speech, caller := m.opts.tts, m.opts.caller
	if t, ok := opts.(*lua.LTable); ok && t.RawGetString("stt") != lua.LNil {
		caller = m.h.sttOption(m.L, "stream_many: a request's opts.stt", t.RawGetString("stt"))
	}
	opts = withoutOwn(m.L, opts)
	if t, ok := opts.(*lua.LTable); ok && t.RawGetString("tts") != lua.LNil {
		speech = m.h.Speech(m.L, "stream_many: a request's opts.tts", t.RawGetString("tts"))
	}
	var heard *heardTurn
	if caller != nil {
		messages, heard = spokenMessages(m.L, messages)
		if m.opts.replay != nil {
			heard.audio = m.opts.replay.audio(t.Call, t.Turn)
		}
	}
	c := m.h.Requests.Build(m.L, messages, opts)
	mc := &manyCall{call: c, tags: tags, heard: heard, history: t.History}
	var before func(context.Context, *stream.Request) error
	if heard != nil {
		heard.checkBody(m.L, c.Stream.Body)
		before = heard.before(caller, t.Turn)
	}
	if c.OnChunk != nil {
		c.Stream.OnChunk = m.chunkOnLoop(c.OnChunk)
	}
	if c.RawOut != "" {
		mc.raw = request.OpenRawOut(m.L, c.RawOut)
		c.Stream.RawOut = mc.raw
	}
	mc.call = c
	var after func(*stream.Result, error) error
	if speech != nil {
		after = m.speakAnswer(speech, mc)
	}
	if m.calls == nil {
		m.calls = map[int]*manyCall{}
	}
	m.calls[t.Index] = mc
	m.started++
	return load.Job{Request: mc.call.Stream, Before: before, After: after}, load.Ready, nil
}

// think calls opts.think_ms(call, turn) for the plan: the caller's pause
// before that turn.
func (m *many) think(call, turn int) (time.Duration, error) {
	L := m.L
	L.Push(m.opts.thinkFn)
	L.Push(lua.LNumber(call))
	L.Push(lua.LNumber(turn))
	if err := L.PCall(2, 1, nil); err != nil {
		if m.raised == nil {
			m.raised = luaerror.Value(err)
		}
		return 0, errRaised
	}
	got := L.Get(-1)
	L.Pop(1)
	d, ok := thinkMs(got)
	if !ok {
		return 0, fmt.Errorf("opts.think_ms(%d, %d) returned %s, want ms >= 0", call, turn, got.String())
	}
	return d, nil
}

// errRaised stops the loop after a Lua error, which many.raised holds.
var errRaised = errors.New("a Lua callback raised an error")

// chunkOnLoop runs a request's Lua on_chunk on the script's goroutine. The
// request's reader goes on reading and stamping meanwhile; only this
// request's handling of its chunks waits.
func (m *many) chunkOnLoop(fn *lua.LFunction) func(stream.Chunk) (bool, error) {
	return func(c stream.Chunk) (bool, error) {
		keep, err := true, error(nil)
		ran := m.loop.OnLoop(func() {
			var failed lua.LValue
			keep, err = request.ChunkCallback(m.L, fn, &failed)(c)
			if failed != nil && m.raised == nil {
				m.raised = failed
			}
		})
		if !ran {
			return false, nil
		}
		return keep, err
	}
}

// finished turns one result into results[index], records it and calls
// on_result.
func (m *many) finished(r load.Result) (bool, error) {
	mc := m.calls[r.Index]
	delete(m.calls, r.Index)
	if mc != nil && mc.raw != nil {
		mc.raw.Close()
	}
	res := r.Result
	if res == nil {
		res = &stream.Result{}
	}
	fin := m.describe(r, res, mc)
	rec := fin.record()
	if mc != nil {
		rec.HistoryTurns = mc.history
		if m.opts.replay != nil {
			m.opts.replay.fill(&rec, r.Call, r.Turn, mc.call.Stream.Body)
		}
	}
	if mc != nil && mc.heard != nil {
		mc.heard.fillHeard(&rec, res, fin.spoken)
		mc.heard.heardFields(fin.table, rec)
	}
	m.rows = append(m.rows, artifact.LoadRequest{Call: r.Call, Turn: r.Turn, Request: rec})
	m.results.RawSetInt(r.Index, fin.table)
	if m.opts.record != nil {
		if err := m.opts.record.add(m.L, m.h.JSON, fin, rec); err != nil {
			return false, err
		}
	}
	// An over-saturated level starts no new call.
	over := m.over != nil && m.over.Ended(m.rows[len(m.rows)-1])
	if m.opts.onResult == nil || m.raised != nil || m.h.Ctx(m.L).Err() != nil {
		return m.raised == nil && !over, nil
	}
	m.L.Push(m.opts.onResult)
	m.L.Push(fin.table)
	if err := m.L.PCall(1, 1, nil); err != nil {
		m.raised = luaerror.Value(err)
		return false, nil
	}
	more := m.L.Get(-1) != lua.LFalse
	m.L.Pop(1)
	return more && !over, nil
}
