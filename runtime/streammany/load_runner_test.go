package streammany_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"ttftlab/internal/artifact"
	"ttftlab/internal/load"
	"ttftlab/internal/stream/streamtest"
	"ttftlab/runtime"
)

// experimentVM is a VM whose experiment is code (as load.lua).
func experimentVM(t *testing.T, cfg runtime.Config, code string) (*runtime.VM, *runtime.Experiment) {
	t.Helper()
	vm, _ := testVM(t, cfg)
	exp, err := vm.ExperimentFS(fstest.MapFS{"load.lua": {Data: []byte(code)}}, "load.lua")
	if err != nil {
		t.Fatal(err)
	}
	return vm, exp
}

// builder is an experiment that builds "q CALL.TURN" and keeps what the
// engine asked of it in SEEN.
const builder = `
SEEN = {}
return function(run)
  SEEN[#SEEN + 1] = run
  return function(i, call, turn)
    return "q " .. call .. "." .. turn, {max_tokens = run.max_tokens, tags = {call = call, turn = turn}}
  end, function(r) ENDED = (ENDED or 0) + 1 end
end`

// TestLoadRunnerRunsARound: the runner asks the experiment for the
// round's builder with the run's settings, runs the round's calls and
// turns as the plan says, and gives every row tagged with the level
// (requests.jsonl too, with each request's call and turn), in the order
// they ended, with the round's start, span and client use; on_result
// sees every request.
func TestLoadRunnerRunsARound(t *testing.T) {
	url := (&streamtest.FakeLlama{Pieces: []string{"Yes.", " Bye."}, Delay: time.Millisecond}).Start(t)
	vm, exp := experimentVM(t, runtime.Config{Server: url}, builder)
	set := artifact.LoadSettings{Mode: "concurrency", Turns: 2, MaxTokens: 9, Seed: 7, Arrival: "constant", Docs: 0, Calls: 3}
	res, err := vm.LoadRunner(exp, set).Run(context.Background(), load.Round{Level: 2, Round: 1, Calls: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 6 {
		t.Fatalf("%d rows, want 3 calls of 2 turns", len(res.Rows))
	}
	for _, r := range res.Rows {
		if r.Level != 2 || r.Call < 1 || r.Call > 3 || r.Turn < 1 || r.Turn > 2 || r.ErrorKind != nil {
			t.Errorf("row %+v", r)
		}
	}
	x := res.Extras
	if x.StartedUnixMs == nil || x.DurationMs == nil || *x.DurationMs <= 0 || x.Interrupted || x.OverSaturated != nil {
		t.Errorf("extras %+v", x)
	}
	if got := eval(t, vm, `SEEN[1].level .. " " .. SEEN[1].calls .. " " .. SEEN[1].turns .. " " .. SEEN[1].max_tokens .. " " .. SEEN[1].mode .. " " .. ENDED`).String(); got != "2 3 2 9 concurrency 6" {
		t.Errorf("the experiment saw %q", got)
	}
	data, err := os.ReadFile(filepath.Join(vm.Out(), "requests.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 6 || !strings.HasPrefix(lines[0], `{"call":`) || !strings.Contains(lines[0], `"level":2,`) {
		t.Errorf("requests.jsonl:\n%s", data)
	}
}

// TestLoadRunnerErrors: an experiment that returns no function is named
// as such; an error in the builder is the script's, with its line, and
// ends the round with the rows so far; a stop ends it with ctx's error.
func TestLoadRunnerErrors(t *testing.T) {
	vm, _ := testVM(t, runtime.Config{})
	if _, err := vm.ExperimentFS(fstest.MapFS{"load.lua": {Data: []byte(`return 1`)}}, "load.lua"); err == nil ||
		!strings.Contains(err.Error(), "load.lua must return the experiment") {
		t.Errorf("an experiment that is no function: %v", err)
	}

	url := (&streamtest.FakeLlama{Pieces: []string{"Yes."}, Delay: time.Millisecond}).Start(t)
	set := artifact.LoadSettings{Mode: "concurrency", Turns: 1, MaxTokens: 9, Arrival: "constant", Calls: 4}
	vm, exp := experimentVM(t, runtime.Config{Server: url}, `return function(run)
  return function(i)
    if i == 3 then error("no line for request 3") end
    return "q", {}
  end
end`)
	res, err := vm.LoadRunner(exp, set).Run(context.Background(), load.Round{Level: 1, Round: 1, Calls: 4})
	var se *runtime.ScriptError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "load.lua:3: no line for request 3") {
		t.Errorf("the builder's error: %v", err)
	}
	if len(res.Rows) != 2 || res.Extras.StartedUnixMs == nil || res.Extras.DurationMs != nil {
		t.Errorf("a round the builder ended: %d rows, extras %+v; want the 2 that ended, its start, no span", len(res.Rows), res.Extras)
	}

	vm, exp = experimentVM(t, runtime.Config{Server: url}, builder)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := vm.LoadRunner(exp, set).Run(ctx, load.Round{Level: 1, Round: 1, Calls: 4}); !errors.Is(err, context.Canceled) {
		t.Errorf("a stopped round: %v", err)
	}
}
