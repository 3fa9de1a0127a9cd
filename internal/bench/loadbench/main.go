// Command loadbench measures ttftlab's load engine (stream_many, the code
// `ttftlab load` runs) against a paced server of many streams, beside the
// least Go client, the least clients that keep the kernel's receive stamps
// (kstamp-epoll, kstamp-uring: one thread, recvmsg with SO_TIMESTAMPNS
// through epoll or a multishot io_uring receive, nothing else), and the
// peers' designs in Python: a raw asyncio client (pyasync.py: one event
// loop, readline, a clock read after it) and an aiohttp client written as
// vLLM's `bench serve` reads a stream (pyaiohttp.py).
//
//	loadbench serve --rate R --chunks C          serve paced streams, print the URL
//	loadbench run --streams N --rate R --chunks C [--rounds 3] [--clients ttftlab,least,kstamp-epoll,kstamp-uring,asyncio,aiohttp] [--contend P] [--before OLD_LOADBENCH] [--server-procs 1]
//	loadbench client ttftlab|least|kstamp-epoll|kstamp-uring|ttftlab-heap URL STREAMS CHUNKS OUT_FILE
//
// The server writes each content chunk with the CLOCK_MONOTONIC time of
// its write as its text, so any client knows when each chunk it reads was
// sent. A chunk's lateness is its arrival minus its send, minus the
// smallest such difference of the run (the fixed cost of the loopback and
// of reading the clock), so clocks that differ by a constant do not
// matter. run starts the server as a child process (GOMAXPROCS 1 unless
// --server-procs says otherwise, so it keeps to one core), then runs every
// client as a process of its own, one after the other, --rounds times,
// alternating (round r starts with the r-th client). Each client times
// its own streaming phase with getrusage(RUSAGE_SELF), from just before
// its first request starts to just after its last stream ended, and
// writes it first in its output; wait4 gives the whole process's CPU time
// and peak RSS beside it, and the server (GET /report, before and after)
// its CPU time over it and how far its writes fell behind their plan: a server that
// cannot keep up sends fewer chunks a second than asked, and the client's
// figures are then for a lighter load than the row names. run prints one
// row per client run and, from one more ttftlab process, the heap a
// finished request holds.
// LOADBENCH_CPUPROFILE=FILE and LOADBENCH_MEMPROFILE=FILE make the ttftlab
// client write a CPU and an allocation profile of its streaming phase (go
// tool pprof).
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: loadbench serve|run|client [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "serve":
		err = serve(os.Args[2:])
	case "run":
		err = run(os.Args[2:])
	case "client":
		err = clientCmd(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q: want serve, run or client", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "loadbench:", err)
		os.Exit(1)
	}
}
