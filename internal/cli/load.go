package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"ttftlab/internal/artifact"
	"ttftlab/internal/atomicfile"
	"ttftlab/internal/load"
	"ttftlab/internal/loadtext"
	"ttftlab/internal/rundir"
	"ttftlab/internal/trace"
	"ttftlab/runtime"
	"ttftlab/runtime/suggest"
	"ttftlab/scripts"
)

// loadCmd is `ttftlab load [flags]`: many calls on one server, a level at
// a time, and the highest level whose SLOs hold: the server's capacity.
type loadCmd struct {
	env   *env
	flags hostFlags

	concurrency, rate, arrival string
	seed, requests, turns      int
	duration, think            time.Duration
	docs, maxTokens, warmup    int
	slos                       []string
	// warmupFor is --warmup given as a duration (warmup then 0).
	warmupFor time.Duration
	noReport  bool
	// search is --search; searchMax --search-max.
	search       bool
	searchMax    int
	searchBudget int
	// untilDecided is --until-decided; budgetRequests or budgetFor its
	// --budget, a count of requests or a time (the other 0), budgetGiven
	// whether --budget was given.
	untilDecided   bool
	budgetRequests int
	budgetFor      time.Duration
	budgetGiven    bool
	// failBelow (--fail-below) and maxErrorRate (--max-error-rate) are
	// the CI gates; failBelow 0 and maxErrorRate 1 are off.
	failBelow, maxErrorRate float64
	// runs is --runs.
	runs int
	// shard are --shard and its companions (load_shard.go).
	shard shardFlags
	// replay are --trace, --ramp, --steady-start and their companions
	// (load_trace.go); tr is the trace --trace read (settings), nil
	// without one.
	replay replayFlags
	tr     *trace.Trace
	// rt are load's own flags of speech-to-speech sessions, beside
	// --realtime and its server's (flags.realtime): the load is then
	// sessions (load_realtime.go).
	rt realtimeLoadFlags
	// given are the flags set on the command line.
	given map[string]bool
	// writeFailed: the last run ended on a file it could not write (a
	// full disk, too many open files), which stopped it as Ctrl-C does:
	// it gets no report.
	writeFailed bool
}

func newLoad(e *env) runner { return &loadCmd{env: e} }

// workingTreeLoad is the experiment used instead of the built-in one
// when it exists: a user's edited request builder, without recompiling.
const workingTreeLoad = "scripts/load.lua"

const loadAbout = `Runs the load, whose requests scripts/load.lua builds (from the working tree when it
exists, else the copy built into ttftlab): at each level of --concurrency (calls at once) or --rate (calls per
second), --requests calls (or as many as --duration allows), each of --turns turns with
--think between them; per level the p50/p95/p99 of ttft and first sentence, tokens/s,
errors and the share of requests meeting the SLOs (goodput); at the end the capacity,
the highest level whose SLOs hold. A server it starts gets --ctx tokens of context per
slot and, unless --slots, as many slots as the largest --concurrency level, or with
--rate as many as calls are in flight (see --slots). Artifacts in --out: load.json,
requests.jsonl, requests.csv, server.jsonl; Ctrl-C keeps them, the level it stopped
marked interrupted. With --search the levels are not given: it doubles the calls at
once from 1 up to --search-max while the SLOs hold, then bisects on whole numbers to
the largest level that holds (a server it starts gets --search-max slots), then gives
that level and the one above more rounds of --requests calls until each SLO's 95 %
interval lies on one side of its limit, or --search-budget calls a level (else the
capacity is undecided, between the two). With --until-decided each level (each level
the search tries) gets further rounds of its --requests calls until every --slo's 95 %
interval lies on one side of its limit, or --budget runs out; the console and
load.json then say which verdicts are undecided and about how many more requests
would decide them. With --trace FILE it replays recorded traffic instead of levels: a
Mooncake trace or a call log (docs/trace.md), every call at its time on the trace's
clock (--trace-speed, a window --trace-from/--trace-to, at most --trace-max calls at
once), as one level named by its speed, with SLO verdicts and no capacity; each request's
lateness (late_ms: its start past the moment it could start) says whether this machine
kept to the schedule. --ramp grows each level over its first DUR, its requests left out
of the figures; --steady-start starts multi-turn calls at staggered turns with their
history in the prompt. Exits 1
when every request of a level failed (the sweep stops there; with --search, when no
level held and one failed every request), naming the failure kinds; exits 3 when a
gate fails (--fail-below, --max-error-rate); a missed SLO or a partial failure
otherwise exits 0. With --shard I/N it runs one part of a run split over N machines,
its levels fixed on the wall clock (--start-at or --barrier, --duration, --level-gap), into
OUT/shard-I; ttftlab merge makes the shards one load folder (docs/distributed.md). With
--realtime URL each call is a speech-to-speech session with that Realtime server instead, each
turn a row, mouth_to_ear_ms its figure; no LLM server is used or started (docs/load.md).`

