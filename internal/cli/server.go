package cli

import (
	"flag"
	"fmt"

	"ttftlab/internal/llamaserver"
)

var serverCommands = &group{
	name:  "server",
	about: "ttftlab server: manage local llama-server processes",
	commands: []command{
		{"up", "--model FILE [flags] [-- extra llama-server args]", "start llama-server in the background", newServerUp},
		{"status", "[--port N]", "exit 0 healthy, 1 down, 3 stale state (PID gone)", newServerStatus},
		{"list", "", "every server ttftlab tracks, with its health", newServerList},
		{"log", "[--port N] [-n 50] [-f]", "print (and follow) a server's log", newServerLog},
		{"down", "[--port N]", "stop a server ttftlab started", newServerDown},
		{"install", "[--force]", "install llama-server and print its path", newServerInstall},
	},
	notes: `State (PID, command line, URL, log) lives in $TTFTLAB_STATE, else $XDG_STATE_HOME/ttftlab,
else ~/.local/state/ttftlab; one server per port. Without --port, status, log and down
act on the only tracked server, or on port 8080; status lists them all when
several are tracked.
`,
}

// parsePort adds --port to the flags of a command that acts on one
// recorded server, parses args (no positional ones), and returns the
// registry and the port: the flag when given, else the only tracked
// server, else 8080.
func parsePort(fs *flagSet, args []string) (*llamaserver.Registry, int, error) {
	port := fs.intFlag("port", 0, 0, 65535, "which server (default: the only one ttftlab tracks, else 8080)")
	if err := fs.parse(args); err != nil {
		return nil, 0, err
	}
	if err := noArgs(fs); err != nil {
		return nil, 0, err
	}
	reg, err := llamaserver.OpenRegistry()
	if err != nil {
		return nil, 0, err
	}
	if *port != 0 {
		return reg, *port, nil
	}
	return reg, reg.DefaultPort(), nil
}

// noArgs refuses positional arguments.
func noArgs(fs *flagSet) error {
	if fs.NArg() > 0 {
		return fs.usageErr(fmt.Errorf("unexpected arguments %q", fs.Args()))
	}
	return nil
}

// isSet says whether the named flag was given on the command line.
func (f *flagSet) isSet(name string) bool {
	set := false
	f.Visit(func(fl *flag.Flag) { set = set || fl.Name == name })
	return set
}
