package cli

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"

	"ttftlab/internal/calibrate"
	"ttftlab/internal/stream"
)

// calibrateCmd is `ttftlab calibrate [flags]`.
type calibrateCmd struct {
	env                    *env
	rate                   float64
	chunks, burstSize      int
	burst, keep, inProcess bool
	out, stamps, serve     string
	firstRequest           int
	clients                []calibrate.Client
	contend                int
	wire                   string
	kernelStamps, goClient bool
	tls                    bool
	tlsCert, tlsKey        string
}

func newCalibrate(e *env) runner { return &calibrateCmd{env: e} }

const calibrateAbout = `       ttftlab calibrate --serve ADDR [--rate N] [--chunks N] [--burst] [--stamps FILE]

Measures how close ttftlab's arrival stamps are to the wire: a loopback
server sends llama-server-shaped chunks on a known schedule, stamping each
write with CLOCK_MONOTONIC, and ttftlab reads them through stream() with a
Lua on_chunk callback. Without --rate and --chunks it runs the standard
schedules (steady 10 to 20,000 chunks/s, and bursts). --serve runs only the
server, for other clients. --contend N keeps N processes spinning on the
CPU during the schedules, as a busy inference server does; calibrate starts
and stops them. --tls serves https (a certificate made for the run) and
measures ttftlab-go over it, to compare with a run without --tls.`

func (c *calibrateCmd) register(fs *flagSet) {
	fs.floatVar(&c.rate, "rate", 0, 0, 10e6, "content chunks per second of a single schedule; 0 sends as fast as the socket takes them")
	fs.intVar(&c.chunks, "chunks", 0, 0, 100e6, "content chunks of a single schedule (default: 3 s worth at --rate)")
	fs.BoolVar(&c.burst, "burst", false, "send --burst-size chunks per write, so they share a TCP segment")
	fs.intVar(&c.burstSize, "burst-size", 50, 1, 100000, "chunks per write with --burst")
	fs.BoolVar(&c.keep, "keep-chunks", true, "stream()'s keep_chunks for ttftlab's client (false: memory stays flat)")
	fs.StringVar(&c.out, "out", filepath.Join(envOr("TTFTLAB_OUT", "./out"), "calibrate.json"), "JSON report, written atomically")
	fs.StringVar(&c.stamps, "stamps", "", "file the server appends its send stamps to (request, chunk, CLOCK_MONOTONIC ns)")
	fs.Func("client", "`NAME=COMMAND`: another client to compare (repeatable), run as COMMAND URL ARRIVALS_FILE, e.g. python=\"python3 internal/bench/pyclient.py\"", func(s string) error {
		cl, err := calibrate.ParseClient(s)
		c.clients = append(c.clients, cl)
		return err
	})
	fs.BoolVar(&c.inProcess, "in-process", false, "run the server inside this process (its CPU time and allocations then count as ttftlab's)")
	fs.StringVar(&c.serve, "serve", "", "only serve the schedule on `ADDR` (e.g. 127.0.0.1:8099) until interrupted")
	fs.intVar(&c.firstRequest, "first-request", 1, 1, noLimit, "with --serve: number of the first request in the stamps file")
	fs.intVar(&c.contend, "contend", 0, 0, 64, "keep `N` processes spinning on the CPU (sh -c 'while :; do :; done') during the schedules")
	fs.StringVar(&c.wire, "wire", "auto", "how ttftlab reads: auto, epoll (one poller thread), thread (a blocking reader thread per stream) or go-netpoll (net/http)")
	fs.BoolVar(&c.kernelStamps, "kernel-stamps", true, "use the kernel's receive timestamps where the wire has them")
	fs.BoolVar(&c.goClient, "go-client", false, "also measure ttftlab-go: the stream path from Go, chunks kept, no Lua callback")
	fs.BoolVar(&c.tls, "tls", false, "serve https with a certificate made for the run and measure ttftlab-go over it (compare with a run without --tls)")
	fs.StringVar(&c.tlsCert, "tls-cert", "", "with --serve: serve https with the certificate in `FILE` (PEM; needs --tls-key)")
	fs.StringVar(&c.tlsKey, "tls-key", "", "with --serve: the certificate's key in `FILE` (PEM)")
}