// defaultBudget is --budget's default: each level run until decided
// gets 5 minutes, enough at one call at once of a second a request to
// bound a p95 (72 requests) several times over.
const defaultBudget = 5 * time.Minute

// loadRequestTimeout is load's --request-timeout: a call of a voice agent
// that has not answered in 5 minutes has failed.
const loadRequestTimeout = 5 * time.Minute

func (c *loadCmd) register(fs *flagSet) {
	c.flags.requestTimeout = loadRequestTimeout
	c.flags.register(fs)
	c.flags.registerSynth(fs)
	fs.StringVar(&c.concurrency, "concurrency", "", "calls at once, a closed loop; a list (1,2,4,8) is a sweep (default 1,2,4 without --rate)")
	fs.StringVar(&c.rate, "rate", "", "calls arriving per second, an open loop; a list is a sweep; with --search the rate it starts from")
	fs.StringVar(&c.arrival, "arrival", "constant", "with --rate: constant or poisson")
	fs.intVar(&c.seed, "seed", 7, 0, noLimit, "seed of Poisson arrivals, think times and each call's lines")
	fs.intVar(&c.requests, "requests", 20, 1, 1000000, "calls per level (each makes --turns requests)")
	fs.durationVar(&c.duration, "duration", 0, "per level: start no new call after this long (e.g. 60s); --requests still caps")
	fs.intVar(&c.turns, "turns", 1, 1, 1000, "user turns per call (voice calls: history, answer, next line)")
	fs.durationVar(&c.think, "think", 2*time.Second, "with --turns > 1: the caller's pause before each next turn")
	fs.intVar(&c.docs, "docs", 4, 0, 1000, "KB documents in the system prompt")
	fs.intVar(&c.maxTokens, "max-tokens", 64, 1, 1000000, "answer length limit")
	fs.Func("warmup", "`N or DURATION` per level left out of the summaries: its first N requests (5), or those due in its first DURATION (10s)", func(v string) error {
		if n, err := strconv.Atoi(v); err == nil {
			if n < 0 || n > 1000000 {
				return fmt.Errorf("want a number of requests from 0 to 1000000, got %d", n)
			}
			c.warmup, c.warmupFor = n, 0
			return nil
		}
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return fmt.Errorf("want a number of requests (5) or a duration (10s), got %q", v)
		}
		c.warmup, c.warmupFor = 0, d
		return nil
	})
	fs.BoolVar(&c.noReport, "no-report", false, "do not draw OUT/report.html at the end")
	fs.BoolVar(&c.search, "search", false, "search the capacity: calls at once doubling from 1, then bisection (instead of --concurrency levels)")
	fs.intVar(&c.searchMax, "search-max", 64, 1, 1024, "with --search: the most calls at once it tries (with --rate: the highest rate, calls/s)")
	fs.intVar(&c.searchBudget, "search-budget", 0, 0, 1000000, "with --search: the most calls the capacity and the level above it get to confirm "+
		"their verdicts (rounds of --requests calls until each SLO's interval lies on one side of its limit; default 4 x --requests)")
	fs.BoolVar(&c.untilDecided, "until-decided", false, "give each level further rounds of --requests calls until every --slo's 95 % interval "+
		"lies on one side of its limit, or --budget runs out (needs --slo; with --search, each level it tries)")
	c.budgetFor = defaultBudget
	fs.Func("budget", "`N or DURATION` with --until-decided: each level's most requests (5000, its first round's included) or time "+
		"(10m: a further round starts only when one as long as the last still fits) (default 5m)", func(v string) error {
		c.budgetGiven = true
		if n, err := strconv.Atoi(v); err == nil {
			if n < 1 || n > 100000000 {
				return fmt.Errorf("want a number of requests from 1 to 100000000, got %d", n)
			}
			c.budgetRequests, c.budgetFor = n, 0
			return nil
		}
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return fmt.Errorf("want a number of requests (5000) or a duration (10m), got %q", v)
		}
		c.budgetRequests, c.budgetFor = 0, d
		return nil
	})
	registerRuns(fs, &c.runs)
	c.flags.registerRealtime(fs)
	c.rt.register(fs)
	c.shard.register(fs)
	c.replay.register(fs)
	fs.floatVar(&c.failBelow, "fail-below", 0, 0, math.MaxFloat64, "exit 3 when the capacity is below this level (a CI gate; 0: off)")
	fs.floatVar(&c.maxErrorRate, "max-error-rate", 1, 0, 1, "exit 3 when a level's share of failed requests is above this (a CI gate, e.g. 0.01; 1: off)")
	// A server that load starts is sized for the load (sizeServer): say so
	// where the shared server flags are described for every command.
	if f := fs.Lookup("ctx"); f != nil {
		f.Usage = "context size in tokens of each slot of a server load starts (-c is this times the slots)"
	}
	if f := fs.Lookup("slots"); f != nil {
		f.Usage = fmt.Sprintf("parallel slots (-np) of a server load starts (default: the largest --concurrency level; with --rate "+
			"the calls in flight: the largest rate times a call's length, %d tokens/s answering --max-tokens per turn plus "+
			"--think between turns, rounded up, at most --requests; with --trace, --trace-max, else the most of its calls in "+
			"progress at once, each as long as its answers at %d tokens/s plus its speaking and pauses, at most 1024)", assumedTokensPerS, assumedTokensPerS)
		f.DefValue = "0" // the default depends on the levels
	}
	fs.Func("slo", "`METRIC<=MS@pNN`, e.g. first_sentence_ms<=800@p95 (repeatable; metrics: ttft_ms, first_sentence_ms, total_ms; with --tts first_audio_ms, underrun_ms; with --stt and --tts mouth_to_ear_ms, stt_final_ms, endpointing_ms; with --realtime "+
		"mouth_to_ear_ms, first_audio_ms, underrun_ms, endpointing_ms, total_ms; default first_sentence_ms<=800@p95, with --realtime "+realtimeSLO+")", func(s string) error {
		if _, err := parseSLO(s); err != nil {
			return err
		}
		c.slos = append(c.slos, s)
		return nil
	})
}

