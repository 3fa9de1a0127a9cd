package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"ttftlab/internal/artifact"
	"ttftlab/internal/endpoint"
	"ttftlab/internal/interleave"
	"ttftlab/internal/interval"
	"ttftlab/internal/llamaserver"
	"ttftlab/internal/report"
	"ttftlab/internal/rundir"
	"ttftlab/runtime"
	"ttftlab/scripts"
)

// abCmd is `ttftlab ab [flags] --a 'FLAGS' --b 'FLAGS' [-- STEP...]`: the
// lab of two set-ups in one run, their repetitions taking turns A B B A
// (internal/interleave), then B against A.
type abCmd struct{ env *env }

func newAB(e *env) runner { return &abCmd{env: e} }

// abSide is one set-up: its lab flags (the common ones, then its own),
// its console (each line prefixed with its name), its folder.
type abSide struct {
	side  interleave.Side
	words string
	flags labFlags
	env   *env
	out   string
	// flush writes the side's last line that did not end.
	flush func()
}

func (c *abCmd) Run(ctx context.Context, args []string) error {
	synopsis := "[flags] --a 'FLAGS' --b 'FLAGS' [-- STEP...]"
	about := "Runs the lab twice, set-up A and set-up B, taking turns: each step's repetitions alternate\n" +
		"A B B A, so drift falls on both alike. Every flag applies to both; --a and --b are each lab flags\n" +
		"(quoted as a shell quotes) applied over them for that side alone, e.g. --a '--kb small' --b '--kb large'.\n" +
		"Writes OUT/A and OUT/B (lab folders), OUT/" + artifact.CompareFile + " and OUT/" + report.FileName +
		", and prints the verdicts of B against A.\n" + labStepsAbout()
	// The common flags are checked once more in each side's: what the
	// check says (an API key's source) is said there.
	quiet := *c.env
	quiet.Err = io.Discard
	fs := quiet.flags(synopsis, about)
	fs.elsewhere = map[string]string{"runs": "ab runs each set-up once, interleaved; " +
		"--repeat N gives each step more repetitions, --until-decided adds rounds until every verdict is decided"}
	var common labFlags
	common.register(fs)
	fs.Lookup("no-report").Usage = "do not draw OUT/A/" + report.FileName + " and OUT/B/" + report.FileName +
		" (the comparison's OUT/" + report.FileName + " is always drawn)"
	words := registerSides(fs)
	seed := fs.Uint64("seed", report.DefaultSeed, "the bootstrap's `seed` for the verdicts' intervals (recorded in "+artifact.CompareFile+")")
	untilFlag, budget := registerUntil(fs)
	if err := fs.parse(args); err != nil {
		return err
	}
	var until *untilPlan
	if *untilFlag {
		var err error
		if until, err = parseBudget(*budget); err != nil {
			return fs.usageErrf("--budget %q: %v", *budget, err)
		}
		until.meta = report.Meta{Version: buildVersion(), Seed: *seed, Interleaved: true}
	} else if fs.set("budget") {
		return fs.usageErrf("--budget bounds --until-decided's rounds: give --until-decided too")
	}
	if err := common.host.check(fs); err != nil {
		return err
	}
	out, err := checkOut(common.host.out)
	if err != nil {
		return err
	}
	var mu sync.Mutex
	sides := make([]*abSide, 2)
	for i, side := range []interleave.Side{interleave.A, interleave.B} {
		w, err := fs.sideWords(side, *words[i])
		if err != nil {
			return err
		}
		s := &abSide{side: side, words: *words[i], out: filepath.Join(out, side.String())}
		s.env, s.flush = c.env.prefixed(side.String()+" | ", &mu)
		defer s.flush()
		if err := s.parse(synopsis, args, w); err != nil {
			return err
		}
		sides[i] = s
	}
	if err := ownServers(sides[0], sides[1], synopsis, args); err != nil {
		return err
	}
	c.env.signals.describe("stopping both sides' scripts and closing open streams")
	errs, logs, err := c.run(ctx, sides, fs.Args(), until)
	if err != nil {
		return err
	}
	return c.finish(ctx, sides, errs, logs, out, *seed)
}

