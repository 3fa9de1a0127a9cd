package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"ttftlab/internal/artifact"
	"ttftlab/internal/load"
	"ttftlab/internal/trace"
)

// replayFlags are load's flags for replaying a trace (--trace) and for
// shaping the start of a level (--ramp, --steady-start).
type replayFlags struct {
	trace, traceFormat   string
	traceBlock, traceMax int
	traceSpeed           float64
	// traceFrom and traceTo are the window on the trace's own clock in
	// ms; nil where not given.
	traceFrom, traceTo *float64
	ramp               time.Duration
	rampShape          string
	rampKeep           bool
	steadyStart        bool
}

func (r *replayFlags) register(fs *flagSet) {
	fs.StringVar(&r.trace, "trace", "", "replay the trace in `FILE`: a Mooncake trace (JSONL) or a call log (JSONL or CSV), each call at its "+
		"time, as one level (docs/load.md, docs/trace.md); the trace sets the calls, their turns and times")
	fs.StringVar(&r.traceFormat, "trace-format", "", "with --trace: mooncake or calls (default: told from the file)")
	fs.intVar(&r.traceBlock, "trace-block", trace.DefaultBlock, 1, 1<<20, "with --trace of a Mooncake trace: the tokens of a hash_ids block")
	r.traceSpeed = 1
	fs.Func("trace-speed", "`X` with --trace: replay X times as fast (every time of the trace divided by X; above 0) (default 1)", func(v string) error {
		x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || !(x > 0) || math.IsInf(x, 0) {
			return fmt.Errorf("want a number above 0 (2: twice as fast), got %q", v)
		}
		r.traceSpeed = x
		return nil
	})
	fs.Func("trace-from", "`DUR` with --trace: replay the calls that start from this time of the trace's own clock (e.g. 90s, 1h); times then count from it",
		windowFlag(&r.traceFrom))
	fs.Func("trace-to", "`DUR` with --trace: replay the calls that start before this time of the trace's own clock", windowFlag(&r.traceTo))
	fs.intVar(&r.traceMax, "trace-max", 0, 0, noLimit, "with --trace: the most calls at once (0: no cap); a call due while the cap is full "+
		"waits for a place (queue_ms shows it), none is dropped; a server load starts gets this many slots")
	fs.durationVar(&r.ramp, "ramp", 0, "grow each level over its first `DUR` (e.g. 30s): the calls at once or the rate from none to the level; "+
		"the requests due meanwhile are marked ramp and left out of the level's figures")
	fs.StringVar(&r.rampShape, "ramp-shape", string(load.RampLinear), "with --ramp: linear or exp (exponential, from 1 % of the level)")
	fs.BoolVar(&r.rampKeep, "ramp-keep", false, "with --ramp: count the ramp's requests in the level's figures")
	fs.BoolVar(&r.steadyStart, "steady-start", false, "with --turns above 1: start the calls at staggered turns, their earlier turns "+
		"already in the prompt as history, as if they had been running (so the first minute is not all first turns)")
}

// windowFlag reads a time of the trace's own clock (a duration of 0 or
// more) into *p, in ms.
func windowFlag(p **float64) func(string) error {
	return func(v string) error {
		d, err := time.ParseDuration(strings.TrimSpace(v))
		if err != nil || d < 0 {
			return fmt.Errorf("want a time on the trace's own clock, 0 or more, such as 90s or 1h, got %q", v)
		}
		ms := msFlag(d)
		*p = &ms
		return nil
	}
}

// traceSets are the flags a trace sets itself, and why each is refused
// with --trace.
var traceSets = []struct{ flag, why string }{
	{"concurrency", "the trace sets when each call starts"},
	{"rate", "the trace sets when each call starts"},
	{"arrival", "the trace sets when each call starts"},
	{"search", "a replay is one level, the trace's own traffic (replay it faster with --trace-speed)"},
	{"requests", "the trace sets the calls (window them with --trace-from and --trace-to)"},
	{"duration", "the trace sets how long the replay lasts (window it with --trace-from and --trace-to)"},
	{"turns", "the trace sets each call's turns"},
	{"think", "the trace sets the pauses between a call's turns"},
	{"ramp", "the trace's own arrivals are how its load grows"},
	{"steady-start", "the trace's calls start where the trace has them"},
	{"until-decided", "a replay is one pass over the trace (run it again with --runs)"},
}

// traceOnly are the flags that mean something only with --trace.
var traceOnly = []string{"trace-format", "trace-block", "trace-speed", "trace-from", "trace-to", "trace-max"}

// readTrace checks the trace's own flags and reads the trace whole
// (trace.Read), before any server starts or any request is sent: a fault
// of the trace is a usage error naming its file, line and field.
func (c *loadCmd) readTrace() (*trace.Trace, error) {
	r := &c.replay
	if f := r.traceFormat; f != "" && f != string(trace.Mooncake) && f != string(trace.Calls) {
		return nil, fmt.Errorf("--trace-format %q: want %s or %s (or leave it out: told from the file)", f, trace.Mooncake, trace.Calls)
	}
	if r.traceFrom != nil && r.traceTo != nil && *r.traceTo <= *r.traceFrom {
		return nil, fmt.Errorf("--trace-to %s is not after --trace-from %s: the window keeps nothing",
			time.Duration(*r.traceTo*float64(time.Millisecond)), time.Duration(*r.traceFrom*float64(time.Millisecond)))
	}
	o := trace.Options{Format: trace.Format(r.traceFormat), Speed: r.traceSpeed, FromMs: r.traceFrom, ToMs: r.traceTo, Block: r.traceBlock}
	tr, err := trace.Read(r.trace, o)
	var pe *fs.PathError
	switch {
	case errors.As(err, &pe):
		return nil, fmt.Errorf("--trace %s: cannot read it: %w", r.trace, pe.Err)
	case err != nil:
		return nil, fmt.Errorf("--trace %w", err)
	case len(tr.Calls) == 0:
		return nil, fmt.Errorf("--trace %s: the window (--trace-from, --trace-to) keeps none of its %d lines' calls", r.trace, tr.Lines)
	}
	return tr, nil
}

