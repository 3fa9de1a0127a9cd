// Command loadbench measures ttftlab's load engine (stream_many, the code
// `ttftlab load` runs) against a paced server of many streams, beside a
// Python asyncio client, the design of the peers' benchmark clients: one
// event loop, readline, a clock read after it.
//
//	loadbench serve --rate R --chunks C          serve paced streams, print the URL
//	loadbench run --streams N --rate R --chunks C [--contend P] [--python "python3 internal/bench/pyasync.py"]
//
// The server writes each content chunk with the CLOCK_MONOTONIC time of
// its write as its text, so any client knows when each chunk it reads was
// sent. A chunk's lateness is its arrival minus its send, minus the
// smallest such difference of the run (the fixed cost of the loopback and
// of reading the clock), so clocks that differ by a constant do not
// matter. run starts the server as a child process, runs ttftlab's
// stream_many in this process through a Lua VM (so its CPU time and heap
// are the engine's own), then the least Go client, then the Python
// client, and prints a table. LOADBENCH_CPUPROFILE=FILE writes a CPU
// profile of the stream_many part (go tool pprof).
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: loadbench serve|run [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "serve":
		err = serve(os.Args[2:])
	case "run":
		err = run(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q: want serve or run", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "loadbench:", err)
		os.Exit(1)
	}
}
