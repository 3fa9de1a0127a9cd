package cli

import (
	"context"
	"os"

	"ttftlab/internal/check"
	"ttftlab/internal/rundir"
)

// checkCmd is `ttftlab check OUT_DIR [--server-log FILE]`.
type checkCmd struct{ env *env }

func newCheck(e *env) runner { return &checkCmd{env: e} }

func (c *checkCmd) Run(_ context.Context, args []string) error {
	fs := c.env.flags("OUT_DIR [--server-log FILE]",
		"Verifies a lab output folder: one line per check, then the count; exit 1 on any failure.\n"+
			"A load folder: load.json and requests.jsonl strict, its rows and levels agree, no level where\n"+
			"every request failed. A folder of repeated runs (--runs N): every run-1 ... run-N, and runs.json.")
	serverLog := fs.String("server-log", "", "llama-server's log `file`: require the cancel task line in it")
	if err := fs.parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return fs.usageErrf("missing OUT_DIR")
	}
	dir := fs.Arg(0)
	if fs.NArg() > 1 {
		return fs.usageErrf("unexpected arguments %q", fs.Args()[1:])
	}
	if shards := rundir.ShardDirs(dir); len(shards) > 0 {
		return shardsHint(&rundir.ShardsError{Dir: dir, Shards: shards})
	}
	f := check.Folder{Figures: runFigureNames}
	if _, err := os.Stat(dir); err == nil {
		f.Runs, f.RunsErr = rundir.RunDirs(dir)
	}
	if _, failed := check.RunFolder(dir, *serverLog, f, c.env.Out); failed > 0 {
		return exitCode(exitFailure)
	}
	return nil
}
