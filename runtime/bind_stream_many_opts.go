package runtime

import (
	"math"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/load"
)

// manyOptionNames are what stream_many's opts may hold.
var manyOptionNames = []string{"arrival", "concurrency", "duration_ms", "on_result", "progress", "rate", "record", "seed", "warmup", "watch"}

// manyOptions are stream_many's opts, checked.
type manyOptions struct {
	plan     load.Plan
	warmup   int
	onResult *lua.LFunction
	progress bool
	record   *recorder
	watch    *watcher
}

func (vm *VM) manyOptions(L *lua.LState, v lua.LValue) manyOptions {
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
		vm.applyManyOption(L, string(name), v, &o)
	})
	if o.progress {
		o.plan.TickEvery = 250 * time.Millisecond
	}
	return o
}

func (vm *VM) applyManyOption(L *lua.LState, name string, v lua.LValue, o *manyOptions) {
	label := "stream_many: opts." + name
	switch name {
	case "concurrency":
		if o.plan.Concurrency = wholeNumber(L, label, v, 0); o.plan.Concurrency == 0 {
			o.plan.Concurrency = load.NoLimit
		}
	case "rate":
		o.plan.Rate = optNum(L, "opts.rate", v)
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
	case "duration_ms":
		o.plan.Duration = optMs(L, "opts.duration_ms", v)
	case "warmup":
		o.warmup = wholeNumber(L, label, v, 0)
	case "on_result":
		f, ok := v.(*lua.LFunction)
		if !ok {
			L.RaiseError("%s must be a function, got %s", label, v.Type())
		}
		o.onResult = f
	case "progress":
		o.progress = optBool(L, "opts.progress", v)
	case "record":
		o.record = vm.recordOption(L, v)
	case "watch":
		o.watch = vm.watchOption(L, v)
	default:
		L.RaiseError("stream_many: unknown option %q%s (known: %s)", name, didYouMean(name, manyOptionNames), strings.Join(manyOptionNames, ", "))
	}
}

func wholeNumber(L *lua.LState, label string, v lua.LValue, min int) int {
	n, ok := v.(lua.LNumber)
	if !ok || float64(n) != math.Trunc(float64(n)) || int(n) < min {
		L.RaiseError("%s must be a whole number of at least %d, got %s", label, min, v.String())
	}
	return int(n)
}

// requestSource hands out the requests: an array of {messages, opts}
// pairs, or a function (i) -> messages, opts.
type requestSource struct {
	list *lua.LTable
	fn   *lua.LFunction
}

func (vm *VM) requestSource(L *lua.LState, v lua.LValue) requestSource {
	switch v := v.(type) {
	case *lua.LTable:
		return requestSource{list: v}
	case *lua.LFunction:
		return requestSource{fn: v}
	}
	L.ArgError(1, "an array of {messages, opts} pairs or a function (i) -> messages, opts expected, got "+v.Type().String())
	return requestSource{}
}

// get returns request i: Done past the end (nil from the function), Wait
// when the function returns false (nothing to start until a request ends).
func (s requestSource) get(L *lua.LState, i int) (messages, opts lua.LValue, st load.Status) {
	if s.list != nil {
		pair, ok := s.list.RawGetInt(i).(*lua.LTable)
		if !ok {
			if s.list.RawGetInt(i) != lua.LNil {
				L.RaiseError("stream_many: requests[%d] must be a {messages, opts} pair, got %s", i, s.list.RawGetInt(i).Type())
			}
			return nil, nil, load.Done
		}
		return pair.RawGetInt(1), pair.RawGetInt(2), load.Ready
	}
	L.Push(s.fn)
	L.Push(lua.LNumber(i))
	L.Call(1, 2)
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

// manyKeys are the keys a request's opts may hold for stream_many on top
// of stream()'s: start_at_ms (start no sooner, in ms since the run began)
// and tags (copied into the result and its record).
var manyKeys = []string{"start_at_ms", "tags"}

// takeStartAt returns a request's start_at_ms and its opts without the
// stream_many keys (a copy, so the caller's table is left as it was).
func takeStartAt(L *lua.LState, opts lua.LValue, index int) (time.Duration, lua.LValue) {
	t, ok := opts.(*lua.LTable)
	if !ok {
		return 0, opts
	}
	if t.RawGetString("start_at_ms") == lua.LNil && t.RawGetString("tags") == lua.LNil {
		return 0, opts
	}
	rest := L.CreateTable(0, 8)
	t.ForEach(func(k, v lua.LValue) {
		if s, ok := k.(lua.LString); !ok || (s != "start_at_ms" && s != "tags") {
			rest.RawSet(k, v)
		}
	})
	var at time.Duration
	if v := t.RawGetString("start_at_ms"); v != lua.LNil {
		at = optMs(L, "opts.start_at_ms", v)
	}
	return at, rest
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