// registerSides adds --a and --b.
func registerSides(fs *flagSet) [2]*string {
	return [2]*string{
		fs.String("a", "", "set-up A's own lab `FLAGS`, over the common ones, as one argument: --a '--kb docs/small --model a.gguf'"),
		fs.String("b", "", "set-up B's own lab `FLAGS`, over the common ones, as one argument: --b '--kb docs/large'"),
	}
}

// sideWords splits a side's flags and refuses what only both sides may
// set: steps, --out, --seed, --a, --b.
func (f *flagSet) sideWords(side interleave.Side, words string) ([]string, error) {
	name := "--" + strings.ToLower(side.String())
	w, err := splitFlags(words)
	if err != nil {
		return nil, f.usageErrf("%s %q: %v", name, shownWords(words), err)
	}
	// The side's words alone, in a flag set without the flags of both.
	alone := f.env.flags(f.synopsis, "")
	alone.elsewhere = map[string]string{}
	for name, where := range f.elsewhere {
		alone.elsewhere[name] = where
	}
	for _, both := range []string{"seed", "until-decided", "budget"} {
		alone.elsewhere[both] = "--" + both + " is one for both set-ups: give it among the common flags, outside --a and --b"
	}
	for _, side := range []string{"a", "b"} {
		alone.elsewhere[side] = "--a and --b stand among the common flags, each once, not inside a set-up's own flags"
	}
	var l labFlags
	l.register(alone)
	if err := alone.parse(w); err != nil {
		var u *usageError
		if errors.As(err, &u) {
			err = u.err
		}
		return nil, f.usageErrf("%s %q: %v", name, shownWords(words), err)
	}
	if alone.NArg() > 0 {
		return nil, f.usageErrf("%s %q: %q is not a flag (steps go after -- and run on both sides)", name, shownWords(words), alone.Arg(0))
	}
	var both error
	alone.Visit(func(fl *flag.Flag) {
		if fl.Name == "out" {
			both = f.usageErrf("%s %q: --out is both sides' folder (A writes OUT/A, B OUT/B)", name, shownWords(words))
		}
	})
	return w, both
}

// parse sets the side's flags: the command line's, with the side's own
// words right before its "--", so they win; then checks them.
func (s *abSide) parse(synopsis string, args, words []string) error {
	cut := len(args)
	for i, a := range args {
		if a == "--" {
			cut = i
			break
		}
	}
	all := append(append(append([]string{}, args[:cut]...), words...), args[cut:]...)
	fs := s.env.flags(synopsis, "")
	s.flags = labFlags{}
	s.flags.register(fs)
	registerSides(fs)
	fs.Uint64("seed", 0, "")
	registerUntil(fs)
	name := "--" + strings.ToLower(s.side.String())
	wrap := func(err error) error {
		var u *usageError
		if errors.As(err, &u) {
			u.err = fmt.Errorf("%s %q: %w", name, shownWords(s.words), u.err)
			return u
		}
		return fmt.Errorf("%s %q: %w", name, shownWords(s.words), err)
	}
	if err := fs.parse(all); err != nil {
		return wrap(err)
	}
	if err := s.flags.host.check(fs); err != nil {
		return wrap(err)
	}
	s.flags.host.out = s.out
	return nil
}

// ownServers gives B a server of its own when both sides would be served
// at one address by llama-servers started differently (another --model,
// --ctx, --synth-preset ...): B's then listens on a free local port, unless
// --b names its --server itself. Sides started alike share one server.
func ownServers(a, b *abSide, synopsis string, args []string) error {
	if a.flags.host.server != b.flags.host.server || startKey(a) == startKey(b) {
		return nil
	}
	w, _ := splitFlags(b.words)
	for _, x := range w {
		if name, _, _ := strings.Cut(strings.TrimLeft(x, "-"), "="); name == "server" && strings.HasPrefix(x, "-") {
			return fmt.Errorf("--a and --b both name %s, with llama-servers started differently: give each its own --server (another port)", b.flags.host.server)
		}
	}
	port, err := llamaserver.FreePort()
	if err != nil {
		return err
	}
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	if err := b.parse(synopsis, args, append(w, "--server", url)); err != nil {
		return err
	}
	fmt.Fprintf(b.env.Out, "set-up B starts a llama-server of its own, at %s\n", url)
	return nil
}

