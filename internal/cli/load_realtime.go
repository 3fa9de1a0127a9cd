package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"ttftlab/internal/artifact"
	"ttftlab/internal/callaudio"
	"ttftlab/internal/endpoint"
	"ttftlab/internal/load"
	"ttftlab/internal/realtime"
	"ttftlab/internal/tts"
	"ttftlab/runtime"
	"ttftlab/runtime/streammany"
)

// realtimeSLO is load --realtime's SLO when no --slo is given.
const realtimeSLO = "mouth_to_ear_ms<=1500@p95"

// realtimeSLOMetrics are the figures a turn of a speech-to-speech session
// has, which an --slo may be set on with --realtime.
var realtimeSLOMetrics = []string{"mouth_to_ear_ms", "first_audio_ms", "underrun_ms", "endpointing_ms", "total_ms"}

// realtimeTakes are the flags load takes with --realtime: the levels,
// the plan, the verdicts, the artifacts. The others are the LLM's
// requests' (the server, the model, speech, the caller's transcription,
// a trace, shards, repeated runs), which the sessions have none of.
var realtimeTakes = []string{"concurrency", "rate", "arrival", "seed", "requests", "turns", "duration", "warmup", "no-report", "search",
	"search-max", "search-budget", "until-decided", "budget", "fail-below", "max-error-rate", "slo", "out", "ramp", "ramp-shape", "ramp-keep"}

// realtimeLoadFlags are load's own flags of speech-to-speech sessions,
// beside --realtime and its server's (hostFlags.realtime): the session's
// model, voice and instructions, a turn's time limit, the barge-in.
type realtimeLoadFlags struct {
	model, voice, instructions string
	turnTimeout, bargeAfter    time.Duration
}

func (r *realtimeLoadFlags) register(f *flagSet) {
	f.StringVar(&r.model, "realtime-model", "", "with --realtime: the session's `MODEL` (?model= on the upgrade; default: none, the server's own)")
	f.StringVar(&r.voice, "realtime-voice", "", "with --realtime: the answer's `VOICE` in session.update (default: the server's)")
	f.StringVar(&r.instructions, "realtime-instructions", "", "with --realtime: the session's `INSTRUCTIONS` in session.update (default: the server's)")
	f.durationVar(&r.turnTimeout, "realtime-turn-timeout", realtime.DefaultTurnTimeout, "with --realtime: fail a turn whose answer has not ended "+
		"this `DURATION` after the caller's speech end")
	f.durationVar(&r.bargeAfter, "realtime-barge-after", 0, "with --realtime: every turn of a session but its last barges in: the next "+
		"turn's audio starts this `DURATION` after the turn's first audio delta (e.g. 800ms; default: none, each turn after the answer's end)")
}

// sessions says whether the load is speech-to-speech sessions (--realtime).
func (c *loadCmd) sessions() bool { return c.flags.realtime.url != "" }

// realtimeConfig is the sessions' configuration: the server dressed with
// its key, headers and TLS as the other side servers are (where the key
// came from said on log, never its value; no --server to share them
// with), the model, voice, instructions and turn timeout.
func (c *loadCmd) realtimeConfig(log io.Writer) (realtime.Config, error) {
	ep, err := c.flags.realtime.endpoint(c.rt.model, nil, log)
	if err != nil {
		return realtime.Config{}, err
	}
	return realtime.Config{Endpoint: ep, Voice: c.rt.voice, Instructions: c.rt.instructions, TurnTimeout: c.rt.turnTimeout}, nil
}

