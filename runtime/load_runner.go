package runtime

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"time"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/artifact"
	"ttftlab/internal/load"
)

// Experiment is what the load's script (scripts/load.lua) returns: the
// function that, at the start of each round, gives the round's request
// builder. The engine (load.Sweep and LoadRunner) owns everything else.
//
//	return function(run)   -- run: level, round (0: Check's), calls, turns, docs, max_tokens, seed, mode
//	  return request, on_result
//	end
//
// request(i, call, turn, previous, draw) -> messages, opts is
// stream_many's request function (docs/lua-api.md); on_result(result),
// optional, is called as each request ends (a builder keeps each call's
// history until its caller hangs up).
type Experiment struct {
	fn   *lua.LFunction
	name string
}

// ExperimentFS runs the script name of fsys (the copy built into ttftlab)
// and keeps the experiment it returns.
func (vm *VM) ExperimentFS(fsys fs.FS, name string) (*Experiment, error) {
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, fmt.Errorf("cannot read embedded script %s: %w", name, err)
	}
	return vm.experiment(data, name, source{fsys: fsys, dir: path.Dir(name)})
}

// ExperimentFile is ExperimentFS for a script on disk (the working
// tree's scripts/load.lua, which a user edits without recompiling).
func (vm *VM) ExperimentFile(file string) (*Experiment, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("cannot read script %s: %w", file, err)
	}
	name := filepath.Clean(file)
	return vm.experiment(data, name, source{dir: filepath.Dir(name)})
}

func (vm *VM) experiment(data []byte, name string, src source) (*Experiment, error) {
	res, err := vm.run(vm.ctx, data, name, src, 1)
	if err != nil {
		return nil, err
	}
	if len(res) == 0 || res[0].Type() != lua.LTFunction {
		got := "nothing"
		if len(res) > 0 {
			got = "a " + res[0].Type().String()
		}
		return nil, fmt.Errorf("%s must return the experiment, a function(run) -> request[, on_result] (docs/load.md), returned %s", name, got)
	}
	return &Experiment{fn: res[0].(*lua.LFunction), name: name}, nil
}

// LoadRunner runs the rounds of `ttftlab load` (load.Runner) on the VM:
// each round is one run of the stream_many machinery whose requests the
// experiment builds, recorded in requests.jsonl and requests.csv (tagged
// with the level, and a shard's index, host and run), the server's view
// in server.jsonl (by one shard only: the first), a progress line on a
// terminal, every answer spoken with --tts. Its Run must be called on
// the VM's goroutine.
type LoadRunner struct {
	vm  *VM
	exp *Experiment
	set artifact.LoadSettings
}

// LoadRunner makes the runner of the load set describes, whose requests
// exp builds. The run's clock (each row's run_ms) starts now.
func (vm *VM) LoadRunner(exp *Experiment, set artifact.LoadSettings) *LoadRunner {
	vm.runBegan = time.Now()
	return &LoadRunner{vm: vm, exp: exp, set: set}
}

// Check asks the experiment for a round's builder once (run.round 0),
// without running it: what refuses its inputs (a --docs the KB does not
// have) before a server starts.
func (r *LoadRunner) Check(ctx context.Context, level float64) error {
	return r.protect(ctx, func(L *lua.LState) {
		r.builder(L, load.Round{Level: level, Round: 0, Calls: r.set.Calls})
	})
}

