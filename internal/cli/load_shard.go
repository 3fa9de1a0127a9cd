package cli

import (
	"context"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"ttftlab/internal/artifact"
	"ttftlab/internal/load"
)

// The environment a Kubernetes Indexed Job gives its pods (the index) and
// the variables its manifest sets for every shard (docs/distributed.md).
const (
	envShardIndex = "JOB_COMPLETION_INDEX"
	envShards     = "TTFTLAB_SHARDS"
	envRunID      = "TTFTLAB_RUN_ID"
	envStartAt    = "TTFTLAB_START_AT"
)

// shardFlags are load's flags for one shard of a run split over machines.
type shardFlags struct {
	shard, runID, startAt, barrier string
	levelGap                       time.Duration
}

func (s *shardFlags) register(fs *flagSet) {
	fs.StringVar(&s.shard, "shard", "", "run shard `I/N` (I from 0) of a run split over N machines: the calls numbered I+1, I+1+N, ... of the whole schedule "+
		"(default from $"+envShardIndex+" and $"+envShards+"); artifacts in OUT/shard-I; see docs/distributed.md")
	fs.StringVar(&s.runID, "run-id", os.Getenv(envRunID), "with --shard: the run's name, the same on every shard; it seeds the schedule (env "+envRunID+")")
	fs.StringVar(&s.startAt, "start-at", os.Getenv(envStartAt), "with --shard: when the first level starts on the wall clock, RFC 3339 (2026-12-01T20:00:00Z; env "+envStartAt+")")
	fs.StringVar(&s.barrier, "barrier", "", "with --shard, instead of --start-at: a `DIR` every shard can write (a shared volume); each shard writes "+
		"its ready file there and all start at the same whole second once the last one has")
	fs.durationVar(&s.levelGap, "level-gap", 10*time.Second, "with --shard: the pause between one level's --duration and the next level's start, for its last answers to end")
}

// shardPlan is a sharded run as the flags give it.
type shardPlan struct {
	load.Shard
	runID   string
	startAt time.Time // zero with a barrier until it has passed
	barrier string
	gap     time.Duration
	host    string
	// lease keeps this shard's ready file live while the shard runs, so
	// a shard that comes late still finds it (--barrier).
	lease *load.Lease
}

// runIDPattern keeps a run id usable as a file name.
var runIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// plan reads the shard flags and the environment: nil without a shard.
func (s *shardFlags) plan(fs *flagSet) (*shardPlan, error) {
	set := fs.given()
	spec := s.shard
	if spec == "" && os.Getenv(envShards) != "" {
		idx := os.Getenv(envShardIndex)
		if idx == "" {
			return nil, fmt.Errorf("$%s=%s is set but $%s is not: give --shard I/N", envShards, os.Getenv(envShards), envShardIndex)
		}
		spec = idx + "/" + os.Getenv(envShards)
	}
	if spec == "" {
		for _, name := range []string{"run-id", "start-at", "barrier", "level-gap"} {
			if set[name] {
				return nil, fmt.Errorf("--%s is for a sharded run: add --shard I/N", name)
			}
		}
		return nil, nil
	}
	p := &shardPlan{runID: s.runID, barrier: s.barrier, gap: s.levelGap}
	i, n, ok := strings.Cut(spec, "/")
	var err1, err2 error
	if ok {
		p.Index, err1 = strconv.Atoi(strings.TrimSpace(i))
		p.Count, err2 = strconv.Atoi(strings.TrimSpace(n))
	}
	if !ok || err1 != nil || err2 != nil || p.Count < 1 || p.Index < 0 || p.Index >= p.Count {
		return nil, fmt.Errorf("--shard %q: want I/N with N at least 1 and I from 0 to N-1, e.g. 0/4", spec)
	}
	switch {
	case p.runID == "":
		return nil, fmt.Errorf("a shard needs --run-id ID (or $%s), the same on every shard", envRunID)
	case !runIDPattern.MatchString(p.runID):
		return nil, fmt.Errorf("--run-id %q: want letters, digits, '.', '_' or '-', at most 64", p.runID)
	case s.startAt != "" && s.barrier != "":
		return nil, fmt.Errorf("give --start-at or --barrier, not both")
	case s.startAt == "" && s.barrier == "":
		return nil, fmt.Errorf("a shard needs --start-at TIME (RFC 3339, e.g. %s; or $%s) or --barrier DIR, so the shards start together",
			time.Now().UTC().Add(2*time.Minute).Truncate(time.Minute).Format(time.RFC3339), envStartAt)
	case s.startAt != "":
		t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(s.startAt))
		if err != nil {
			return nil, fmt.Errorf("--start-at %q: want RFC 3339, e.g. 2026-12-01T20:00:00Z", s.startAt)
		}
		p.startAt = t
	}
	if p.host, _ = os.Hostname(); p.host == "" {
		p.host = "unknown"
	}
	return p, nil
}

