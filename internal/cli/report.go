package cli

import (
	"context"
	"fmt"

	"ttftlab/internal/report"
)

// reportCmd is `ttftlab report DIR... [--out FILE]`.
type reportCmd struct{ env *env }

func newReport(e *env) runner { return &reportCmd{env: e} }

func (c *reportCmd) Run(_ context.Context, args []string) error {
	fs := c.env.flags("DIR [DIR_B] [--out FILE] [--server-log FILE]",
		"Draws one self-contained HTML page of a lab or load run folder (default DIR/report.html),\n"+
			"or, given two folders A and B, the two side by side with B/A for every figure (default B/compare.html).")
	out := fs.String("out", "", "the HTML `file` to write")
	serverLog := fs.String("server-log", "", "llama-server's log `file` of the run, for check's cancel-task rule")
	if err := fs.parse(args); err != nil {
		return err
	}
	switch {
	case fs.NArg() == 0:
		return fs.usageErrf("missing DIR: the folder of a lab or load run")
	case fs.NArg() > 2:
		return fs.usageErrf("a report shows one run or compares two; got %d folders", fs.NArg())
	}
	path, err := report.Write(*out, report.Meta{Version: buildVersion(), ServerLog: *serverLog}, fs.Args()...)
	if err != nil {
		return err
	}
	fmt.Fprintln(c.env.Out, path)
	return nil
}
