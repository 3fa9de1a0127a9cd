package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"ttftlab/internal/artifact"
	"ttftlab/internal/atomicfile"
	"ttftlab/internal/figures"
	"ttftlab/internal/rundir"
	"ttftlab/runtime"
)

// runsPlan is --runs N of lab and load: the script runs N times against
// one server, into OUT/run-1 ... OUT/run-N (each a whole run folder, as a
// single run writes it), and OUT/runs.json pools the figures of the runs
// that finished (figures.Pool). One run (N = 1) writes into OUT itself
// and gets its runs.json too, over dirs ["."].
type runsPlan struct {
	n    int
	kind rundir.Kind
	// table prints the pooled figures at the end.
	table bool
	// after says whether a run that ended without an error failed all
	// the same (load: a level where every request failed, a CI gate); nil
	// when the script's exit says it (the lab exits 1 on a failed step).
	after func(dir string) error
	// report draws OUT's report once every run is done (nil: none).
	report func(ctx context.Context, out, serverLog string) error
}

// registerRuns adds --runs to a command's flags.
func registerRuns(fs *flagSet, n *int) {
	fs.intVar(n, "runs", 1, 1, 1000, "run it this many times against one server, into OUT/run-1 ... OUT/run-N, "+
		"and pool the figures of the runs in OUT/runs.json with their 95 % intervals")
}

// runFailure is a run that ended but failed (a lab step, a load level, a
// gate): the runs after it still run.
type runFailure struct {
	run int
	err error
}

// runRepeated runs s as plan says, on the server of cfg, and returns the
// command's error: an interruption's, else a failed run's (exit 1, or 3
// when every failure is a CI gate). runs.json pools every run that ended
// with a run folder, failed or not.
func (e *env) runRepeated(ctx context.Context, s script, plan *runsPlan, out, log string, cfg runtime.Config) error {
	if plan.n <= 1 {
		return e.runOnce(ctx, s, plan, out, log, cfg)
	}
	var done []string
	var failures []runFailure
	var stopErr error
	for i := 1; i <= plan.n; i++ {
		fmt.Fprintf(e.Err, "%s: run %d of %d\n", label(e.cmd), i, plan.n)
		dir := filepath.Join(out, rundir.RunPrefix+strconv.Itoa(i))
		c := cfg
		c.Out = dir
		err := e.execScript(ctx, s, c)
		var finishErr error
		if s.finish != nil {
			if finishErr = s.finish(ctx, dir, log); finishErr != nil && err != nil {
				fmt.Fprintf(e.Err, "%s: %v\n", label(e.cmd), finishErr)
				finishErr = nil
			}
		}
		if ctx.Err() != nil {
			stopErr = err
			if stopErr == nil {
				stopErr = ctx.Err()
			}
			fmt.Fprintf(e.Err, "%s: stopped in run %d of %d; runs.json pools the %d finished run(s), %s is kept as it stopped\n",
				label(e.cmd), i, plan.n, len(done), dir)
			break
		}
		if _, derr := rundir.Detect(dir); derr == nil {
			done = append(done, rundir.RunPrefix+strconv.Itoa(i))
		}
		if finishErr != nil {
			// The run measured; only its report failed: the next runs
			// still run.
			failures = append(failures, runFailure{i, finishErr})
		}
		if err == nil && plan.after != nil {
			err = plan.after(dir)
		} else if err != nil && !failedRun(err) {
			// Not a run that measured and failed (the script broke, the
			// server went away): the next runs would meet the same.
			failures = append(failures, runFailure{i, err})
			stopErr = err
			break
		}
		if err != nil {
			failures = append(failures, runFailure{i, err})
		}
	}
	if len(done) > 0 {
		if err := e.poolRuns(out, done, plan); err != nil {
			return err
		}
		fmt.Fprintf(e.Out, "%d run(s) in %s; verify them all with: %s check %s\n", len(done),
			filepath.Join(out, rundir.RunPrefix+"N"), invokedAs(), out)
	}
	if stopErr == nil && plan.report != nil {
		if err := plan.report(ctx, out, log); err != nil {
			fmt.Fprintf(e.Err, "%s: %v\n", label(e.cmd), err)
		}
	}
	if ctx.Err() != nil {
		return stopErr
	}
	return runsError(failures, plan.n, out)
}