func (c *loadCmd) Run(ctx context.Context, args []string) error {
	fs := c.env.flags("[flags]", loadAbout)
	c.register(fs)
	if err := fs.parse(args); err != nil {
		return err
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	if err := c.flags.check(fs); err != nil {
		return err
	}
	c.given = fs.given()
	if c.sessions() {
		return c.runRealtime(ctx, fs)
	}
	set, levels, err := c.settings()
	if err != nil {
		return fs.usageErr(err)
	}
	shard, err := c.shard.plan(fs)
	if err == nil && shard != nil {
		err = c.refuseWithShard(fs, levels, shard.Count)
	}
	if err != nil {
		return fs.usageErr(err)
	}
	need := serverOrSynth
	if shard != nil {
		// A shard never starts a server: every shard loads the one at
		// --server, and its artifacts go to OUT/shard-I.
		need = serverRequired
		c.flags.out = filepath.Join(c.flags.out, fmt.Sprintf("shard-%d", shard.Index))
		set.Seed = shard.seed(c.seed)
		shard.apply(&set)
	} else {
		c.sizeServer(fs, levels)
	}
	s := script{flags: c.flags, need: need, preflight: true}
	if shard != nil {
		defer shard.release()
		s.before = func(ctx context.Context) error {
			return shard.ready(ctx, &set, func(line string) { fmt.Fprintln(c.env.Out, line) })
		}
	}
	s.finish = func(ctx context.Context, out, serverLog string) error {
		// A run a stop or a failed write ended has no report: load.json
		// keeps what it measured, and `ttftlab report` draws it.
		if c.noReport || ctx.Err() != nil || c.writeFailed {
			c.writeFailed = false
			return nil
		}
		return c.env.writeReport(ctx, out, serverLog)
	}
	s.exec = func(vm *runtime.VM) error { return c.run(ctx, vm, set) }
	s.runs = &runsPlan{n: c.runs, kind: rundir.KindLoad, table: c.runs >= 2, after: c.verdict}
	if !c.noReport {
		s.runs.report = c.env.writeReport
	}
	return c.env.runScript(ctx, s)
}

// loadArtifacts are the files a load writes in OUT: a fresh run removes
// an earlier run's, whose rows must not mix with its own.
var loadArtifacts = []string{"requests.jsonl", "requests.csv", "server.jsonl", "load.json"}

// run is one run of the load on vm: the experiment (scripts/load.lua),
// the head of load.json (the settings completed with the server, the
// model), the sweep (load.Sweep) with the runtime's runner, load.json
// written after each level. A preflight run (before a server starts)
// only asks the experiment for a builder, which refuses its inputs (a
// --docs the KB does not have). A stop (Ctrl-C, a file that could not be
// written) leaves load.json with the level it stopped in marked
// interrupted, and says so on stderr.
func (c *loadCmd) run(ctx context.Context, vm *runtime.VM, set artifact.LoadSettings) error {
	exp, err := c.experiment(vm)
	if err != nil {
		return err
	}
	if vm.Preflight() {
		first := 1.0
		if len(set.Levels) > 0 {
			first = set.Levels[0]
		}
		return vm.LoadRunner(exp, set).Check(ctx, first)
	}
	out := vm.Out()
	for _, f := range loadArtifacts {
		if err := os.Remove(filepath.Join(out, f)); err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("removing the earlier run's %s: %w", filepath.Join(out, f), err)
		}
	}
	doc, err := vm.LoadHead(ctx, set, c.flags.tts.url != "")
	if err != nil {
		return err
	}
	path := filepath.Join(out, "load.json")
	saved := true // the last save wrote load.json
	save := func(d artifact.Load) error {
		// The folder is made by the first write (checkOut).
		err := os.MkdirAll(out, 0o755)
		if err != nil {
			err = fmt.Errorf("cannot create output folder %s: %w", out, err)
		} else {
			err = writeLoadJSON(path, &d)
		}
		saved = err == nil
		return err
	}
	doc, err = load.Sweep(ctx, doc, vm.LoadRunner(exp, doc.Settings), save, c.env.Out, out)
	// A file that could not be written (a record, or load.json itself)
	// stopped the run as Ctrl-C does.
	var failedWrite *runtime.WriteError
	wrote := errors.As(err, &failedWrite)
	c.writeFailed = wrote || !saved
	switch {
	case err == nil || !saved:
		return err
	case ctx.Err() != nil:
		c.kept(path, out, doc, "interrupted")
	case wrote:
		c.kept(path, out, doc, "a file could not be written, so the run stopped")
	}
	return err
}