// schedules turns the flags into the schedules to run.
func (c *calibrateCmd) schedules(fs *flagSet) []calibrate.Schedule {
	set := fs.given()
	if !set["rate"] && !set["chunks"] && !set["burst"] && c.serve == "" {
		return calibrate.Defaults()
	}
	s := calibrate.Schedule{Rate: c.rate, Chunks: c.chunks, Burst: 1}
	if !set["rate"] && !set["chunks"] {
		s.Rate = 1000 // --serve or --burst alone
	}
	if s.Chunks == 0 {
		s.Chunks = max(int(s.Rate*3), 10)
		if s.Rate == 0 {
			s.Chunks = 100000
		}
	}
	if c.burst {
		s.Burst = c.burstSize
	}
	return []calibrate.Schedule{s}
}

func (c *calibrateCmd) Run(ctx context.Context, args []string) error {
	fs := c.env.flags("[--rate N] [--chunks N] [--burst] [--out FILE] [--stamps FILE] [--client NAME=COMMAND]...", calibrateAbout)
	c.register(fs)
	if err := fs.parse(args); err != nil {
		return err
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	schedules := c.schedules(fs)
	for _, s := range schedules {
		if err := s.Validate(); err != nil {
			return fs.usageErr(err)
		}
	}
	if c.contend < 0 {
		return fs.usageErr(fmt.Errorf("--contend needs 0 or more processes, got %d", c.contend))
	}
	wire, err := stream.ParseWire(c.wire)
	if err != nil {
		return fs.usageErr(fmt.Errorf("--wire: %v", err))
	}
	if c.serve != "" {
		return c.serveOnly(ctx, schedules[0])
	}
	return c.measure(ctx, schedules, wire)
}

func (c *calibrateCmd) measure(ctx context.Context, schedules []calibrate.Schedule, wire stream.Wire) error {
	var tlsRun *calibrate.TLS
	if c.tls {
		dir, err := os.MkdirTemp("", "ttftlab-calibrate-tls-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		if tlsRun, err = calibrate.NewTLS(dir); err != nil {
			return err
		}
	}
	launch := calibrate.InProcess
	if tlsRun != nil {
		launch = calibrate.InProcessTLS(tlsRun)
	}
	if !c.inProcess {
		exe, err := os.Executable()
		if err != nil {
			return fmt.Errorf("cannot find my own binary to start the server (%v); use --in-process", err)
		}
		command := []string{exe, "calibrate"}
		if tlsRun != nil {
			command = append(command, tlsRun.ChildArgs()...)
		}
		launch = calibrate.Child(command)
	}
	if c.stamps != "" {
		os.Remove(c.stamps) // the file numbers requests from 1 again
	}
	rep, err := calibrate.Run(ctx, calibrate.Options{Schedules: schedules, Clients: c.clients, KeepChunks: c.keep,
		Launch: launch, StampsPath: c.stamps, Progress: c.env.Err, Contend: c.contend, Wire: wire,
		NoKernelStamps: !c.kernelStamps, GoClient: c.goClient, TLS: tlsRun,
		Spinning: func(s *calibrate.Contention) { c.env.signals.onHardExit(s.Kill) }})
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		return err
	}
	rep.WriteTable(c.env.Out)
	if err := rep.WriteJSON(c.out); err != nil {
		return err
	}
	fmt.Fprintf(c.env.Out, "report: %s\n", c.out)
	if c.stamps != "" {
		fmt.Fprintf(c.env.Out, "send stamps: %s\n", c.stamps)
	}
	for _, s := range rep.Schedules {
		for _, cl := range s.Clients {
			if cl.Failure != "" {
				return exitCode(exitFailure)
			}
		}
	}
	return nil
}

// serveOnly runs only the server. Its first output line carries the URL
// (Child relies on it).
func (c *calibrateCmd) serveOnly(ctx context.Context, s calibrate.Schedule) error {
	if c.stamps == "" {
		c.stamps = "calibrate-stamps.tsv"
	}
	ln, err := net.Listen("tcp", c.serve)
	if err != nil {
		return fmt.Errorf("cannot listen on %s: %v (choose another address, e.g. 127.0.0.1:0 for any free port)", c.serve, err)
	}
	srv := &calibrate.Server{Schedule: s, StampsPath: c.stamps, FirstRequest: c.firstRequest, Log: c.env.Err}
	if c.tlsCert != "" || c.tlsKey != "" {
		if srv.TLS, err = calibrate.ServerTLS(c.tlsCert, c.tlsKey); err != nil {
			ln.Close()
			return err
		}
	}
	fmt.Fprintf(c.env.Out, "calibration server: %s://%s (%s, %d chunks); send stamps: %s\n", srv.Scheme(), ln.Addr(), s.Name(), s.Chunks, c.stamps)
	return srv.Serve(ctx, ln)
}