// registerUntil adds --until-decided and --budget.
func registerUntil(fs *flagSet) (*bool, *string) {
	return fs.Bool("until-decided", false, "after the lab, add rounds to the steps whose figures are not decided (each a run of those steps, "+
			"--repeat repetitions taking turns), until every figure is or --budget is spent; OUT/A and OUT/B then hold run-1 (the lab), run-2 ... (the rounds)"),
		fs.String("budget", "10m", "`DURATION or N` with --until-decided: no round starts after DURATION (e.g. 10m), "+
			"or past N repetitions a side beyond the lab (e.g. 40)")
}

// set says whether the flag name was given.
func (f *flagSet) set(name string) bool {
	given := false
	f.Visit(func(fl *flag.Flag) { given = given || fl.Name == name })
	return given
}

// startKey says how a side's llama-server would be started.
func startKey(s *abSide) string {
	return fmt.Sprintf("%+v %s", s.flags.host.start.options(), s.flags.host.synthPreset)
}

// running is one side's server, speech engine and settings while both run.
type running struct {
	lease *llamaserver.Lease
	log   string
	cfg   runtime.Config
	// stop stops the speech engine and the server the side started.
	stop func()
}

// run starts both sides' servers and runs their labs, taking turns, then
// (with until) the rounds that decide what the labs left undecided, and
// stops what it started. It returns each side's error and server log, or
// the error that kept them from starting.
func (c *abCmd) run(ctx context.Context, sides []*abSide, steps []string, until *untilPlan) (errs [2]error, logs [2]string, err error) {
	var up [2]*running
	defer func() {
		for i := 1; i >= 0; i-- {
			if up[i] != nil {
				up[i].stop()
			}
		}
	}()
	labs := make([]script, 2)
	for i, s := range sides {
		labs[i] = s.flags.script(steps)
		var share *llamaserver.Lease
		if i == 1 && s.flags.host.server == sides[0].flags.host.server && startKey(s) == startKey(sides[0]) {
			share = up[0].lease
		}
		if up[i], err = s.start(ctx, &labs[i], share); err != nil {
			return errs, logs, fmt.Errorf("set-up %s: %w", s.side, err)
		}
		logs[i] = up[i].log
	}
	dirs := []string{"."}
	if until != nil {
		dirs[0] = rundir.RunPrefix + "1"
	}
	errs = takeTurns(ctx, sides, up, labs, dirs[0], nil)
	if until != nil && errs[0] == nil && errs[1] == nil && ctx.Err() == nil {
		dirs, errs = c.untilDecided(ctx, sides, up, labs, until, dirs)
	}
	// Each side's runs.json and page once both have measured: drawing
	// would take the CPU from the other side's measurements.
	for i, s := range sides {
		if ctx.Err() != nil || !labDir(filepath.Join(s.out, dirs[0])) {
			continue
		}
		if err := s.env.poolRuns(s.out, dirs, &runsPlan{n: len(dirs), kind: rundir.KindLab}); err != nil && errs[i] == nil {
			errs[i] = err
		}
		if !s.flags.noReport {
			if err := s.env.writeReport(ctx, s.out, logs[i]); err != nil {
				fmt.Fprintf(s.env.Err, "%s: %v\n", label(s.env.cmd), err)
			}
		}
	}
	return errs, logs, nil
}