// runOnce is one run into OUT: the script, its runs.json over dirs ["."]
// (before the report, which shows it), the run's report.
func (e *env) runOnce(ctx context.Context, s script, plan *runsPlan, out, log string, cfg runtime.Config) error {
	err := e.execScript(ctx, s, cfg)
	if ctx.Err() == nil {
		if _, derr := rundir.Detect(out); derr == nil {
			if perr := e.poolRuns(out, []string{"."}, plan); perr != nil && err == nil {
				err = perr
			}
		}
	}
	if s.finish != nil {
		if ferr := s.finish(ctx, out, log); ferr != nil {
			if err == nil {
				err = ferr
			} else {
				fmt.Fprintf(e.Err, "%s: %v\n", label(e.cmd), ferr)
			}
		}
	}
	if err == nil && ctx.Err() != nil {
		// Stopped after the script ended: the pooling and the report
		// were left out, so the command was interrupted all the same.
		err = ctx.Err()
	}
	if err == nil && plan.after != nil {
		err = plan.after(out)
	}
	return err
}

// failedRun says whether err is a run that measured and failed, so the
// next run still runs: a lab step (the lab exits 1), a load level where
// every request failed or a CI gate (plan.after's errors are all such).
func failedRun(err error) bool {
	var exit *runtime.ExitError
	return errors.As(err, &exit) && exit.Code == 1
}

// runsError is the command's error for the failed runs: exit 3 when every
// failure is a CI gate, else exit 1, each run named.
func runsError(failures []runFailure, n int, out string) error {
	if len(failures) == 0 {
		return nil
	}
	var msgs []string
	gatesOnly := true
	for _, f := range failures {
		var gate *gateError
		if !errors.As(f.err, &gate) {
			gatesOnly = false
		}
		msg := f.err.Error()
		if failedRun(f.err) {
			msg = fmt.Sprintf("a step failed (ttftlab check %s names it)", filepath.Join(out, rundir.RunPrefix+strconv.Itoa(f.run)))
		}
		msgs = append(msgs, fmt.Sprintf("run %d of %d: %s", f.run, n, msg))
	}
	if gatesOnly {
		return &gateError{msg: strings.Join(msgs, "; ")}
	}
	return errors.New(strings.Join(msgs, "; "))
}

// poolRuns writes OUT/runs.json over the run folders dirs (relative to
// out) and prints the pooled figures when the plan says so.
func (e *env) poolRuns(out string, dirs []string, plan *runsPlan) error {
	var runs [][]figures.Sample
	for _, d := range dirs {
		runs = append(runs, runSamples(plan.kind, filepath.Join(out, d)))
	}
	doc := artifact.Runs{Kind: string(plan.kind), Dirs: dirs, Figures: figures.Pool(runs)}
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return fmt.Errorf("writing %s: %w", artifact.RunsFile, err)
	}
	path := filepath.Join(out, artifact.RunsFile)
	if err := atomicfile.Write(path, append(data, '\n'), 0o644); err != nil {
		return err
	}
	if plan.table && len(doc.Figures) > 0 {
		if len(dirs) > 1 {
			fmt.Fprintf(e.Out, "\nfigures over %d runs with 95 %% intervals (%s):\n%s", len(dirs), path, figures.Table(doc.Figures))
			return nil
		}
		// Print the intervals that exist and one line for the figures
		// whose median has none, not a line of "too few samples" each.
		table, _ := figures.Bounded(doc.Figures)
		if table == "" {
			fmt.Fprintf(e.Out, "\nfigures over one run: too few samples for a 95 %% interval; all %d are in %s (%s)\n", len(doc.Figures), path, boundsMedians)
			return nil
		}
		fmt.Fprintf(e.Out, "\nfigures over one run with 95 %% intervals (%s):\n%s", path, table)
		fmt.Fprint(e.Out, unboundedMedians(doc.Figures))
	}
	return nil
}

// boundsMedians says what gives one run's medians their intervals.
const boundsMedians = "--repeat 6, the default, bounds each median; --runs N pools more"

// unboundedMedians is the line under one run's figures for those whose
// median has no interval (too few samples: a step run with --repeat
// below 6), or nothing.
func unboundedMedians(fs []artifact.Figure) string {
	n := 0
	for _, f := range fs {
		if f.P50CI == nil {
			n++
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%d figure(s) have too few samples in one run for their median's interval; all are in %s (%s)\n", n, artifact.RunsFile, boundsMedians)
}

// runSamples are the figures of the run in dir with their samples.
func runSamples(kind rundir.Kind, dir string) []figures.Sample {
	if kind == rundir.KindLoad {
		return rundir.ReadLoad(dir).Samples()
	}
	return rundir.ReadLab(dir, "").Samples()
}

// runFigureNames names the figures of the run in dir, for check's test
// of runs.json.
func runFigureNames(kind, dir string) []string {
	var names []string
	for _, s := range runSamples(rundir.Kind(kind), dir) {
		names = append(names, s.Name)
	}
	return names
}
