package runtime

import (
	"os"
	"time"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/load"
	"ttftlab/internal/stream"
)

// streamMany is stream_many(requests, opts) -> results, summary: many
// streamed requests at once, a closed loop (opts.concurrency) or an open
// one (opts.rate). Every request is timed as stream() times it; the Lua
// work (building the next request, on_chunk, on_result) runs on the
// script's goroutine and never delays a stamp. A failed request is a
// result with its error; the run goes on. See docs/lua-api.md.
func (vm *VM) streamMany(L *lua.LState) int {
	src := vm.requestSource(L, L.Get(1))
	o := vm.manyOptions(L, L.Get(2))
	loop, err := load.New(o.plan)
	if err != nil {
		L.RaiseError("stream_many: %v", err)
	}
	m := &many{vm: vm, L: L, opts: o, src: src, loop: loop, results: L.CreateTable(0, 0), begin: time.Now()}
	if o.record != nil {
		if err := o.record.open(vm); err != nil {
			L.RaiseError("stream_many: %v", err)
		}
		defer o.record.close()
	}
	stopWatch := m.watchServer()
	defer stopWatch()
	defer m.progress.end()
	hooks := load.Hooks{Next: m.next, Finished: m.finished, Tick: m.tick}
	err = loop.Run(vm.callCtx(L), hooks)
	m.elapsed = time.Since(m.begin)
	switch {
	case m.raised != nil:
		L.Error(m.raised, 0) // an error inside a callback, with its own position
	case err == load.ErrNoRequests:
	case err != nil:
		L.RaiseError("stream_many: %v", err)
	}
	if ctx := vm.callCtx(L); ctx.Err() != nil {
		L.RaiseError("stream_many: %v after %d requests", ctx.Err(), m.started)
	}
	L.Push(m.results)
	L.Push(m.summary())
	return 2
}

// many is the state of one stream_many call. Everything but what the
// request goroutines hand over runs on the script's goroutine.
type many struct {
	vm      *VM
	L       *lua.LState
	opts    manyOptions
	src     requestSource
	loop    *load.Loop
	results *lua.LTable
	begin   time.Time
	elapsed time.Duration
	started int
	// calls are the requests started, by index, until they finish.
	calls    map[int]*manyCall
	done     []finishedRequest
	raised   lua.LValue
	progress progressLine
}

// manyCall is one started request's own parts.
type manyCall struct {
	call streamCall
	raw  *os.File
	tags *lua.LTable // the request's opts.tags, or nil
}

// next builds request index for the loop.
func (m *many) next(index int) (load.Job, load.Status, error) {
	if m.raised != nil {
		return load.Job{}, load.Done, nil
	}
	messages, opts, status := m.src.get(m.L, index)
	if status != load.Ready {
		return load.Job{}, status, nil
	}
	tags := requestTags(opts)
	startAt, opts := takeStartAt(m.L, opts, index)
	c := m.vm.buildCall(m.L, messages, opts)
	mc := &manyCall{call: c, tags: tags}
	if c.onChunk != nil {
		c.req.OnChunk = m.chunkOnLoop(c.onChunk)
	}
	if c.rawOut != "" {
		mc.raw = m.vm.openRawOut(m.L, c.rawOut)
		c.req.RawOut = mc.raw
	}
	mc.call = c
	if m.calls == nil {
		m.calls = map[int]*manyCall{}
	}
	m.calls[index] = mc
	m.started++
	return load.Job{Request: c.req, NotBefore: startAt}, load.Ready, nil
}

// chunkOnLoop runs a request's Lua on_chunk on the script's goroutine. The
// request's reader goes on reading and stamping meanwhile; only this
// request's handling of its chunks waits.
func (m *many) chunkOnLoop(fn *lua.LFunction) func(stream.Chunk) (bool, error) {
	return func(c stream.Chunk) (bool, error) {
		keep, err := true, error(nil)
		ran := m.loop.OnLoop(func() {
			var failed lua.LValue
			keep, err = chunkCallback(m.L, fn, &failed)(c)
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
	m.done = append(m.done, fin)
	m.results.RawSetInt(r.Index, fin.table)
	if m.opts.record != nil {
		if err := m.opts.record.add(m.vm, fin); err != nil {
			return false, err
		}
	}
	if m.opts.onResult == nil || m.raised != nil || m.vm.callCtx(m.L).Err() != nil {
		return m.raised == nil, nil
	}
	m.L.Push(m.opts.onResult)
	m.L.Push(fin.table)
	if err := m.L.PCall(1, 1, nil); err != nil {
		m.raised = errorValue(err)
		return false, nil
	}
	more := m.L.Get(-1) != lua.LFalse
	m.L.Pop(1)
	return more, nil
}