// takeTurns runs both sides' labs at once, one at a time, each into dir of
// its folder, of the steps (nil: the labs' own).
func takeTurns(ctx context.Context, sides []*abSide, up [2]*running, labs []script, dir string, steps []string) (errs [2]error) {
	turns := interleave.New(scripts.LabSteps())
	var wg sync.WaitGroup
	for i, s := range sides {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer turns.End(s.side)
			if err := turns.Start(ctx, s.side); err != nil {
				errs[i] = err
				return
			}
			sc, cfg := labs[i], up[i].cfg
			if steps != nil {
				sc.args = steps
			}
			cfg.Out = filepath.Join(s.out, dir)
			sc.turn = func(step string) error { return turns.Take(ctx, s.side, step) }
			errs[i] = s.env.execScript(ctx, sc, cfg)
		}()
	}
	wg.Wait()
	return errs
}

// start makes sure of the side's server (share: the other side's, started
// alike, which this side uses too) and speech engine, and says what its VM
// runs with.
func (s *abSide) start(ctx context.Context, sc *script, share *llamaserver.Lease) (*running, error) {
	needs, err := s.env.execScriptNeeds(ctx, *sc, runtime.Config{Out: s.out, ServerLog: sc.flags.serverLog, Preflight: true})
	if err != nil {
		return nil, err
	}
	if needs.TTS && sc.flags.tts.url == "" {
		sc.flags.tts.url, sc.flags.tts.implied = ttsDefault, true
	}
	if needs.STT && sc.flags.stt.url == "" {
		sc.flags.stt.url, sc.flags.stt.implied = sttDefault, true
	}
	r := &running{lease: share, stop: func() {}}
	if share == nil {
		if r.lease, err = s.env.lease(ctx, &sc.flags, sc.need); err != nil {
			return nil, err
		}
		r.stop = func() { s.env.release(r.lease, &sc.flags) }
	}
	r.log = serverLog(r.lease, &sc.flags)
	kind := s.env.serverKind(ctx, r.lease)
	speech, stopSpeech, err := sc.flags.tts.start(ctx, r.lease.Endpoint, s.env.Out, s.env.Err)
	if err != nil {
		r.stop()
		return nil, err
	}
	caller, stopCaller, err := sc.flags.stt.start(ctx, r.lease.Endpoint, s.env.Out, s.env.Err)
	if err != nil {
		stopSpeech()
		r.stop()
		return nil, err
	}
	rt, err := sc.flags.realtime.start(ctx, r.lease.Endpoint, sc.flags.stt.voice, s.env.Err)
	if err != nil {
		stopCaller()
		stopSpeech()
		r.stop()
		return nil, err
	}
	release := r.stop
	r.stop = func() { stopCaller(); stopSpeech(); release() }
	r.cfg = runtime.Config{Out: s.out, ServerLog: r.log, Endpoint: r.lease.Endpoint, Kind: kind, TTS: speech, STT: caller, Realtime: rt,
		NotLLM: r.lease.NotLLM()}
	return r, nil
}

