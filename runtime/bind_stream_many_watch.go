package runtime

import (
	"context"
	"encoding/json"
	"math"
	"time"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/atomicfile"
	"ttftlab/internal/llamaserver"
)

// watcher samples the server's own view during a run (slots busy,
// requests deferred, tokens per second) into a JSONL file, from a
// goroutine of its own.
type watcher struct {
	file  string
	every time.Duration
	tags  map[string]any
}

func (vm *VM) watchOption(L *lua.LState, v lua.LValue) *watcher {
	t, ok := v.(*lua.LTable)
	if !ok {
		L.RaiseError("stream_many: opts.watch must be a table {file =, every_ms =, tags =}, got %s", v.Type())
	}
	w := &watcher{every: 250 * time.Millisecond, tags: map[string]any{}}
	s, ok := t.RawGetString("file").(lua.LString)
	if !ok || s == "" {
		L.RaiseError("stream_many: opts.watch.file must name the JSONL file to write")
	}
	w.file = vm.outPath(string(s))
	if e := t.RawGetString("every_ms"); e != lua.LNil {
		w.every = optMs(L, "opts.watch.every_ms", e)
	}
	if tags, ok := t.RawGetString("tags").(*lua.LTable); ok {
		tags.ForEach(func(k, v lua.LValue) {
			switch v := v.(type) {
			case lua.LNumber:
				if !finiteJSON(float64(v)) {
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
	url, begin := m.vm.cfg.Server, m.begin
	go func() {
		defer close(done)
		llamaserver.Watch(ctx, url, w.every, func(s llamaserver.Sample) {
			w.write(s, time.Since(begin))
		})
	}()
	return func() { cancel(); <-done }
}

func (w *watcher) write(s llamaserver.Sample, at time.Duration) {
	line := map[string]any{"t_ms": math.Round(msOf(at)*1000) / 1000}
	for k, v := range w.tags {
		line[k] = v
	}
	put := func(k string, v *float64) {
		switch {
		case v == nil:
		case finiteJSON(*v):
			line[k] = *v
		default:
			// a metric reading NaN or Inf: the line is kept, the figure
			// is null (encoding/json would refuse the whole line)
			line[k] = nil
		}
	}
	if s.SlotsProcessing != nil {
		line["slots_processing"], line["slots_total"] = *s.SlotsProcessing, *s.SlotsTotal
	}
	put("requests_processing", s.RequestsProcessing)
	put("requests_deferred", s.RequestsDeferred)
	put("predicted_per_s", s.PredictedPerS)
	data, err := json.Marshal(line)
	if err == nil {
		atomicfile.Append(w.file, append(data, '\n')) // a lost sample is no reason to stop the run
	}
}