// experiment loads the request builder: the working tree's
// scripts/load.lua when there is one, else the copy built into ttftlab.
func (c *loadCmd) experiment(vm *runtime.VM) (*runtime.Experiment, error) {
	if _, err := os.Stat(workingTreeLoad); err == nil {
		return vm.ExperimentFile(workingTreeLoad)
	}
	return vm.ExperimentFS(scripts.FS, "load.lua")
}

// kept says on stderr what load.json keeps of a stopped run (why says
// what stopped it), so `ttftlab report` can draw the folder.
func (c *loadCmd) kept(path, out string, doc artifact.Load, why string) {
	what := "no level had ended"
	if n := len(doc.Levels); n > 0 {
		what = fmt.Sprintf("%d level(s)", n)
		if last := doc.Levels[n-1]; last.Interrupted {
			what += fmt.Sprintf(", the last (%g) interrupted", last.Level)
		}
	}
	fmt.Fprintf(c.env.Err, "ttftlab load: %s; %s keeps %s (ttftlab report %s draws it)\n", why, path, what, out)
}

// writeFileAtomic writes a file atomically; a test puts a full disk
// in its place.
var writeFileAtomic = atomicfile.Write

// writeLoadJSON writes a load.json atomically, indented by two spaces.
func writeLoadJSON(path string, doc *artifact.Load) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return writeFileAtomic(path, b.Bytes(), 0o644)
}

