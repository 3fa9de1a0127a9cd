package cli

import (
	"fmt"
	"io"
	"time"
)

const serverUsage = `Usage:
  ttftlab server up --model FILE [--port 8080] [--host 127.0.0.1] [--ctx 4096] [--slots 1]
                    [--cache-ram 0] [--timeout 120s] [--llama-server PATH] [-- extra llama-server args]
  ttftlab server status [--port N]   exit 0 healthy, 1 down, 3 stale state (PID gone)
  ttftlab server log [--port N] [-n 50] [-f]
  ttftlab server down [--port N]
  ttftlab server install             install llama-server and print its path

State (PID, command line, URL, log) lives in $TTFTLAB_STATE, else $XDG_STATE_HOME/ttftlab,
else ~/.local/state/ttftlab; one server per port. Without --port, status, log and down
act on the only tracked server, or on port 8080.
`

func cmdServer(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, serverUsage)
		return 2
	}
	switch args[0] {
	case "up":
		return serverUp(args[1:], stdout, stderr)
	case "status":
		return serverStatus(args[1:], stdout, stderr)
	case "log":
		return serverLog(args[1:], stdout, stderr)
	case "down":
		return serverDown(args[1:], stdout, stderr)
	case "install":
		return serverInstall(args[1:], stdout, stderr)
	case "-h", "--help", "help":
		fmt.Fprint(stdout, serverUsage)
		return 0
	default:
		fmt.Fprintf(stderr, "ttftlab server: unknown command %q\n\n%s", args[0], serverUsage)
		return 2
	}
}

// progressPrinter reports model loading about once a second.
func progressPrinter(w io.Writer) func(time.Duration, string) {
	return func(d time.Duration, status string) {
		fmt.Fprintf(w, "  waiting for llama-server: %s (%.0f s)\n", status, d.Seconds())
	}
}