// traceRecord is settings.trace: the file as an absolute path (what a
// shard and a rerun read again), what was kept of it and how it is
// replayed; the vocabulary is the run's to add (the server's).
func (c *loadCmd) traceRecord(tr *trace.Trace) (*artifact.LoadTrace, error) {
	r := &c.replay
	abs, err := filepath.Abs(r.trace)
	if err != nil {
		return nil, fmt.Errorf("--trace %s: %w", r.trace, err)
	}
	rec := &artifact.LoadTrace{File: abs, Format: string(tr.Format), SHA256: tr.SHA256, Lines: tr.Lines, Calls: len(tr.Calls),
		Requests: tr.Requests, SpanMs: lastStart(tr), Speed: r.traceSpeed, FromMs: r.traceFrom, ToMs: r.traceTo, Max: r.traceMax}
	if tr.Format == trace.Mooncake {
		rec.Block = tr.Block
	}
	if tr.InputTokens > 0 {
		share := float64(tr.SharedTokens) / float64(tr.InputTokens)
		rec.SharedShare = &share
	}
	return rec, nil
}

// lastStart is when the trace's last call starts (ms from the replay's
// origin, after the speed).
func lastStart(tr *trace.Trace) float64 {
	last := 0.0
	for _, c := range tr.Calls {
		last = max(last, c.StartMs)
	}
	return last
}

// mostTurns is the turns of the trace's longest call.
func mostTurns(tr *trace.Trace) int {
	most := 1
	for _, c := range tr.Calls {
		most = max(most, len(c.Turns))
	}
	return most
}

// checkReplay refuses the flags a trace sets with one (traceSets), its
// own flags without one, and the ramp and steady-start flags where they
// cannot apply.
func (c *loadCmd) checkReplay() error {
	r := &c.replay
	for _, s := range traceSets {
		if r.trace != "" && c.given[s.flag] {
			return fmt.Errorf("--%s with --trace: %s; drop --%s", s.flag, s.why, s.flag)
		}
	}
	for _, name := range traceOnly {
		if r.trace == "" && c.given[name] {
			return fmt.Errorf("--%s is for a replayed trace: add --trace FILE, or drop --%s", name, name)
		}
	}
	switch {
	case r.ramp == 0 && (c.given["ramp-shape"] || r.rampKeep):
		name := "ramp-shape"
		if r.rampKeep {
			name = "ramp-keep"
		}
		return fmt.Errorf("--%s is for a ramp: add --ramp DUR (e.g. --ramp 30s), or drop --%s", name, name)
	case r.rampShape != string(load.RampLinear) && r.rampShape != string(load.RampExp):
		return fmt.Errorf("--ramp-shape %q: want %s or %s", r.rampShape, load.RampLinear, load.RampExp)
	case r.ramp > 0 && c.duration > 0 && r.ramp >= c.duration:
		return fmt.Errorf("--ramp %s is not shorter than --duration %s: each level would start every call during its ramp, and its figures would "+
			"leave them all out; give a shorter --ramp or a longer --duration", r.ramp, c.duration)
	case r.steadyStart && c.turns < 2:
		return fmt.Errorf("--steady-start starts calls part-way through their turns, with the turns before in the prompt: give --turns above 1 " +
			"(e.g. --turns 6), or drop --steady-start")
	}
	return nil
}

// rampRecord is settings.ramp, nil without --ramp.
func (c *loadCmd) rampRecord() *artifact.LoadRamp {
	r := &c.replay
	if r.ramp <= 0 {
		return nil
	}
	return &artifact.LoadRamp{DurationMs: msFlag(r.ramp), Shape: r.rampShape, Keep: r.rampKeep}
}

// traceSlots are the slots a server load starts gets for a replay
// without --trace-max: the most calls of the trace in progress at once,
// each call taken to last its turns' answers at assumedTokensPerS (a
// turn's output tokens, else maxTokens), its caller's speaking and its
// pauses (the trace's times, after --trace-speed); at least 1, at most
// llama-server's 1024.
func traceSlots(tr *trace.Trace, maxTokens int) int {
	type edge struct {
		ms   float64
		step int
	}
	edges := make([]edge, 0, 2*len(tr.Calls))
	for _, call := range tr.Calls {
		length := 0.0
		for _, t := range call.Turns {
			out := t.OutputTokens
			if out <= 0 {
				out = maxTokens
			}
			length += 1000*float64(out)/assumedTokensPerS + t.SpeakMs + t.PauseMs
		}
		edges = append(edges, edge{call.StartMs, 1}, edge{call.StartMs + length, -1})
	}
	// A call that ends when another starts frees its slot first.
	slices.SortFunc(edges, func(a, b edge) int {
		if a.ms != b.ms {
			if a.ms < b.ms {
				return -1
			}
			return 1
		}
		return a.step - b.step
	})
	most, now := 1, 0
	for _, e := range edges {
		now += e.step
		most = max(most, now)
	}
	return min(most, 1024)
}