// runRealtime is `ttftlab load --realtime URL`: the load is
// speech-to-speech sessions with the Realtime server, one a call
// (streammany.RealtimeRunner), a level at a time as any load's
// (load.Sweep: levels, a search, SLO verdicts, load.json, the console),
// every turn a row. It needs no LLM server and starts none: what the
// caller says is the experiment's (scripts/load.lua), each line spoken by
// espeak-ng (installed when missing) before a level starts.
func (c *loadCmd) runRealtime(ctx context.Context, fs *flagSet) error {
	var refused []string
	for name := range c.given {
		if !strings.HasPrefix(name, "realtime") && !slices.Contains(realtimeTakes, name) {
			refused = append(refused, "--"+name)
		}
	}
	if len(refused) > 0 {
		sort.Strings(refused)
		return fs.usageErrf("%s with --realtime: the load is sessions with the Realtime server alone, which has no LLM server, "+
			"speech engine, transcription, trace, shards or repeated runs of ttftlab's; drop %s", strings.Join(refused, ", "), strings.Join(refused, ", "))
	}
	if c.rt.bargeAfter > 0 && c.turns < 2 {
		return fs.usageErrf("--realtime-barge-after barges into every turn's answer but a session's last: give --turns above 1")
	}
	set, _, err := c.settings()
	if err != nil {
		return fs.usageErr(err)
	}
	// The caller's lines are said as they are: no documents, no answer
	// length, no think time (a turn starts when the answer before it
	// ended, or barges in).
	set.Docs, set.MaxTokens, set.ThinkMs, set.KB = 0, 0, 0, ""
	shown := endpoint.ShownURL(strings.TrimSpace(c.flags.realtime.url))
	set.Server, set.ServerKind = shown, "realtime"
	set.Realtime = &artifact.LoadRealtime{Server: shown, Model: c.rt.model, Voice: c.rt.voice}
	if c.rt.bargeAfter > 0 {
		set.Realtime.BargeAfterMs = artifact.Ms(msFlag(c.rt.bargeAfter))
	}
	out, err := checkOut(c.flags.out)
	if err != nil {
		return err
	}
	cfg, err := c.realtimeConfig(c.env.Err)
	if err != nil {
		return err
	}
	bin, err := tts.FindOrInstall(ctx, c.env.Err)
	if err != nil {
		return fmt.Errorf("the caller's audio: %w", err)
	}
	rcfg := streammany.RealtimeConfig{Session: cfg, BargeAfterMs: set.Realtime.BargeAfterMs,
		Say: func(ctx context.Context, text string) (*callaudio.Clip, error) {
			return callaudio.Synthesize(ctx, bin, text, "")
		}}
	c.env.signals.describe("stopping the sessions")
	vm, err := runtime.New(ctx, runtime.Config{Out: out, Command: invokedAs(), Stdout: c.env.Out, Stderr: c.env.Err})
	if err != nil {
		return err
	}
	defer vm.Close()
	exp, err := c.experiment(vm)
	if err != nil {
		return err
	}
	for _, f := range loadArtifacts {
		if err := os.Remove(filepath.Join(out, f)); err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("removing the earlier run's %s: %w", filepath.Join(out, f), err)
		}
	}
	path := filepath.Join(out, "load.json")
	saved := true
	save := func(d artifact.Load) error {
		err := os.MkdirAll(out, 0o755)
		if err != nil {
			err = fmt.Errorf("cannot create output folder %s: %w", out, err)
		} else {
			err = writeLoadJSON(path, &d)
		}
		saved = err == nil
		return err
	}
	doc := artifact.Load{Settings: set, Levels: []artifact.LoadLevel{}}
	doc, err = load.Sweep(ctx, doc, vm.RealtimeRunner(exp, set, rcfg), save, c.env.Out, out)
	var failedWrite *runtime.WriteError
	wrote := errors.As(err, &failedWrite)
	switch {
	case err != nil && !saved:
		return err
	case err != nil && ctx.Err() != nil:
		c.kept(path, out, doc, "interrupted")
		return err
	case err != nil && wrote:
		c.kept(path, out, doc, "a file could not be written, so the run stopped")
		return err
	case err != nil:
		return err
	}
	if !c.noReport {
		if err := c.env.writeReport(ctx, out, ""); err != nil {
			return err
		}
	}
	return c.verdict(out)
}
