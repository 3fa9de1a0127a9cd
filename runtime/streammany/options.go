package streammany

import (
	"math"
	"slices"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/artifact"
	"ttftlab/internal/load"
	"ttftlab/internal/voice"
	"ttftlab/runtime/luatable"
	"ttftlab/runtime/request"
	"ttftlab/runtime/suggest"
)

// manyOptionNames are what stream_many's opts may hold.
var manyOptionNames = []string{"arrival", "calls", "concurrency", "duration_ms", "on_result", "over_saturation", "progress", "rate", "record", "seed", "shard", "start_at_ms", "stt", "think_ms", "tts", "turns", "warmup", "warmup_ms", "watch"}

// manyOptions are stream_many's opts, checked.
type manyOptions struct {
	plan     load.Plan
	thinkFn  *lua.LFunction // a think_ms function, which many.think calls
	warmup   int
	warmupMs float64 // requests due this soon after the start are warm-up too
	onResult *lua.LFunction
	progress bool
	record   *recorder
	watch    *watcher
	// tts speaks every answer (a request's own opts.tts overrides it).
	tts *voice.Speech
	// caller speaks every request's last user message and asks the
	// transcript (opts.stt; a request's own opts.stt overrides it).
	caller *request.Caller
	// startAt is when the run's clock begins on the wall clock
	// (opts.start_at_ms); zero: at once.
	startAt time.Time
	// overSLO is opts.over_saturation: the SLO whose lateness the
	// over-saturation check watches; nil without the check.
	overSLO *artifact.SLO
	// replay is the load's trace (--trace): the request builder gets each
	// turn's line, the rows where they came from. nil otherwise.
	replay *replay
	// rampKeep counts the requests due during the plan's ramp in the
	// figures (--ramp-keep); without it they are warm-up.
	rampKeep bool
}

func (h *Host) options(L *lua.LState, v lua.LValue) manyOptions {
	var o manyOptions
	if v == lua.LNil {
		return o
	}
	t, ok := v.(*lua.LTable)
	if !ok {
		L.ArgError(2, "options table expected, got "+v.Type().String())
	}
	t.ForEach(func(k, v lua.LValue) {
		name, ok := k.(lua.LString)
		if !ok {
			L.RaiseError("stream_many: opts must only have named fields, found the key %s", k)
		}
		h.applyOption(L, string(name), v, &o)
	})
	if o.progress {
		o.plan.TickEvery = 250 * time.Millisecond
	}
	return o
}

func (h *Host) applyOption(L *lua.LState, name string, v lua.LValue, o *manyOptions) {
	label := "stream_many: opts." + name
	switch name {
	case "concurrency":
		if o.plan.Concurrency = wholeNumber(L, label, v, 0); o.plan.Concurrency == 0 {
			o.plan.Concurrency = load.NoLimit
		}
	case "rate":
		o.plan.Rate = luatable.Num(L, "opts.rate", v)
		if o.plan.Rate < 0 || math.IsInf(o.plan.Rate, 0) || math.IsNaN(o.plan.Rate) {
			L.RaiseError("%s must be a number of starts per second, 0 or more", label)
		}
	case "arrival":
		a, err := load.ParseArrival(lua.LVAsString(v))
		if err != nil {
			L.RaiseError("%s: %v", label, err)
		}
		o.plan.Arrival = a
	case "seed":
		o.plan.Seed = uint64(wholeNumber(L, label, v, 0))
	case "calls":
		o.plan.Calls = wholeNumber(L, label, v, 1)
	case "turns":
		o.plan.Turns = wholeNumber(L, label, v, 1)
	case "think_ms":
		o.plan.Think = thinkOption(L, label, v, o)
	case "duration_ms":
		o.plan.Duration = luatable.Ms(L, "opts.duration_ms", v)
	case "shard":
		o.plan.Shard = shardOption(L, label, v)
	case "start_at_ms":
		ms := luatable.Num(L, label, v)
		if ms <= 0 || math.IsInf(ms, 0) || math.IsNaN(ms) {
			L.RaiseError("%s must be a time in ms since the Unix epoch (the wall clock), got %s", label, v.String())
		}
		o.startAt = time.UnixMicro(int64(math.Round(ms * 1000)))
	case "warmup":
		o.warmup = wholeNumber(L, label, v, 0)
	case "warmup_ms":
		o.warmupMs = float64(luatable.Ms(L, "opts.warmup_ms", v)) / float64(time.Millisecond)
	case "on_result":
		f, ok := v.(*lua.LFunction)
		if !ok {
			L.RaiseError("%s must be a function, got %s", label, v.Type())
		}
		o.onResult = f
	case "over_saturation":
		o.overSLO = overSaturationOption(L, label, v)
	case "progress":
		o.progress = luatable.Bool(L, "opts.progress", v)
	case "record":
		o.record = h.recordOption(L, v)
	case "watch":
		o.watch = h.watchOption(L, v)
	case "tts":
		o.tts = h.Speech(L, label, v)
	case "stt":
		o.caller = h.sttOption(L, label, v)
	default:
		L.RaiseError("stream_many: unknown option %q%s (known: %s)", name, suggest.DidYouMean(name, manyOptionNames), strings.Join(manyOptionNames, ", "))
	}
}

