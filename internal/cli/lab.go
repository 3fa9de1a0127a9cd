package cli

import (
	"context"
	"fmt"
	"os"
	"strings"

	"ttftlab/internal/report"
	"ttftlab/internal/rundir"
	"ttftlab/runtime"
	"ttftlab/scripts"
)

// labCmd is `ttftlab lab [flags] [-- STEP...]`.
type labCmd struct {
	env   *env
	flags labFlags
}

func newLab(e *env) runner { return &labCmd{env: e} }

// workingTreeLab is run instead of the built-in lab when it exists, so
// edits take effect without rebuilding.
const workingTreeLab = "scripts/lab.lua"

// labFlags are the flags of one lab run: lab's, and each side's of ab.
type labFlags struct {
	host      hostFlags
	keepGoing bool
	noReport  bool
	repeat    int
}

func (l *labFlags) register(fs *flagSet) {
	l.host.register(fs)
	l.host.registerSynth(fs)
	l.host.registerRealtime(fs)
	fs.BoolVar(&l.keepGoing, "keep-going", true, "after a failed step, run the steps that do not depend on it (false: stop at the first failure)")
	fs.BoolVar(&l.noReport, "no-report", false, "do not draw OUT/"+report.FileName+" at the end")
	registerRepeat(fs, &l.repeat)
}

// script is the lab's run of steps (none: all): scripts/lab.lua from the
// working tree when it exists, else the copy built into ttftlab.
func (l *labFlags) script(steps []string) script {
	s := script{flags: l.host, need: serverOrSynth, args: steps, stopOnFailure: !l.keepGoing, preflight: true, repeat: l.repeat}
	if _, err := os.Stat(workingTreeLab); err == nil {
		s.exec = func(vm *runtime.VM) error { return vm.RunFile(workingTreeLab) }
	} else {
		s.exec = func(vm *runtime.VM) error { return vm.RunFS(scripts.FS, "lab.lua") }
	}
	return s
}

// labStepsAbout says how a lab's steps are chosen, for the usage.
func labStepsAbout() string {
	return "Runs scripts/lab.lua from the working tree when it exists, else the copy built into ttftlab.\n" +
		"STEP names (" + strings.Join(scripts.LabSteps(), ", ") + ") run only those steps."
}

func (c *labCmd) Run(ctx context.Context, args []string) error {
	fs := c.env.flags("[flags] [-- STEP...]", labStepsAbout())
	fs.elsewhere = map[string]string{"until-decided": "one lab has no verdict to decide; " +
		"`ttftlab ab --until-decided --a FLAGS --b FLAGS` runs two set-ups until every A/B verdict is decided"}
	c.flags.register(fs)
	var runs int
	registerRuns(fs, &runs)
	if err := fs.parse(args); err != nil {
		return err
	}
	if err := c.flags.host.check(fs); err != nil {
		return err
	}
	s := c.flags.script(fs.Args())
	s.runs = &runsPlan{n: runs, kind: rundir.KindLab, table: true}
	if !c.flags.noReport {
		s.finish, s.runs.report = c.env.writeReport, c.env.writeReport
	}
	return c.env.runScript(ctx, s)
}

// writeReport draws the report of the run in out, unless the run was
// interrupted or wrote nothing, and prints its path.
func (e *env) writeReport(ctx context.Context, out, serverLog string) error {
	if ctx.Err() != nil {
		return nil
	}
	if _, err := rundir.Detect(out); err != nil {
		return nil
	}
	path, err := report.Write("", report.Meta{Version: buildVersion(), ServerLog: serverLog}, out)
	if err != nil {
		return err
	}
	if ctx.Err() != nil {
		// Interrupted while drawing: the command was stopped.
		return ctx.Err()
	}
	fmt.Fprintf(e.Out, "HTML report: %s\n", path)
	return nil
}

// defaultRepeat is how many times each lab step repeats its measurement:
// six samples are the fewest whose median has a 95 % interval.
const defaultRepeat = 6

// registerRepeat adds --repeat to lab's (and ab's) flags.
func registerRepeat(fs *flagSet, n *int) {
	fs.intVar(n, "repeat", defaultRepeat, 1, 1000, "each step repeats its measurement this many times, "+
		"so its figures have enough samples for a median's 95 % interval (6 is the fewest)")
}