// finish draws the comparison, prints the verdicts first and then where
// everything is, and returns the command's error: a side's failed step
// (exit 1), or what stopped a side.
func (c *abCmd) finish(ctx context.Context, sides []*abSide, errs [2]error, logs [2]string, out string, seed uint64) error {
	for _, s := range sides {
		s.flush()
	}
	var compared error
	drawn := false
	if ctx.Err() == nil && labDir(sides[0].out) && labDir(sides[1].out) {
		d, err := drawCompare(out, report.Meta{Version: buildVersion(), Seed: seed, Interleaved: true}, sides[0].out, sides[1].out)
		if err == nil && ctx.Err() == nil {
			fmt.Fprintln(c.env.Out)
			if err = report.FormatVerdicts(c.env.Out, d.Compare); err == nil {
				drawn = true
			}
		}
		compared = err
	}
	fmt.Fprintln(c.env.Out)
	for i, s := range sides {
		verify := invokedAs() + " check " + s.out
		if logs[i] != "" {
			verify += " --server-log " + logs[i]
		}
		fmt.Fprintf(c.env.Out, "%s: %s (verify with: %s)\n", s.side, s.out, verify)
	}
	if drawn {
		fmt.Fprintf(c.env.Out, "verdicts: %s\nHTML report: %s\n", filepath.Join(out, artifact.CompareFile), filepath.Join(out, report.FileName))
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var msgs []string
	for i, s := range sides {
		if errs[i] == nil {
			continue
		}
		if failedRun(errs[i]) {
			msgs = append(msgs, fmt.Sprintf("set-up %s: %s failed (%s check %s says why)", s.side, failedSteps(s.out), invokedAs(), s.out))
			continue
		}
		msgs = append(msgs, fmt.Sprintf("set-up %s: %v", s.side, errs[i]))
	}
	if compared != nil {
		msgs = append(msgs, "comparing B with A: "+compared.Error())
	}
	if len(msgs) > 0 {
		return errors.New(strings.Join(msgs, "; "))
	}
	return nil
}

// untilPlan is --until-decided with its --budget: a time, or a count of
// repetitions a side.
type untilPlan struct {
	time time.Duration
	reps int
	meta report.Meta
}

// parseBudget reads --budget: a duration, or a whole number of repetitions.
func parseBudget(v string) (*untilPlan, error) {
	if n, err := strconv.Atoi(v); err == nil {
		if n < 1 {
			return nil, errors.New("a count of repetitions is 1 or more")
		}
		return &untilPlan{reps: n}, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return nil, errors.New("want a duration (10m, 90s) or a count of repetitions a side (40)")
	}
	return &untilPlan{time: d}, nil
}

// untilDecided adds rounds, each into run-K of both folders, of the steps
// whose figures the comparison of the runs so far leaves undecided, until
// none is or the budget is spent, then says which were not decided. It
// returns the runs and the sides' errors of the last round.
func (c *abCmd) untilDecided(ctx context.Context, sides []*abSide, up [2]*running, labs []script, plan *untilPlan, dirs []string) ([]string, [2]error) {
	begun, used := time.Now(), 0
	name := label(c.env.cmd)
	for {
		var errs [2]error
		for i, s := range sides {
			errs[i] = s.env.poolRuns(s.out, dirs, &runsPlan{n: len(dirs), kind: rundir.KindLab})
		}
		if errs[0] != nil || errs[1] != nil {
			return dirs, errs
		}
		d, err := drawCompare(filepath.Dir(sides[0].out), plan.meta, sides[0].out, sides[1].out)
		if err != nil {
			// The comparison at the end says it again, and fails the command.
			fmt.Fprintf(c.env.Err, "%s: no more rounds: comparing B with A: %v\n", name, err)
			return dirs, errs
		}
		open := undecided(d.Compare)
		if len(open) == 0 {
			fmt.Fprintf(c.env.Err, "%s: every figure decided after %d round(s) beyond the lab\n", name, len(dirs)-1)
			return dirs, [2]error{}
		}
		steps := stepsOf(open, filepath.Join(sides[0].out, dirs[0]))
		repeat := max(labs[0].repeat, labs[1].repeat)
		cost := repeat * len(steps)
		var over string
		switch {
		case len(steps) == 0:
			over = "no step measures them"
		case plan.reps > 0 && used+cost > plan.reps:
			over = fmt.Sprintf("the budget of %d repetitions a side beyond the lab is spent: %d used", plan.reps, used)
		case plan.time > 0 && time.Since(begun) >= plan.time:
			over = fmt.Sprintf("the budget of %s is spent", plan.time)
		}
		if over != "" {
			fmt.Fprintf(c.env.Err, "%s: not decided after %d round(s) beyond the lab (%s):\n", name, len(dirs)-1, over)
			for _, f := range open {
				fmt.Fprintf(c.env.Err, "  %s: %s\n", f.Name, moreToDecide(f, len(dirs), repeat))
			}
			return dirs, [2]error{}
		}
		dir := rundir.RunPrefix + strconv.Itoa(len(dirs)+1)
		names := make([]string, len(open))
		for i, f := range open {
			names[i] = f.Name
		}
		fmt.Fprintf(c.env.Err, "%s: round %d (%s): %s not decided; steps %s A B B A again\n",
			name, len(dirs), dir, strings.Join(names, ", "), strings.Join(steps, ", "))
		errs = takeTurns(ctx, sides, up, labs, dir, steps)
		used += cost
		if labDir(filepath.Join(sides[0].out, dir)) && labDir(filepath.Join(sides[1].out, dir)) {
			dirs = append(dirs, dir)
		}
		if errs[0] != nil || errs[1] != nil || ctx.Err() != nil {
			return dirs, errs
		}
	}
}

// undecided are the figures of c a round could still decide: too few
// samples, or no difference detected with fewer runs than would detect 5 %
// (or no count of them), but for a figure that is 0 in every sample of
// both (B is A exactly: no round would change it).
func undecided(c *artifact.Compare) []artifact.CompareFigure {
	var out []artifact.CompareFigure
	for _, f := range c.Figures {
		switch {
		case f.Verdict == string(interval.Undecided):
			out = append(out, f)
		case f.AllZero:
		case f.Verdict == string(interval.NoDifference) && (f.RunsFor5Pct == nil || min(c.RunsA, c.RunsB) < *f.RunsFor5Pct):
			out = append(out, f)
		}
	}
	return out
}

// moreToDecide says what would decide f after runs runs a side, each of
// repeat repetitions.
func moreToDecide(f artifact.CompareFigure, runs, repeat int) string {
	if f.Verdict == string(interval.NoDifference) && f.RunsFor5Pct != nil {
		more := *f.RunsFor5Pct - runs
		return fmt.Sprintf("no difference detected; about %d more round(s) (%d repetitions a side) would detect a 5 %% difference",
			more, more*repeat)
	}
	return f.Verdict + "; how many more rounds would decide it is not known"
}

// stepsOf are the lab's steps, in order, that measure the figures: the
// step a figure's samples say they are over ("cache step, ...") in the
// run in dir.
func stepsOf(figs []artifact.CompareFigure, dir string) []string {
	want := map[string]bool{}
	for _, s := range rundir.ReadLab(dir, "").Samples() {
		for _, f := range figs {
			if s.Name == f.Name {
				word, _, _ := strings.Cut(s.Over, " ")
				want[strings.TrimSuffix(word, ",")] = true
			}
		}
	}
	var steps []string
	for _, step := range scripts.LabSteps() {
		if want[step] {
			steps = append(steps, step)
		}
	}
	return steps
}

// drawCompare draws B against A: OUT/report.html and the verdicts in
// OUT/compare.json.
func drawCompare(out string, meta report.Meta, a, b string) (report.Drawn, error) {
	d, err := report.Draw(filepath.Join(out, report.FileName), meta, a, b)
	if err != nil {
		return d, err
	}
	if want := filepath.Join(out, artifact.CompareFile); d.ComparePath != want {
		// Draw puts the verdicts beside the page, named after it.
		if err := os.Rename(d.ComparePath, want); err != nil {
			return d, err
		}
		d.ComparePath = want
	}
	return d, nil
}

// labDir says whether dir holds a lab run.
func labDir(dir string) bool {
	k, err := rundir.Detect(dir)
	return err == nil && k == rundir.KindLab
}

// failedSteps names the steps steps.json in dir says failed.
func failedSteps(dir string) string {
	var doc artifact.Steps
	data, err := os.ReadFile(filepath.Join(dir, artifact.StepsFile))
	if err != nil || json.Unmarshal(data, &doc) != nil {
		return "a step"
	}
	var names []string
	for _, st := range doc.Steps {
		if st.Status == artifact.StepFailed {
			names = append(names, st.Name)
		}
	}
	switch len(names) {
	case 0:
		return "the lab (check fails its folder)"
	case 1:
		return "step " + names[0]
	}
	return "steps " + strings.Join(names, ", ")
}

// prefixed is a copy of e whose every line of output starts with prefix;
// mu keeps lines of the copies whole. flush writes a last line that did
// not end.
func (e *env) prefixed(prefix string, mu *sync.Mutex) (*env, func()) {
	out := &linePrefix{w: e.Out, prefix: prefix, mu: mu}
	errw := &linePrefix{w: e.Err, prefix: prefix, mu: mu}
	c := *e
	c.Out, c.Err = out, errw
	return &c, func() { out.flush(); errw.flush() }
}

// linePrefix writes each whole line it is given to w with prefix before it.
type linePrefix struct {
	w      io.Writer
	prefix string
	mu     *sync.Mutex
	part   []byte
}

func (l *linePrefix) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.part = append(l.part, p...)
	for {
		i := bytes.IndexByte(l.part, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := append([]byte(l.prefix), l.part[:i+1]...)
		l.part = l.part[i+1:]
		if _, err := l.w.Write(line); err != nil {
			return 0, err
		}
	}
}

func (l *linePrefix) flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.part) > 0 {
		l.w.Write(append(append([]byte(l.prefix), l.part...), '\n'))
		l.part = nil
	}
}