// overSaturationOption reads opts.over_saturation: {metric =, limit_ms =},
// an SLO's figure and limit.
func overSaturationOption(L *lua.LState, label string, v lua.LValue) *artifact.SLO {
	t, ok := v.(*lua.LTable)
	if !ok {
		L.RaiseError("%s must be a table {metric =, limit_ms =}, got %s", label, v.Type())
	}
	metric := lua.LVAsString(t.RawGetString("metric"))
	if !slices.Contains(artifact.SLOMetrics, metric) {
		L.RaiseError("%s.metric must be one of %s, got %q", label, strings.Join(artifact.SLOMetrics, ", "), metric)
	}
	limit, ok := t.RawGetString("limit_ms").(lua.LNumber)
	if !ok || limit <= 0 || math.IsInf(float64(limit), 0) {
		L.RaiseError("%s.limit_ms must be a time in ms above 0, got %s", label, t.RawGetString("limit_ms").String())
	}
	return &artifact.SLO{Metric: metric, LimitMs: float64(limit)}
}

// shardOption reads opts.shard: {index =, count =}, index from 0.
func shardOption(L *lua.LState, label string, v lua.LValue) load.Shard {
	t, ok := v.(*lua.LTable)
	if !ok {
		L.RaiseError("%s must be a table {index =, count =}, got %s", label, v.Type())
	}
	s := load.Shard{Index: wholeNumber(L, label+".index", t.RawGetString("index"), 0), Count: wholeNumber(L, label+".count", t.RawGetString("count"), 1)}
	if s.Index >= s.Count {
		L.RaiseError("%s: index %d is not below count %d (shards count from 0)", label, s.Index, s.Count)
	}
	return s
}

func wholeNumber(L *lua.LState, label string, v lua.LValue, min int) int {
	n, ok := v.(lua.LNumber)
	if !ok || float64(n) != math.Trunc(float64(n)) || int(n) < min {
		L.RaiseError("%s must be a whole number of at least %d, got %s", label, min, v.String())
	}
	return int(n)
}

// thinkOption reads opts.think_ms: ms, a range {min, max} drawn from the
// seed, or function(call, turn) -> ms (kept in o.thinkFn).
func thinkOption(L *lua.LState, label string, v lua.LValue, o *manyOptions) load.Think {
	ms := thinkMs
	switch v := v.(type) {
	case lua.LNumber:
		if d, ok := ms(v); ok {
			return load.Think{Min: d}
		}
	case *lua.LTable:
		lo, ok1 := ms(v.RawGetInt(1))
		hi, ok2 := ms(v.RawGetInt(2))
		if ok1 && ok2 && lo <= hi {
			return load.Think{Min: lo, Max: hi}
		}
	case *lua.LFunction:
		o.thinkFn = v // many.think calls it
		return load.Think{}
	}
	L.RaiseError("%s must be a number of ms, a range {min, max} or a function(call, turn) -> ms, got %s", label, v.String())
	return load.Think{}
}