// Run runs one round (load.Runner): it waits until the round is due,
// asks the experiment for the round's builder and runs its calls. Its
// error is ctx's when it was stopped, a *WriteError for a record that
// could not be written, a *ScriptError for the experiment's failure; the
// rows then are those recorded before it, and the extras only the
// round's start and the client's use (the rows' span is the level's).
func (r *LoadRunner) Run(ctx context.Context, round load.Round) (load.RoundResult, error) {
	var res load.RoundResult
	var m *many
	var loopErr error
	vm := r.vm
	vm.hostErr, vm.writeErr = "", nil
	err := r.protect(ctx, func(L *lua.LState) {
		if round.DueUnixMs != nil {
			at := time.UnixMicro(int64(*round.DueUnixMs * 1000))
			if loopErr = load.WaitUntil(ctx, at); loopErr != nil {
				return
			}
		}
		o := r.options(L, round)
		request, onResult := r.builder(L, round)
		o.onResult = onResult
		t := vm.cfg.TTS
		cpu := o.tts != nil && t != nil && t.CPU != nil
		var cpu0 time.Duration
		if cpu {
			cpu0 = t.CPU()
		}
		m = vm.newMany(L, requestSource{fn: request}, o)
		loopErr = m.run()
		if m.raised != nil {
			L.Error(m.raised, 0) // a callback's error, with its own position
		}
		if cpu {
			res.Extras.TTSCPUMs = artifact.Num(msOf(t.CPU() - cpu0))
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
	var failedWrite *WriteError
	switch {
	case ctx.Err() != nil:
		err = ctx.Err()
	case err != nil:
	case errors.As(loopErr, &failedWrite):
		err = failedWrite
	case loopErr != nil && loopErr != load.ErrNoRequests:
		err = fmt.Errorf("load: %w", loopErr)
	}
	if err != nil {
		// A stopped level's record spans its rows; what it has of the
		// rest is its start and the client's use.
		res.Extras.TTSCPUMs = nil
		return res, err
	}
	elapsed := msOf(m.elapsed)
	res.Extras.DurationMs = &elapsed
	if m.over != nil {
		res.Extras.OverSaturated = m.over.Trend
	}
	return res, nil
}

// protect runs f on the VM's state under ctx as a protected call, so
// that what the bindings raise comes back as an error (a failed write as
// its *WriteError), with the experiment's script for its messages.
func (r *LoadRunner) protect(ctx context.Context, f func(L *lua.LState)) error {
	vm := r.vm
	L := vm.L
	L.SetContext(ctx)
	defer L.SetContext(vm.ctx)
	base := L.GetTop()
	defer L.SetTop(base)
	L.Push(L.NewFunction(func(L *lua.LState) int { f(L); return 0 }))
	if err := L.PCall(0, 0, nil); err != nil {
		if vm.writeErr != nil && vm.hostErr != "" {
			return vm.writeErr
		}
		return vm.dropHostTrace(scriptError(err, ctx.Err()))
	}
	return nil
}

// builder calls the experiment for round: its request function and its
// on_result (nil when it returns none).
func (r *LoadRunner) builder(L *lua.LState, round load.Round) (*lua.LFunction, *lua.LFunction) {
	run := L.CreateTable(0, 8)
	run.RawSetString("level", lua.LNumber(round.Level))
	run.RawSetString("round", lua.LNumber(round.Round))
	run.RawSetString("calls", lua.LNumber(round.Calls))
	run.RawSetString("turns", lua.LNumber(r.set.Turns))
	run.RawSetString("docs", lua.LNumber(r.set.Docs))
	run.RawSetString("max_tokens", lua.LNumber(r.set.MaxTokens))
	run.RawSetString("seed", lua.LNumber(r.set.Seed))
	run.RawSetString("mode", lua.LString(r.set.Mode))
	L.Push(r.exp.fn)
	L.Push(run)
	L.Call(1, 2)
	request, onResult := L.Get(-2), L.Get(-1)
	L.Pop(2)
	fn, ok := request.(*lua.LFunction)
	if !ok {
		L.RaiseError("%s: the experiment must return the request builder, function(i, call, turn, previous, draw) -> messages, opts; returned %s", r.exp.name, request.Type())
	}
	done, ok := onResult.(*lua.LFunction)
	if !ok && onResult != lua.LNil {
		L.RaiseError("%s: the experiment's second result must be on_result, a function(result), or nil; returned %s", r.exp.name, onResult.Type())
	}
	return fn, done
}

// options are the round's stream_many options, from the settings.
func (r *LoadRunner) options(L *lua.LState, round load.Round) manyOptions {
	vm, set := r.vm, r.set
	arrival, err := load.ParseArrival(set.Arrival)
	if err != nil {
		L.RaiseError("load: settings.arrival: %v", err)
	}
	o := manyOptions{progress: true, warmup: set.Warmup, warmupMs: set.WarmupMs, overSLO: round.OverSaturation}
	o.plan = load.Plan{Arrival: arrival, Seed: uint64(set.Seed), Calls: round.Calls, Turns: set.Turns,
		Think: load.Think{Min: time.Duration(set.ThinkMs * float64(time.Millisecond))}, TickEvery: 250 * time.Millisecond}
	if set.Mode == "rate" {
		o.plan.Rate = round.Level
	} else {
		o.plan.Concurrency = int(round.Level)
	}
	if set.DurationMs > 0 {
		o.plan.Duration = time.Duration(set.DurationMs * float64(time.Millisecond))
	}
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
	o.record = &recorder{jsonl: vm.outPath("requests.jsonl"), csv: vm.outPath("requests.csv"), tags: tags, columns: []string{"call", "turn"}}
	// Only one shard samples the server, so its series is not there N
	// times.
	if set.Shard == nil || set.Shard.Index == 0 {
		o.watch = &watcher{file: vm.outPath("server.jsonl"), every: 250 * time.Millisecond, tags: map[string]any{"level": round.Level}}
	}
	if set.TTS != nil {
		o.tts = vm.ttsOption(L, "load: --tts", lua.LTrue)
	}
	return o
}

// Preflight says whether the VM runs before any server starts, to check
// the inputs (Config.Preflight).
func (vm *VM) Preflight() bool { return vm.cfg.Preflight }

// Out is the run's folder (OUT).
func (vm *VM) Out() string { return vm.cfg.Out }

// LoadHead is load.json before its first level: set completed with what
// the run knows of its server (its URL and kind, the API), the model and
// the server's settings (RunInfo), and with speech (--tts: every answer
// spoken) the speech server, which the run must have.
func (vm *VM) LoadHead(ctx context.Context, set artifact.LoadSettings, speech bool) (artifact.Load, error) {
	model, server, kind, err := vm.RunInfo(ctx)
	if err != nil {
		return artifact.Load{}, err
	}
	set.Server, set.ServerKind, set.API = vm.cfg.Server, string(kind), vm.cfg.API.String()
	if set.API == "" {
		set.API = "chat"
	}
	set.TTS = nil
	if speech {
		if set.TTS = vm.cfg.TTS.record(); set.TTS == nil {
			return artifact.Load{}, errors.New("load: --tts is set but the run has no speech server")
		}
	}
	return artifact.Load{Settings: set, Model: &model, Server: &server, Levels: []artifact.LoadLevel{}}, nil
}
