package cli

import (
	"fmt"
	"io"

	"ttftlab/internal/check"
)

func cmdCheck(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("check", "ttftlab check OUT_DIR [--server-log FILE]", stderr)
	serverLog := fs.String("server-log", "", "llama-server's log file: require `cancel task` in it")
	if err := fs.Parse(args); err != nil {
		return parseErrCode(err)
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "ttftlab check: missing OUT_DIR")
		fs.Usage()
		return 2
	}
	dir := fs.Arg(0)
	// Accept the flag after the folder too.
	if err := fs.Parse(fs.Args()[1:]); err != nil {
		return parseErrCode(err)
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "ttftlab check: unexpected arguments %q\n", fs.Args())
		return 2
	}
	_, failed := check.Run(dir, *serverLog, stdout)
	if failed > 0 {
		return 1
	}
	return 0
}