// splitFlags splits a side's flags into words as a POSIX shell does (the
// syntax of mvdan.cc/sh): blanks separate words, 'single' and "double"
// quotes and backslashes keep them together. Nothing is expanded: $, `
// and braces are refused (the shell that runs ttftlab expands them inside
// double quotes), and ~ and * stay as typed.
func splitFlags(s string) ([]string, error) {
	file, err := syntax.NewParser(syntax.Variant(syntax.LangPOSIX)).Parse(strings.NewReader(s), "")
	if err != nil {
		return nil, err
	}
	if len(file.Stmts) == 0 {
		return nil, nil
	}
	st := file.Stmts[0]
	call, ok := st.Cmd.(*syntax.CallExpr)
	if len(file.Stmts) > 1 || !ok || len(st.Redirs) > 0 || st.Background || st.Negated || st.Coprocess || len(call.Assigns) > 0 {
		return nil, errors.New("not a list of flags: quote the characters ; & | < > ( ) = and newlines a shell gives a meaning")
	}
	var words []string
	for _, w := range call.Args {
		var bad syntax.Node
		syntax.Walk(w, func(n syntax.Node) bool {
			switch n.(type) {
			case *syntax.ParamExp, *syntax.CmdSubst, *syntax.ArithmExp, *syntax.ProcSubst, *syntax.ExtGlob, *syntax.BraceExp:
				if bad == nil {
					bad = n
				}
			}
			return bad == nil
		})
		if bad != nil {
			return nil, fmt.Errorf("%s: nothing is expanded here; let the shell do it (double quotes around the value) or quote it", s[bad.Pos().Offset():bad.End().Offset()])
		}
		fields, err := expand.Fields(&expand.Config{}, w)
		if err != nil {
			return nil, err
		}
		if len(fields) != 1 {
			return nil, fmt.Errorf("%s: nothing is expanded here; quote it", s[w.Pos().Offset():w.End().Offset()])
		}
		words = append(words, fields[0])
	}
	return words, nil
}

// secretFlag matches an API key or a header given in a set-up's flags,
// with its value: --api-key KEY, --api-key=KEY, --header 'Name: value'.
var secretFlag = regexp.MustCompile(`(-{1,2}(?:api-key|header)(?:=|\s+))('[^']*'|"[^"]*"|\S+)`)

// shownWords is a set-up's flags as they may be shown in a message: the
// value of --api-key and of a secret header (endpoint.Secret) replaced by
// endpoint.Redacted, as every other place shows them. It works on the
// text as typed, so flags that do not split are shown safely too.
func shownWords(words string) string {
	return secretFlag.ReplaceAllStringFunc(words, func(m string) string {
		sub := secretFlag.FindStringSubmatch(m)
		flag, value := sub[1], strings.Trim(sub[2], `'"`)
		if strings.Contains(flag, "header") {
			name, _, ok := strings.Cut(value, ":")
			if ok && !endpoint.Secret(strings.TrimSpace(name)) {
				return m
			}
			if ok {
				return flag + "'" + strings.TrimSpace(name) + ": " + endpoint.Redacted + "'"
			}
		}
		return flag + endpoint.Redacted
	})
}
