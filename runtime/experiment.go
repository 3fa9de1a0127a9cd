package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path"
	"path/filepath"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/artifact"
	"ttftlab/internal/servers"
	"ttftlab/internal/stream"
	"ttftlab/internal/trace"
)

// Experiment is what the load's script (scripts/load.lua) returns: the
// function that, at the start of each round, gives the round's request
// builder. The engine (load.Sweep and the runner, VM.LoadRunner) owns everything else.
//
//	return function(run)   -- run: level, round (0: Check's), calls, turns, docs, max_tokens, seed, mode
//	  return request, on_result
//	end
//
// request(i, call, turn, previous, draw[, line]) -> messages, opts is
// stream_many's request function (docs/lua-api.md), line the trace's
// line of the turn when the load replays one; on_result(result),
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

// Preflight says whether the VM runs before any server starts, to check
// the inputs (Config.Preflight).
func (vm *VM) Preflight() bool { return vm.cfg.Preflight }

// Out is the run's folder (OUT).
func (vm *VM) Out() string { return vm.cfg.Out }

// LoadHead is load.json before its first level: set completed with what
// the run knows of its server (its URL and kind, the API), the model and
// the server's settings (RunInfo), with speech (--tts: every answer
// spoken) the speech server, which the run must have, and the command's
// caller side (--stt: every turn spoken and transcribed); with a trace
// (--trace) the vocabulary its prompts are drawn in (vocabOf).
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
		if set.TTS = vm.cfg.TTS.Record(); set.TTS == nil {
			return artifact.Load{}, errors.New("load: --tts is set but the run has no speech server")
		}
	}
	// The caller's side is the command's --stt: every turn spoken.
	set.STT = vm.cfg.STT.Record()
	if set.Trace != nil {
		tr := *set.Trace
		if tr.Vocab, err = vm.vocabOf(ctx, kind, tr.Format); err != nil {
			return artifact.Load{}, err
		}
		set.Trace = &tr
	}
	return artifact.Load{Settings: set, Model: &model, Server: &server, Levels: []artifact.LoadLevel{}}, nil
}

// vocabOf is the model's vocabulary size that a replayed Mooncake trace's
// prompts draw their token ids in (trace.VocabOf): llama.cpp's, from its
// GET /v1/models (data[0].meta.n_vocab), which it must give, since ids
// past a model's vocabulary are refused; 0 (unknown) for a call log and
// for other kinds of server, which say none.
func (vm *VM) vocabOf(ctx context.Context, kind servers.Kind, format string) (int, error) {
	if format != string(trace.Mooncake) || kind != servers.LlamaCpp {
		return 0, nil
	}
	url := vm.req.URL("/v1/models")
	status, body, err := stream.Get(ctx, url, vm.req.CallOptions(url))
	if err != nil {
		return 0, fmt.Errorf("load: --trace: the model's vocabulary: %w", err)
	}
	if status != http.StatusOK {
		return 0, fmt.Errorf("load: --trace: the model's vocabulary: %s", vm.req.StatusError(url, status, body, ""))
	}
	var models struct {
		Data []struct {
			Meta struct {
				NVocab int `json:"n_vocab"`
			} `json:"meta"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &models); err != nil || len(models.Data) == 0 || models.Data[0].Meta.NVocab <= 0 {
		return 0, fmt.Errorf("load: --trace: GET %s gives no data[0].meta.n_vocab, the model's vocabulary size the prompts' token ids are drawn in: %.200q", url, body)
	}
	return models.Data[0].Meta.NVocab, nil
}