// loadRows reads requests.jsonl strictly (artifact.ReadLoadRequests),
// none when it does not exist.
func loadRows(path string) ([]artifact.LoadRequest, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rows, err := artifact.ReadLoadRequests(f)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return rows, nil
}

// verdict is a finished run's error: a level where every request failed,
// else a CI gate that failed.
func (c *loadCmd) verdict(out string) error {
	if err := allFailed(out); err != nil {
		return err
	}
	return c.gates(out)
}

// gates checks the CI gates on load.json: a capacity below --fail-below,
// a level whose share of failed requests is above --max-error-rate. A
// failed gate is a gateError (exit 3).
func (c *loadCmd) gates(out string) error {
	if c.failBelow <= 0 && c.maxErrorRate >= 1 {
		return nil
	}
	doc, err := readLoad(out)
	if err != nil || doc == nil {
		return err
	}
	var failed []string
	for _, lv := range doc.Levels {
		s := lv.Summary
		if s.Requests > 0 && float64(s.Failed)/float64(s.Requests) > c.maxErrorRate {
			failed = append(failed, fmt.Sprintf("at level %g, %d of %d requests failed (%.1f%%), above --max-error-rate %g",
				lv.Level, s.Failed, s.Requests, 100*float64(s.Failed)/float64(s.Requests), c.maxErrorRate))
		}
	}
	if c.failBelow > 0 {
		capacity := 0.0
		if doc.Capacity != nil {
			capacity = doc.Capacity.Level
		}
		if capacity < c.failBelow {
			failed = append(failed, fmt.Sprintf("the capacity %g is below --fail-below %g", capacity, c.failBelow))
		}
	}
	if len(failed) > 0 {
		return &gateError{msg: strings.Join(failed, "; ")}
	}
	return nil
}

// readLoad reads OUT/load.json; nil without an error when the script
// wrote none.
func readLoad(out string) (*artifact.Load, error) {
	data, err := os.ReadFile(filepath.Join(out, "load.json"))
	if err != nil {
		return nil, nil // the script said what it did; nothing measured
	}
	var doc artifact.Load
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("reading %s: %w", filepath.Join(out, "load.json"), err)
	}
	return &doc, nil
}

// allFailed is the run's error when every request of a level failed (the
// script stops its sweep there): the level, and the top failure kinds
// with their counts and one message each. A level where only some failed
// is no error; a missed SLO is none either.
//
// A search (settings.search_max) runs on below a level where every
// request failed: only when no level held is that the run's error.
func allFailed(out string) error {
	doc, err := readLoad(out)
	if err != nil || doc == nil {
		return err
	}
	if doc.Settings.SearchMax > 0 && doc.Capacity != nil && doc.Capacity.Level > 0 {
		return nil
	}
	for _, lv := range doc.Levels {
		s := lv.Summary
		if s.Requests == 0 || s.Failed < s.Requests {
			continue
		}
		name := loadtext.LevelName(doc.Settings.Mode, lv.Level)
		var kinds []string
		for i, f := range s.Failures {
			if i == 3 {
				kinds = append(kinds, fmt.Sprintf("and %d more kinds", len(s.Failures)-3))
				break
			}
			kinds = append(kinds, fmt.Sprintf("%s x%d (e.g. %s)", f.Label(), f.N, f.Example))
		}
		return fmt.Errorf("every request at %s failed (%d of %d): %s", name, s.Failed, s.Requests, strings.Join(kinds, "; "))
	}
	return nil
}

