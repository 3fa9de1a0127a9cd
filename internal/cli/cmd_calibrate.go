package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"ttftlab/internal/calibrate"
)

const calibrateUsage = `ttftlab calibrate [--rate N] [--chunks N] [--burst] [--out FILE] [--stamps FILE] [--client NAME=COMMAND]...
       ttftlab calibrate --serve ADDR [--rate N] [--chunks N] [--burst] [--stamps FILE]

Measures how close ttftlab's arrival stamps are to the wire: a loopback
server sends llama-server-shaped chunks on a known schedule, stamping each
write with CLOCK_MONOTONIC, and ttftlab reads them through stream() with a
Lua on_chunk callback. Without --rate and --chunks it runs the standard
schedules (steady 10 to 20,000 chunks/s, and bursts). --serve runs only the
server, for other clients.`

// calibrateFlags are calibrate's command-line settings.
type calibrateFlags struct {
	rate                   float64
	chunks, burstSize      int
	burst, keep, inProcess bool
	out, stamps, serve     string
	firstRequest           int
	clients                []calibrate.Client
}

func (f *calibrateFlags) register(fs *flag.FlagSet) {
	fs.Float64Var(&f.rate, "rate", 0, "content chunks per second of a single schedule; 0 sends as fast as the socket takes them")
	fs.IntVar(&f.chunks, "chunks", 0, "content chunks of a single schedule (default: 3 s worth at --rate)")
	fs.BoolVar(&f.burst, "burst", false, "send --burst-size chunks per write, so they share a TCP segment")
	fs.IntVar(&f.burstSize, "burst-size", 50, "chunks per write with --burst")
	fs.BoolVar(&f.keep, "keep-chunks", true, "stream()'s keep_chunks for ttftlab's client (false: memory stays flat)")
	fs.StringVar(&f.out, "out", filepath.Join(envOr("TTFTLAB_OUT", "./out"), "calibrate.json"), "JSON report, written atomically")
	fs.StringVar(&f.stamps, "stamps", "", "file the server appends its send stamps to (request, chunk, CLOCK_MONOTONIC ns)")
	fs.Func("client", "`NAME=COMMAND`: another client to compare (repeatable), run as COMMAND URL ARRIVALS_FILE, e.g. python=\"python3 bench/pyclient.py\"", func(s string) error {
		c, err := calibrate.ParseClient(s)
		f.clients = append(f.clients, c)
		return err
	})
	fs.BoolVar(&f.inProcess, "in-process", false, "run the server inside this process (its CPU time and allocations then count as ttftlab's)")
	fs.StringVar(&f.serve, "serve", "", "only serve the schedule on `ADDR` (e.g. 127.0.0.1:8099) until interrupted")
	fs.IntVar(&f.firstRequest, "first-request", 1, "with --serve: number of the first request in the stamps file")
}

// schedules turns the flags into the schedules to run.
func (f *calibrateFlags) schedules(fs *flag.FlagSet) []calibrate.Schedule {
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	if !set["rate"] && !set["chunks"] && !set["burst"] && f.serve == "" {
		return calibrate.Defaults()
	}
	s := calibrate.Schedule{Rate: f.rate, Chunks: f.chunks, Burst: 1}
	if !set["rate"] && !set["chunks"] {
		s.Rate = 1000 // --serve or --burst alone
	}
	if s.Chunks == 0 {
		s.Chunks = max(int(s.Rate*3), 10)
		if s.Rate == 0 {
			s.Chunks = 100000
		}
	}
	if f.burst {
		s.Burst = f.burstSize
	}
	return []calibrate.Schedule{s}
}

func cmdCalibrate(args []string, stdout, stderr io.Writer) int {
	var f calibrateFlags
	fs := newFlagSet("calibrate", calibrateUsage, stderr)
	f.register(fs)
	if err := fs.Parse(args); err != nil {
		return parseErrCode(err)
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "ttftlab calibrate: unexpected arguments %q\n", fs.Args())
		return 2
	}
	schedules := f.schedules(fs)
	for _, s := range schedules {
		if err := s.Validate(); err != nil {
			fmt.Fprintf(stderr, "ttftlab calibrate: %v\n", err)
			return 2
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if f.serve != "" {
		return serveCalibration(ctx, f, schedules[0], stdout, stderr)
	}
	return runCalibration(ctx, f, schedules, stdout, stderr)
}

func runCalibration(ctx context.Context, f calibrateFlags, schedules []calibrate.Schedule, stdout, stderr io.Writer) int {
	launch := calibrate.InProcess
	if !f.inProcess {
		exe, err := os.Executable()
		if err != nil {
			fmt.Fprintf(stderr, "ttftlab calibrate: cannot find my own binary to start the server (%v); use --in-process\n", err)
			return 1
		}
		launch = calibrate.Child([]string{exe, "calibrate"})
	}
	if f.stamps != "" {
		os.Remove(f.stamps) // the file numbers requests from 1 again
	}
	rep, err := calibrate.Run(ctx, calibrate.Options{Schedules: schedules, Clients: f.clients, KeepChunks: f.keep,
		Launch: launch, StampsPath: f.stamps, Progress: stderr})
	if ctx.Err() != nil {
		fmt.Fprintln(stderr, "ttftlab calibrate: interrupted")
		return 130
	}
	if err != nil {
		fmt.Fprintf(stderr, "ttftlab calibrate: %v\n", err)
		return 1
	}
	rep.WriteTable(stdout)
	if err := rep.WriteJSON(f.out); err != nil {
		fmt.Fprintf(stderr, "ttftlab calibrate: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "report: %s\n", f.out)
	if f.stamps != "" {
		fmt.Fprintf(stdout, "send stamps: %s\n", f.stamps)
	}
	for _, s := range rep.Schedules {
		for _, c := range s.Clients {
			if c.Failure != "" {
				return 1
			}
		}
	}
	return 0
}

// serveCalibration runs only the server. Its first output line carries
// the URL (Child relies on it).
func serveCalibration(ctx context.Context, f calibrateFlags, s calibrate.Schedule, stdout, stderr io.Writer) int {
	if f.stamps == "" {
		f.stamps = "calibrate-stamps.tsv"
	}
	ln, err := net.Listen("tcp", f.serve)
	if err != nil {
		fmt.Fprintf(stderr, "ttftlab calibrate: cannot listen on %s: %v (choose another address, e.g. 127.0.0.1:0 for any free port)\n", f.serve, err)
		return 1
	}
	fmt.Fprintf(stdout, "calibration server: http://%s (%s, %d chunks); send stamps: %s\n", ln.Addr(), s.Name(), s.Chunks, f.stamps)
	srv := &calibrate.Server{Schedule: s, StampsPath: f.stamps, FirstRequest: f.firstRequest, Log: stderr}
	if err := srv.Serve(ctx, ln); err != nil {
		fmt.Fprintf(stderr, "ttftlab calibrate: %v\n", err)
		return 1
	}
	return 0
}