// refuseWithShard names what a shard of count cannot do with the load
// flags given and the levels they make. A replayed trace is one level,
// its length the trace's: it needs no --duration and has no second level
// to leave a gap before; its calls are dealt out as any level's.
func (c *loadCmd) refuseWithShard(fs *flagSet, levels []float64, count int) error {
	set := fs.given()
	switch {
	case c.search:
		return fmt.Errorf("--search chooses each level from the last one's verdict, which no shard knows alone: give the levels (--rate or --concurrency) with --shard")
	case c.untilDecided:
		return fmt.Errorf("--until-decided adds a level's rounds from its verdicts over every shard's requests, which no shard knows alone: give each level its --requests with --shard")
	case c.runs > 1:
		return fmt.Errorf("--runs with --shard: run the sharded run again with a new --run-id instead")
	case c.tr == nil && c.duration <= 0:
		return fmt.Errorf("a shard needs --duration (e.g. 60s): its levels are fixed on the wall clock, each --duration plus --level-gap after the one before")
	case c.warmup > 0:
		return fmt.Errorf("--warmup %d counts a machine's own first requests, which differ between shards: give a duration (--warmup 10s)", c.warmup)
	case c.flags.start.model != "" || set["model"]:
		return fmt.Errorf("a shard never starts a server: drop --model, start the one server all shards load, and give its --server")
	}
	if tr := c.tr; tr != nil {
		switch {
		case set["level-gap"]:
			return fmt.Errorf("--level-gap is the pause between levels, and a replayed trace is one level: drop --level-gap")
		case len(tr.Calls) < count:
			return fmt.Errorf("--trace %s keeps %d calls, fewer than the %d shards: shard I runs calls I+1, I+1+%d, ... of the trace, so some shard would run none; "+
				"give fewer shards or a wider window", c.replay.trace, len(tr.Calls), count, count)
		case c.replay.traceMax > 0 && c.replay.traceMax < count:
			return fmt.Errorf("--trace-max %d is below the %d shards: shard I holds places I, I+%d, ... of the calls at once, so some shard would hold none "+
				"and its calls never run; give --trace-max of at least %d, or 0 (no cap)", c.replay.traceMax, count, count, count)
		}
		return nil
	}
	if c.requests < count {
		return fmt.Errorf("--requests %d is below the %d shards: shard I runs calls I+1, I+1+%d, ... of each level, so some shard would run none; give at least %d",
			c.requests, count, count, count)
	}
	// Shard I holds places I, I+N, ... of a level's calls at once: below
	// N some shard holds none and its calls never run.
	if c.rate == "" {
		given := "--concurrency"
		if c.concurrency == "" {
			given = "the default --concurrency 1,2,4: its level"
		}
		for _, l := range levels {
			if l < float64(count) {
				return fmt.Errorf("%s %g is below the %d shards: shard I holds places I, I+%d, ... of a level's calls at once, so some shard would hold none and its calls never run; give --concurrency levels of at least %d, or --rate",
					given, l, count, count, count)
			}
		}
	}
	return nil
}

// seed is the seed every shard of the run draws the same schedule from:
// the run id's and --seed's.
func (p *shardPlan) seed(flagSeed int) int {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%d", p.runID, flagSeed)
	return int(h.Sum64() & (1<<53 - 1)) // exact as a Lua number
}

// apply sets the shard's settings: the run, the part, the gap between
// levels; start_at_unix_ms is set once the start is known (ready).
func (p *shardPlan) apply(set *artifact.LoadSettings) {
	set.RunID, set.Shard, set.LevelGapMs = p.runID, &artifact.LoadShard{Index: p.Index, Count: p.Count, Host: p.host}, msFlag(p.gap)
}

// barrierPoll is how often a shard looks for the others' ready files.
var barrierPoll = 100 * time.Millisecond

// ready fixes the start and sets it in set: --start-at's (a warning
// when it has passed), or with --barrier, once this shard's ready file is
// written and every other shard's is there, the whole second at least one
// second after the last ready file's time, the same for every shard since
// each reads the same files.
func (p *shardPlan) ready(ctx context.Context, set *artifact.LoadSettings, say func(string)) error {
	if err := p.wait(ctx, say); err != nil {
		return err
	}
	set.StartAtUnixMs = float64(p.startAt.UnixMicro()) / 1000
	return nil
}

func (p *shardPlan) wait(ctx context.Context, say func(string)) error {
	if p.barrier == "" {
		if late := time.Since(p.startAt); late > time.Second {
			say(fmt.Sprintf("warning: --start-at %s passed %s ago: this shard starts its first level now, and shards that started on time are %s ahead of it",
				p.startAt.UTC().Format(time.RFC3339), late.Round(time.Second), late.Round(time.Second)))
		}
		return nil
	}
	b := load.Barrier{Dir: filepath.Join(p.barrier, p.runID), Index: p.Index, Count: p.Count, Poll: barrierPoll, Host: p.host}
	b.Ready = func() {
		say(fmt.Sprintf("shard %d of %d: ready; waiting in %s for the other shards", p.Index, p.Count, b.Dir))
	}
	start, lease, err := b.Wait(ctx, func(missing []int, stale []string) {
		line := fmt.Sprintf("shard %d of %d: still waiting for shard(s) %s in %s", p.Index, p.Count, intList(missing), b.Dir)
		for _, s := range stale {
			line += "\n  " + s
		}
		say(line)
	})
	if err != nil {
		return fmt.Errorf("--barrier %s: %w", p.barrier, err)
	}
	p.startAt, p.lease = start, lease
	return nil
}

// release ends the shard's hold on its ready file (its run has ended).
func (p *shardPlan) release() { p.lease.Release() }

func intList(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}