// settings checks the level and SLO flags and turns them into the
// run's settings (load.json's), and the levels a server it starts is
// sized for. With --trace it reads the trace whole (c.tr): a replay is
// one level, its number the speed. What only the run knows (the server,
// its kind, the API, the speech server, a trace's vocabulary; a shard's
// start) is added later.
func (c *loadCmd) settings() (artifact.LoadSettings, []float64, error) {
	if err := c.checkReplay(); err != nil {
		return artifact.LoadSettings{}, nil, err
	}
	mode, list := "concurrency", c.concurrency
	searchStart := 1.0
	c.tr = nil
	if c.replay.trace != "" {
		tr, err := c.readTrace()
		if err != nil {
			return artifact.LoadSettings{}, nil, err
		}
		c.tr, mode = tr, "trace"
	}
	switch {
	case c.tr != nil:
		// One level, the speed: no list to read.
	case c.rate != "" && c.concurrency != "":
		return artifact.LoadSettings{}, nil, fmt.Errorf("give --concurrency (calls at once) or --rate (calls per second), not both")
	case c.search && c.concurrency != "":
		return artifact.LoadSettings{}, nil, fmt.Errorf("--search chooses the levels itself (1 up to --search-max): drop --concurrency")
	case c.search && c.rate != "":
		start, err := strconv.ParseFloat(strings.TrimSpace(c.rate), 64)
		if err != nil || start <= 0 || start > float64(c.searchMax) {
			return artifact.LoadSettings{}, nil, fmt.Errorf("--rate with --search is the rate the search starts from, one number above 0 and at most --search-max %d, got %q", c.searchMax, c.rate)
		}
		searchStart = start
		mode, list = "rate", strconv.Itoa(c.searchMax) // the levels the server is sized for
	case c.search:
		list = strconv.Itoa(c.searchMax) // the levels the server is sized for
	case c.rate != "":
		mode, list = "rate", c.rate
	case list == "":
		list = "1,2,4"
	}
	levels := []float64{c.replay.traceSpeed}
	if c.tr == nil {
		var err error
		if levels, err = parseLevels(list, mode == "concurrency"); err != nil {
			return artifact.LoadSettings{}, nil, fmt.Errorf("--%s: %w", mode, err)
		}
	}
	if _, err := load.ParseArrival(c.arrival); err != nil {
		return artifact.LoadSettings{}, nil, fmt.Errorf("--arrival: %w", err)
	}
	// A level whose every request is warm-up measures nothing, and its
	// verdict would be "missed" over no request.
	switch perLevel := c.requests * c.turns; {
	case c.tr != nil && c.warmup >= c.tr.Requests:
		return artifact.LoadSettings{}, nil, fmt.Errorf("--warmup %d leaves no request to measure: the trace's window holds %d; give fewer",
			c.warmup, c.tr.Requests)
	case c.tr == nil && c.warmup >= perLevel:
		return artifact.LoadSettings{}, nil, fmt.Errorf("--warmup %d leaves no request to measure: a level makes %d (--requests %d × --turns %d); give fewer, or more --requests",
			c.warmup, perLevel, c.requests, c.turns)
	case c.warmupFor > 0 && c.duration > 0 && c.warmupFor >= c.duration:
		return artifact.LoadSettings{}, nil, fmt.Errorf("--warmup %s leaves no request to measure: a level starts calls for --duration %s", c.warmupFor, c.duration)
	}
	slos := c.slos
	switch perLevel := c.requests * c.turns; {
	case c.untilDecided && len(slos) == 0:
		return artifact.LoadSettings{}, nil, fmt.Errorf("--until-decided runs each level until its SLO verdicts are decided: set them with --slo METRIC<=MS@pNN (e.g. --slo first_sentence_ms<=800@p95)")
	case c.untilDecided && c.searchBudget > 0:
		return artifact.LoadSettings{}, nil, fmt.Errorf("--until-decided gives each level the rounds its verdicts need within --budget: drop --search-budget, the fixed confirmation of a search without it")
	case !c.untilDecided && c.budgetGiven:
		return artifact.LoadSettings{}, nil, fmt.Errorf("--budget is the budget of each level run --until-decided: add --until-decided, or drop --budget")
	case c.untilDecided && c.budgetRequests > 0 && c.budgetRequests < perLevel:
		return artifact.LoadSettings{}, nil, fmt.Errorf("--budget %d requests is below a level's first round of %d (--requests %d × --turns %d): give at least %d",
			c.budgetRequests, perLevel, c.requests, c.turns, perLevel)
	}
	if len(slos) == 0 {
		slos = []string{"first_sentence_ms<=800@p95"}
		if c.sessions() {
			slos = []string{realtimeSLO}
		}
	}
	// A turn the caller speaks is measured to the moment the caller
	// hears the answer (mouth to ear): --stt needs the answers spoken.
	if c.flags.stt.on() && c.flags.tts.url == "" {
		return artifact.LoadSettings{}, nil, fmt.Errorf("--stt measures each turn from the caller's speech to the answer's first audio (mouth to ear): " +
			"add --tts URL (a server of /v1/audio/speech) or --tts default (espeak-ng)")
	}
	var sloList []artifact.SLO
	for _, s := range slos {
		slo, _ := parseSLO(s)
		if c.sessions() {
			if !slices.Contains(realtimeSLOMetrics, slo.Metric) {
				return artifact.LoadSettings{}, nil, fmt.Errorf("--slo %q: a speech-to-speech session has no %s (no LLM stream is seen); with --realtime the metrics are %s",
					s, slo.Metric, strings.Join(realtimeSLOMetrics, ", "))
			}
			sloList = append(sloList, slo)
			continue
		}
		if m := slo.Metric; (m == "first_audio_ms" || m == "underrun_ms") && c.flags.tts.url == "" {
			return artifact.LoadSettings{}, nil, fmt.Errorf("--slo %q needs answers spoken: add --tts URL (a server of /v1/audio/speech) or --tts default (espeak-ng)", s)
		}
		if m := slo.Metric; (m == "mouth_to_ear_ms" || m == "stt_final_ms" || m == "endpointing_ms") && !c.flags.stt.on() {
			return artifact.LoadSettings{}, nil, fmt.Errorf("--slo %q needs the callers' turns spoken: add --stt URL (a speech-to-text server) or --stt default (pocketsphinx), with --tts", s)
		}
		sloList = append(sloList, slo)
	}
	set := artifact.LoadSettings{Mode: mode, Levels: levels, Arrival: c.arrival, Seed: c.seed, Calls: c.requests,
		Requests: c.requests * c.turns, DurationMs: msFlag(c.duration), Turns: c.turns, ThinkMs: msFlag(c.think),
		Docs: c.docs, MaxTokens: c.maxTokens, Warmup: c.warmup, WarmupMs: msFlag(c.warmupFor), SLO: sloList}
	if c.docs > 0 {
		set.KB = c.flags.kb
	}
	set.Ramp, set.SteadyStart = c.rampRecord(), c.replay.steadyStart
	if c.tr != nil {
		rec, err := c.traceRecord(c.tr)
		if err != nil {
			return artifact.LoadSettings{}, nil, err
		}
		// The trace sets the calls, their turns and their pauses; a turn
		// without output tokens is answered up to --max-tokens.
		set.Trace, set.Calls, set.Requests, set.Turns, set.ThinkMs, set.DurationMs = rec, rec.Calls, rec.Requests, mostTurns(c.tr), 0, 0
	}
	if c.untilDecided {
		set.UntilDecided = &artifact.UntilDecided{BudgetRequests: c.budgetRequests, BudgetMs: msFlag(c.budgetFor)}
	}
	budget := 0
	if c.search {
		budget = c.searchBudget
		if budget == 0 {
			budget = 4 * c.requests
		}
		if c.untilDecided {
			// Each level's rounds are run until decided: the search
			// confirms none on its own.
			budget = c.requests
		}
		if budget < c.requests {
			return artifact.LoadSettings{}, nil, fmt.Errorf("--search-budget %d is below --requests %d: a level's first round alone is that", budget, c.requests)
		}
		// A level's last round is what the budget leaves, and each round
		// leaves out its own warm-up: one left only warm-up measures
		// nothing and spends the budget.
		if rest := budget % c.requests; rest > 0 && rest*c.turns <= c.warmup {
			return artifact.LoadSettings{}, nil, fmt.Errorf("--search-budget %d leaves a last round of %d calls (%d requests), which --warmup %d would leave out whole: give a budget that is a multiple of --requests %d, or a smaller --warmup",
				budget, rest, rest*c.turns, c.warmup, c.requests)
		}
		// The search chooses the levels; levels is what the server is
		// sized for.
		set.Levels, set.SearchMax, set.SearchBudget = []float64{}, c.searchMax, budget
		if mode == "rate" {
			set.SearchStart = searchStart
		}
	}
	return set, levels, nil
}