// thinkMs reads a think time in ms: a number from 0 to about 30 years.
func thinkMs(v lua.LValue) (time.Duration, bool) {
	n, ok := v.(lua.LNumber)
	if f := float64(n); !ok || !(f >= 0 && f <= 1e12) {
		return 0, false
	}
	return time.Duration(float64(n) * float64(time.Millisecond)), true
}

// requestSource hands out the requests: an array of {messages, opts}
// pairs, or a function (i, call, turn, previous, draw[, line]) ->
// messages, opts.
type requestSource struct {
	list *lua.LTable
	fn   *lua.LFunction
}

func requestSourceOf(L *lua.LState, v lua.LValue) requestSource {
	switch v := v.(type) {
	case *lua.LTable:
		return requestSource{list: v}
	case *lua.LFunction:
		return requestSource{fn: v}
	}
	L.ArgError(1, "an array of {messages, opts} pairs or a function (i, call, turn, previous) -> messages, opts expected, got "+v.Type().String())
	return requestSource{}
}

// get returns the request of turn t: Done past the end (nil from the
// function), Wait when the function returns false (nothing to start until
// a request ends). The function gets the request's index, its call and
// turn, the result of the call's previous turn (nil for the first), the
// call's own draw in [0, 1) (load.Plan.CallDraw) and, when line is not
// nil (a load replaying a trace), the trace's line of the turn.
func (s requestSource) get(L *lua.LState, t load.Turn, results *lua.LTable, line lua.LValue) (messages, opts lua.LValue, st load.Status) {
	if s.list != nil {
		i := t.Index
		pair, ok := s.list.RawGetInt(i).(*lua.LTable)
		if !ok {
			if s.list.RawGetInt(i) != lua.LNil {
				L.RaiseError("stream_many: requests[%d] must be a {messages, opts} pair, got %s", i, s.list.RawGetInt(i).Type())
			}
			return nil, nil, load.Done
		}
		return pair.RawGetInt(1), pair.RawGetInt(2), load.Ready
	}
	var previous lua.LValue = lua.LNil
	if t.Prev > 0 {
		previous = results.RawGetInt(t.Prev)
	}
	L.Push(s.fn)
	L.Push(lua.LNumber(t.Index))
	L.Push(lua.LNumber(t.Call))
	L.Push(lua.LNumber(t.Turn))
	L.Push(previous)
	L.Push(lua.LNumber(t.Draw))
	if line != nil {
		L.Push(line)
		L.Call(6, 2)
	} else {
		L.Call(5, 2)
	}
	messages, opts = L.Get(-2), L.Get(-1)
	L.Pop(2)
	switch messages {
	case lua.LNil:
		return nil, nil, load.Done
	case lua.LFalse:
		return nil, nil, load.Wait
	}
	return messages, opts, load.Ready
}

// withoutOwn returns a request's opts without tags and stt, the keys
// stream_many reads itself (a copy, so the caller's table is left as it
// was).
func withoutOwn(L *lua.LState, opts lua.LValue) lua.LValue {
	t, ok := opts.(*lua.LTable)
	if !ok || t.RawGetString("tags") == lua.LNil && t.RawGetString("stt") == lua.LNil {
		return opts
	}
	rest := L.CreateTable(0, 8)
	t.ForEach(func(k, v lua.LValue) {
		if s, ok := k.(lua.LString); !ok || s != "tags" && s != "stt" {
			rest.RawSet(k, v)
		}
	})
	return rest
}

// requestTags is a request's opts.tags, or nil.
func requestTags(opts lua.LValue) *lua.LTable {
	if t, ok := opts.(*lua.LTable); ok {
		if tags, ok := t.RawGetString("tags").(*lua.LTable); ok {
			return tags
		}
	}
	return nil
}
