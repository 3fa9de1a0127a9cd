// Command ttftlab measures how an LLM server streams its answer: time to
// first token, prefill, prompt cache, first sentence and cancellation, from
// Lua scripts run by a precisely timed host.
package cli

import (
	"fmt"
	"io"
)

// version is set at build time with -ldflags "-X main.version=..."; a plain
// build reports the module's VCS revision when Go recorded one.
var version = "dev"

const usageText = `ttftlab: measure how an LLM server streams its answer

Usage:
  ttftlab run SCRIPT [flags] [-- args]   run a Lua script
  ttftlab lab [flags] [-- args]          run the whole lab (scripts/lab.lua)
  ttftlab check OUT_DIR [--server-log FILE]
                                         verify a lab output folder
  ttftlab server up|status|log|down|install
                                         manage a local llama-server
  ttftlab model synth --out FILE [flags]  write a synthetic GGUF model
  ttftlab repl [flags] [-l SCRIPT]...    interactive Lua prompt (also: ttftlab on a terminal)
  ttftlab calibrate [flags]              measure ttftlab's own stamp precision
  ttftlab version                        print the version

Run 'ttftlab COMMAND -h' for a command's flags.
`

// run dispatches a command line and returns the process exit code.
func Main(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		if stdinIsTerminal() {
			return cmdRepl(nil, stdout, stderr)
		}
		fmt.Fprint(stderr, usageText)
		return 2
	}
	switch args[0] {
	case "run":
		return cmdRun(args[1:], stdout, stderr)
	case "lab":
		return cmdLab(args[1:], stdout, stderr)
	case "check":
		return cmdCheck(args[1:], stdout, stderr)
	case "server":
		return cmdServer(args[1:], stdout, stderr)
	case "model":
		return cmdModel(args[1:], stdout, stderr)
	case "repl":
		return cmdRepl(args[1:], stdout, stderr)
	case "calibrate":
		return cmdCalibrate(args[1:], stdout, stderr)
	case "version", "--version", "-version":
		fmt.Fprintln(stdout, "ttftlab", buildVersion())
		return 0
	case "help", "-h", "--help", "-help":
		fmt.Fprint(stdout, usageText)
		return 0
	default:
		fmt.Fprintf(stderr, "ttftlab: unknown command %q\n\n%s", args[0], usageText)
		return 2
	}
}