func msFlag(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// assumedTokensPerS is the answering speed --rate's slot rule assumes: a
// small model on a few cores, so a real server is rather over- than
// under-provisioned.
const assumedTokensPerS = 25

// sizeServer gives a server that load starts --ctx per slot and, unless
// --slots was given, as many slots as the largest level of concurrency,
// with --rate slotsForRate's, with --trace --trace-max or traceSlots'.
func (c *loadCmd) sizeServer(fs *flagSet, levels []float64) {
	if !fs.given()["slots"] {
		most := 1.0
		for _, l := range levels {
			most = max(most, l)
		}
		switch {
		case c.tr != nil && c.replay.traceMax > 0:
			c.flags.start.slots = min(c.replay.traceMax, 1024)
		case c.tr != nil:
			c.flags.start.slots = traceSlots(c.tr, c.maxTokens)
		case c.rate != "":
			c.flags.start.slots = slotsForRate(most, c.turns, c.maxTokens, c.think, c.requests)
		default:
			c.flags.start.slots = int(most)
		}
	}
	c.flags.start.ctx *= c.flags.start.slots
	c.flags.start.extra = []string{"--metrics"} // requests deferred, tokens per second in server.jsonl
}

// slotsForRate is how many calls are in flight at rate calls per second
// (Little's law): rate times a call's length, each of its turns answering
// maxTokens at assumedTokensPerS and think between turns; rounded up, at
// least 1, at most the calls of a level and llama-server's 1024. With
// fewer slots the server queues the requests that arrive meanwhile, and a
// queued request receives nothing until a slot frees: past the idle
// timeout it fails.
func slotsForRate(rate float64, turns, maxTokens int, think time.Duration, calls int) int {
	answer := float64(maxTokens) / assumedTokensPerS
	call := float64(turns)*answer + float64(turns-1)*think.Seconds()
	n := int(math.Ceil(rate * call))
	return max(1, min(n, calls, 1024))
}

func parseLevels(s string, whole bool) ([]float64, error) {
	var out []float64
	for _, part := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(part), 64)
		switch {
		case err != nil:
			return nil, fmt.Errorf("%q is not a number (want a list such as 1,2,4,8)", part)
		case v <= 0 || (whole && v != float64(int(v))):
			return nil, fmt.Errorf("%q: want %s above zero", part, map[bool]string{true: "whole numbers", false: "numbers"}[whole])
		case len(out) > 0 && v <= out[len(out)-1]:
			return nil, fmt.Errorf("the levels must grow (%s)", s)
		}
		out = append(out, v)
	}
	return out, nil
}

