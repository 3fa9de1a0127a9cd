package streammany

import (
	"context"
	"math"
	"sort"
	"time"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/artifact"
	"ttftlab/internal/atomicfile"
	"ttftlab/internal/llamaserver"
	"ttftlab/runtime/luajson"
	"ttftlab/runtime/luatable"
)

// watcher samples the server's own view during a run (slots busy,
// requests deferred, tokens per second) into a JSONL file, from a
// goroutine of its own.
type watcher struct {
	file  string
	every time.Duration
	tags  map[string]any
}

func (h *Host) watchOption(L *lua.LState, v lua.LValue) *watcher {
	t, ok := v.(*lua.LTable)
	if !ok {
		L.RaiseError("stream_many: opts.watch must be a table {file =, every_ms =, tags =}, got %s", v.Type())
	}
	w := &watcher{every: 250 * time.Millisecond, tags: map[string]any{}}
	s, ok := t.RawGetString("file").(lua.LString)
	if !ok || s == "" {
		L.RaiseError("stream_many: opts.watch.file must name the JSONL file to write")
	}
	w.file = h.OutPath(string(s))
	if e := t.RawGetString("every_ms"); e != lua.LNil {
		w.every = luatable.Ms(L, "opts.watch.every_ms", e)
	}
	if tags, ok := t.RawGetString("tags").(*lua.LTable); ok {
		tags.ForEach(func(k, v lua.LValue) {
			switch v := v.(type) {
			case lua.LNumber:
				if !luajson.Finite(float64(v)) {
					L.RaiseError("stream_many: opts.watch.tags.%s: %v cannot be written as JSON (math.huge counts as infinity); use a finite number or a string", lua.LVAsString(k), v)
				}
				w.tags[lua.LVAsString(k)] = float64(v)
			default:
				w.tags[lua.LVAsString(k)] = lua.LVAsString(v)
			}
		})
	}
	return w
}

// watchServer starts the watcher, when asked for; the returned function
// stops it and waits for its last line.
func (m *many) watchServer() func() {
	w := m.opts.watch
	if w == nil {
		return func() {}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	ep, begin, offset, kind := m.h.Endpoint(), m.begin, m.runOffset, m.h.Kind(m.L)
	go func() {
		defer close(done)
		llamaserver.Watch(ctx, ep, kind, w.every, func(s llamaserver.Sample) {
			at := time.Since(begin)
			w.write(s, at, offset+at, unixMs(begin.Add(at)))
		})
	}()
	return func() { cancel(); <-done }
}

// write appends one artifact.ServerSample after the watch's tags: at is
// since stream_many began, runAt since the run began, unix the wall clock.
func (w *watcher) write(s llamaserver.Sample, at, runAt time.Duration, unix float64) {
	// A metric reading NaN or Inf (or math.MaxFloat64, the old math.huge)
	// keeps its line, as null: encoding/json would refuse the whole line.
	num := func(p *float64) *float64 {
		if p == nil || math.Abs(*p) >= math.MaxFloat64 {
			return nil
		}
		return artifact.Num(*p)
	}
	rec := artifact.ServerSample{TMs: *artifact.Ms(msOf(at)), RunMs: artifact.Ms(msOf(runAt)), UnixMs: artifact.Ms(unix), Kind: string(s.Kind), SlotsProcessing: s.SlotsProcessing, SlotsTotal: s.SlotsTotal,
		RequestsProcessing: num(s.RequestsProcessing), RequestsDeferred: num(s.RequestsDeferred), PredictedPerS: num(s.PredictedPerS)}
	names := make([]string, 0, len(w.tags))
	for k := range w.tags {
		names = append(names, k)
	}
	sort.Strings(names)
	tags := make([][2]any, len(names))
	for i, k := range names {
		tags[i] = [2]any{k, w.tags[k]}
	}
	data, err := artifact.WithTags(rec, tags)
	if err == nil {
		atomicfile.Append(w.file, append(data, '\n')) // a lost sample is no reason to stop the run
	}
}
