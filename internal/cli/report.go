package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"ttftlab/internal/report"
	"ttftlab/internal/rundir"
)

// reportCmd is `ttftlab report DIR... [--out FILE] [--seed N]`.
type reportCmd struct{ env *env }

func newReport(e *env) runner { return &reportCmd{env: e} }

func (c *reportCmd) Run(ctx context.Context, args []string) error {
	fs := c.env.flags("DIR [DIR_B] [--out FILE] [--server-log FILE] [--seed N]",
		"Draws one self-contained HTML page of a lab or load run folder (default DIR/report.html),\n"+
			"a folder of repeated runs (run-1 ... run-N) included, or, given two folders A and B,\n"+
			"the verdict on every figure, B/A with the bootstrap interval its verdict was made with (at its\n"+
			"Holm step's level, 95 % or more), then the two side by side\n"+
			"(default B/compare.html, the verdicts in compare.json beside it, and on standard output).")
	out := fs.String("out", "", "the HTML `file` to write")
	serverLog := fs.String("server-log", "", "llama-server's log `file` of the run, for check's cancel-task rule")
	seed := fs.Uint64("seed", report.DefaultSeed, "the bootstrap's `seed` for a comparison's intervals (recorded in compare.json)")
	if err := fs.parse(args); err != nil {
		return err
	}
	switch {
	case fs.NArg() == 0:
		return fs.usageErrf("missing DIR: the folder of a lab or load run")
	case fs.NArg() > 2:
		return fs.usageErrf("a report shows one run or compares two; got %d folders", fs.NArg())
	}
	d, err := report.Draw(*out, report.Meta{Version: buildVersion(), ServerLog: *serverLog, Seed: *seed}, fs.Args()...)
	if err != nil {
		return shardsHint(err)
	}
	if ctx.Err() != nil {
		// Interrupted while drawing: the page is whole (written at
		// once), but the command was stopped.
		return ctx.Err()
	}
	fmt.Fprintln(c.env.Out, d.Path)
	if d.Compare != nil {
		fmt.Fprintln(c.env.Out, d.ComparePath)
		return report.FormatVerdicts(c.env.Out, d.Compare)
	}
	return nil
}

// shardsHint adds to a folder of shard folders (rundir.ShardsError) how
// to make them one run.
func shardsHint(err error) error {
	var sh *rundir.ShardsError
	if !errors.As(err, &sh) {
		return err
	}
	return fmt.Errorf("%w: merge them into one (`ttftlab merge %s --out %s`) and pass that, or pass one shard's folder",
		err, sh.Dir, filepath.Join(sh.Dir, "merged"))
}
