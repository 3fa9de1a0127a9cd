package streammany

import (
	"context"
	"time"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/artifact"
	"ttftlab/internal/load"
)

// Runner runs the rounds of `ttftlab load` (load.Runner) on the host:
// each round is one run of the stream_many machinery whose requests the
// experiment builds, recorded in requests.jsonl and requests.csv (tagged
// with the level, and a shard's index, host and run), the server's view
// in server.jsonl (by one shard only: the first), a progress line on a
// terminal, every answer spoken with --tts, every turn spoken by the
// caller and transcribed before it is asked with --stt; with --trace the
// trace's calls at its times (read once, checked unchanged), each turn's
// line handed to the builder; with --ramp and --steady-start the plan's
// ramp and staggered starts. Its Run must be called on the Lua state's
// goroutine.
type Runner struct {
	h *Host
	// experiment is what the load's script returned (function(run) ->
	// request[, on_result]); name is the script's, for messages.
	experiment *lua.LFunction
	name       string
	set        artifact.LoadSettings
	// replay is the trace replayed (set.Trace), read at the first round.
	replay *replay
}

// NewRunner makes the runner of the load set describes, whose requests
// experiment, returned by the script name, builds.
func NewRunner(h *Host, experiment *lua.LFunction, name string, set artifact.LoadSettings) *Runner {
	return &Runner{h: h, experiment: experiment, name: name, set: set}
}

// Check asks the experiment for a round's builder once (run.round 0),
// without running it: what refuses its inputs (a --docs the KB does not
// have) before a server starts.
func (r *Runner) Check(ctx context.Context, level float64) error {
	return r.h.Protect(ctx, func(L *lua.LState) {
		r.builder(L, load.Round{Level: level, Round: 0, Calls: r.set.Calls})
	})
}

// Run runs one round (load.Runner): it waits until the round is due,
// asks the experiment for the round's builder and runs its calls. Its
// error is ctx's when it was stopped, Host.Written's for a record that
// could not be written, Host.Protect's for the experiment's failure; the
// rows then are those recorded before it, and the extras only the
// round's start and the client's use (the rows' span is the level's).
func (r *Runner) Run(ctx context.Context, round load.Round) (load.RoundResult, error) {
	var res load.RoundResult
	var m *many
	var loopErr error
	h := r.h
	err := h.Protect(ctx, func(L *lua.LState) {
		if round.DueUnixMs != nil {
			at := time.UnixMicro(int64(*round.DueUnixMs * 1000))
			if loopErr = load.WaitUntil(ctx, at); loopErr != nil {
				return
			}
		}
		o := r.options(L, round)
		request, onResult := r.builder(L, round)
		o.onResult = onResult
		cpu := o.tts != nil && h.TTSCPU != nil
		heardCPU := o.caller != nil && o.caller.CPU != nil
		var cpu0, heard0 time.Duration
		if cpu {
			cpu0 = h.TTSCPU()
		}
		if heardCPU {
			heard0 = o.caller.CPU()
		}
		m = h.newMany(L, requestSource{fn: request}, o)
		loopErr = m.run()
		if m.raised != nil {
			L.Error(m.raised, 0) // a callback's error, with its own position
		}
		if cpu {
			res.Extras.TTSCPUMs = artifact.Num(msOf(h.TTSCPU() - cpu0))
		}
		if heardCPU {
			res.Extras.STTCPUMs = artifact.Num(msOf(o.caller.CPU() - heard0))
		}
	})
	if m != nil && !m.begin.IsZero() {
		res.Rows = make([]artifact.LoadRequest, len(m.rows))
		for i, row := range m.rows {
			row.Level = round.Level
			res.Rows[i] = row
		}
		res.Extras.StartedUnixMs = artifact.Num(unixMs(m.begin))
		if m.use1 != (usage{}) {
			res.Extras.Client = clientUse(m.use0, m.use1, m.elapsed)
		}
	}
	if err = roundErr(ctx, h, err, loopErr); err != nil {
		// A stopped level's record spans its rows; what it has of the
		// rest is its start and the client's use.
		res.Extras.TTSCPUMs, res.Extras.STTCPUMs = nil, nil
		return res, err
	}
	elapsed := msOf(m.elapsed)
	res.Extras.DurationMs = &elapsed
	if m.over != nil {
		res.Extras.OverSaturated = m.over.Trend
	}
	return res, nil
}