// sloPattern is METRIC<=MS@pNN.
var sloPattern = regexp.MustCompile(`^(` + strings.Join(artifact.SLOMetrics, "|") + `)\s*<=\s*([0-9.]+)\s*(?:ms)?\s*@\s*p(\d{1,2}(?:\.\d+)?)$`)

// sloMetricHead is the name an --slo starts with.
var sloMetricHead = regexp.MustCompile(`^[A-Za-z_]\w*`)

// parseSLO reads one --slo.
func parseSLO(s string) (artifact.SLO, error) {
	m := sloPattern.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		hint := ""
		if name := sloMetricHead.FindString(strings.TrimSpace(s)); name != "" && !slices.Contains(artifact.SLOMetrics, name) {
			hint = fmt.Sprintf("no metric %q", name)
			if near := suggest.Nearest(name, artifact.SLOMetrics); near != "" {
				hint += fmt.Sprintf(" (did you mean %q?)", near)
			}
			hint += "; "
		}
		return artifact.SLO{}, fmt.Errorf("%q: %swant METRIC<=MS@pNN, e.g. first_sentence_ms<=800@p95 (metrics: ttft_ms, first_sentence_ms, total_ms; with --tts first_audio_ms, underrun_ms; with --stt and --tts mouth_to_ear_ms, stt_final_ms, endpointing_ms)", s, hint)
	}
	limit, err1 := strconv.ParseFloat(m[2], 64)
	p, err2 := strconv.ParseFloat(m[3], 64)
	if err1 != nil || err2 != nil || limit <= 0 || p <= 0 || p >= 100 {
		return artifact.SLO{}, fmt.Errorf("%q: want a limit above 0 ms and a percentile between 0 and 100", s)
	}
	return artifact.SLO{Metric: m[1], LimitMs: limit, Percentile: p, Text: strings.TrimSpace(s)}, nil
}