// builder calls the experiment for round: its request function and its
// on_result (nil when it returns none).
func (r *Runner) builder(L *lua.LState, round load.Round) (*lua.LFunction, *lua.LFunction) {
	run := L.CreateTable(0, 8)
	run.RawSetString("level", lua.LNumber(round.Level))
	run.RawSetString("round", lua.LNumber(round.Round))
	run.RawSetString("calls", lua.LNumber(round.Calls))
	run.RawSetString("turns", lua.LNumber(r.set.Turns))
	run.RawSetString("docs", lua.LNumber(r.set.Docs))
	run.RawSetString("max_tokens", lua.LNumber(r.set.MaxTokens))
	run.RawSetString("seed", lua.LNumber(r.set.Seed))
	run.RawSetString("mode", lua.LString(r.set.Mode))
	L.Push(r.experiment)
	L.Push(run)
	L.Call(1, 2)
	request, onResult := L.Get(-2), L.Get(-1)
	L.Pop(2)
	fn, ok := request.(*lua.LFunction)
	if !ok {
		L.RaiseError("%s: the experiment must return the request builder, function(i, call, turn, previous, draw, line) -> messages, opts; returned %s", r.name, request.Type())
	}
	done, ok := onResult.(*lua.LFunction)
	if !ok && onResult != lua.LNil {
		L.RaiseError("%s: the experiment's second result must be on_result, a function(result), or nil; returned %s", r.name, onResult.Type())
	}
	return fn, done
}

// options are the round's stream_many options, from the settings.
func (r *Runner) options(L *lua.LState, round load.Round) manyOptions {
	h, set := r.h, r.set
	arrival, err := load.ParseArrival(set.Arrival)
	if err != nil {
		L.RaiseError("load: settings.arrival: %v", err)
	}
	o := manyOptions{progress: true, warmup: set.Warmup, warmupMs: set.WarmupMs, overSLO: round.OverSaturation}
	o.plan = load.Plan{Arrival: arrival, Seed: uint64(set.Seed), Calls: round.Calls, Turns: set.Turns,
		Think: load.Think{Min: time.Duration(set.ThinkMs * float64(time.Millisecond))}, TickEvery: 250 * time.Millisecond}
	switch {
	case set.Trace != nil:
		if r.replay == nil {
			rp, err := readReplay(set.Trace, set.STT != nil)
			if err != nil {
				L.RaiseError("load: %v", err)
			}
			r.replay = rp
		}
		r.replay.plan(&o.plan, set.Trace.Max)
		o.replay = r.replay
	case set.Mode == "rate":
		o.plan.Rate = round.Level
	default:
		o.plan.Concurrency = int(round.Level)
	}
	if set.DurationMs > 0 {
		o.plan.Duration = time.Duration(set.DurationMs * float64(time.Millisecond))
	}
	if rp := set.Ramp; rp != nil {
		o.plan.Ramp = load.Ramp{Duration: time.Duration(rp.DurationMs * float64(time.Millisecond)), Shape: load.RampShape(rp.Shape)}
		o.rampKeep = rp.Keep
	}
	o.plan.SteadyStart = set.SteadyStart
	// Every row is tagged with the level and, in a sharded run, with the
	// shard, the machine and the run that made it.
	tags := L.CreateTable(0, 4)
	tags.RawSetString("level", lua.LNumber(round.Level))
	if s := set.Shard; s != nil {
		o.plan.Shard = load.Shard{Index: s.Index, Count: s.Count}
		tags.RawSetString("shard", lua.LNumber(s.Index))
		tags.RawSetString("host", lua.LString(s.Host))
		tags.RawSetString("run_id", lua.LString(set.RunID))
	}
	o.record = &recorder{jsonl: h.OutPath("requests.jsonl"), csv: h.OutPath("requests.csv"), tags: tags, columns: []string{"call", "turn"}}
	// Only one shard samples the server, so its series is not there N
	// times.
	if set.Shard == nil || set.Shard.Index == 0 {
		o.watch = &watcher{file: h.OutPath("server.jsonl"), every: 250 * time.Millisecond, tags: map[string]any{"level": round.Level}}
	}
	if set.TTS != nil {
		o.tts = h.Speech(L, "load: --tts", lua.LTrue)
	}
	if set.STT != nil {
		o.caller = h.sttOption(L, "load: --stt", lua.LTrue)
	}
	return o
}
