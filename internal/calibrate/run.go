package calibrate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"ttftlab/internal/monoclock"
	"ttftlab/internal/stream"
)

// Options configure a calibration run.
type Options struct {
	Schedules []Schedule
	// Clients are compared with ttftlab on every schedule, in order.
	Clients []Client
	// KeepChunks is stream()'s keep_chunks for ttftlab's client.
	KeepChunks bool
	// Launch starts the server for each schedule (Child or InProcess).
	Launch Launcher
	// StampsPath collects every send stamp of the run; "" keeps them in
	// a temporary folder that is removed afterwards.
	StampsPath string
	// Progress receives a line per client run; nil for none.
	Progress io.Writer
	// Contend is how many spinning processes compete for the CPU during
	// the schedules (see Contention); 0 for none.
	Contend int
	// Wire and NoKernelStamps choose how ttftlab reads (see
	// stream.Request); the zero values are its default.
	Wire           stream.Wire
	NoKernelStamps bool
	// GoClient also measures TTFTLabGo on every schedule.
	GoClient bool
	// TLS, when set, makes the server speak https with its certificate
	// (Launch must serve it: InProcessTLS, or Child with TLS.ChildArgs)
	// and measures TTFTLabGo alone, trusting it: the runtime's stream()
	// and other clients take no certificate here.
	TLS *TLS
	// Spinning, when set, is called once the contending processes run
	// (e.g. to kill them on a hard exit).
	Spinning func(*Contention)
}

// Report is a calibration run's result.
type Report struct {
	Machine Machine `json:"machine"`
	// ClockMapErrorNs bounds the error of placing ttftlab's stamps on
	// CLOCK_MONOTONIC (see monoclock.Mapping).
	ClockMapErrorNs int64 `json:"clock_map_error_ns"`
	KeepChunks      bool  `json:"keep_chunks"`
	// ContendedBy is how many spinning processes competed for the CPU
	// (Options.Contend), with their command; 0 on a machine left quiet.
	ContendedBy  int              `json:"contended_by_spinners"`
	SpinCommand  []string         `json:"spin_command,omitempty"`
	Wire         string           `json:"wire"`
	TLS          bool             `json:"tls"`
	KernelStamps bool             `json:"kernel_stamps"`
	StampsFile   string           `json:"stamps_file,omitempty"`
	Schedules    []ScheduleResult `json:"schedules"`
	ElapsedS     float64          `json:"elapsed_s"`
}

// ScheduleResult holds every client's figures on one schedule.
type ScheduleResult struct {
	Name string `json:"name"`
	Schedule
	// SendLateness is how much later than planned the server's writes
	// went out during ttftlab's request: the schedule actually held.
	SendLateness Summary        `json:"send_lateness"`
	Clients      []ClientResult `json:"clients"`
}

// ClientResult is one client's run on one schedule.
type ClientResult struct {
	Client  string `json:"client"`
	Command string `json:"command,omitempty"`
	// Request is the request number in the stamps file.
	Request int `json:"request"`
	// Received counts chunks with an arrival stamp, of Expected.
	Received int `json:"received"`
	Expected int `json:"expected"`
	// StampError is arrival stamp minus send stamp over those chunks.
	StampError Summary `json:"stamp_error"`
	// Cost is ttftlab's own CPU, allocation and heap per chunk.
	Cost *Cost `json:"cost,omitempty"`
	// CPUMsTotal is an external client's whole CPU time, start-up
	// included.
	CPUMsTotal float64 `json:"cpu_ms_total,omitempty"`
	// StampSource is how ttftlab's stamps were taken (info.stamp_source).
	StampSource string `json:"stamp_source,omitempty"`
	Failure     string `json:"failure,omitempty"`
}

// TTFTLab names ttftlab's own client in results.
const TTFTLab = "ttftlab"

// Run measures every schedule with ttftlab and then each other client.
func Run(ctx context.Context, o Options) (*Report, error) {
	if o.Launch == nil {
		o.Launch = InProcess
	}
	for _, s := range o.Schedules {
		if err := s.Validate(); err != nil {
			return nil, fmt.Errorf("schedule %s: %w", s.Name(), err)
		}
	}
	dir, err := os.MkdirTemp("", "ttftlab-calibrate-")
	if err != nil {
		return nil, fmt.Errorf("cannot create a folder for stamp files: %w", err)
	}
	defer os.RemoveAll(dir)
	stamps := o.StampsPath
	if stamps == "" {
		stamps = filepath.Join(dir, "send-stamps.tsv")
	}
	start := time.Now()
	rep := &Report{Machine: describeMachine(), KeepChunks: o.KeepChunks, StampsFile: o.StampsPath,
		Wire: o.Wire.String(), KernelStamps: !o.NoKernelStamps, TLS: o.TLS != nil}
	spin, err := StartContention(o.Contend)
	if err != nil {
		return nil, err
	}
	defer spin.Stop()
	if spin.N() > 0 {
		rep.ContendedBy, rep.SpinCommand = spin.N(), SpinCommand
		if o.Spinning != nil {
			o.Spinning(spin)
		}
		progress(o.Progress, "contended by %d spinning processes (%s), pids %v", spin.N(), strings.Join(SpinCommand, " "), spin.Pids())
	}
	m := monoclock.NewMapping()
	rep.ClockMapErrorNs = m.ErrNs
	r := &runner{o: o, m: m, dir: dir, stamps: stamps}
	for _, s := range o.Schedules {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		sr, err := r.schedule(ctx, s)
		if err != nil {
			return rep, err
		}
		rep.Schedules = append(rep.Schedules, sr)
	}
	rep.Machine.LoadAfter = loadAverage()
	rep.ElapsedS = time.Since(start).Seconds()
	return rep, nil
}

// runner carries a run's state across schedules.
type runner struct {
	o       Options
	m       monoclock.Mapping
	dir     string
	stamps  string
	request int // the last request number the server saw
	turn    int // rotates the order of the clients
}

// schedule runs every client on one schedule against a fresh server.
func (r *runner) schedule(ctx context.Context, s Schedule) (ScheduleResult, error) {
	url, stop, err := r.o.Launch(ctx, s, r.stamps, r.request+1)
	if err != nil {
		return ScheduleResult{}, err
	}
	defer stop()
	if s.Rate == 0 {
		r.progress("%s: %d chunks, as fast as the socket takes them", s.Name(), s.Chunks)
	} else {
		r.progress("%s: %d chunks over %.1f s", s.Name(), s.Chunks, s.Duration().Seconds())
	}
	if r.o.TLS != nil {
		// https: ttftlab through Lua and the stream package alone, both
		// trusting the run's certificate (the comparison clients would need
		// it too).
		lua, send := r.ttftlab(ctx, url, s)
		goRes, _ := r.ttftlabGo(ctx, url, s)
		return ScheduleResult{Name: s.Name(), Schedule: s, Clients: []ClientResult{lua, goRes},
			SendLateness: summarize(lateness(send, s))}, nil
	}
	own := 1
	if r.o.GoClient {
		own = 2
	}
	sr := ScheduleResult{Name: s.Name(), Schedule: s, Clients: make([]ClientResult, len(r.o.Clients)+own)}
	// The order turns from one schedule to the next, so no client always
	// runs first on a fresh server or right after the same other one.
	n := len(sr.Clients)
	for k := range n {
		if ctx.Err() != nil {
			return sr, ctx.Err()
		}
		i := (k + r.turn) % n
		switch {
		case i == 0:
			res, send := r.ttftlab(ctx, url, s)
			sr.Clients[0], sr.SendLateness = res, summarize(lateness(send, s))
		case i < own:
			sr.Clients[i], _ = r.ttftlabGo(ctx, url, s)
		default:
			sr.Clients[i] = r.external(ctx, r.o.Clients[i-own], url, s)
		}
	}
	r.turn++
	return sr, nil
}

// ttftlab measures the runtime's stream() with a Lua on_chunk callback.
func (r *runner) ttftlab(ctx context.Context, url string, s Schedule) (ClientResult, []int64) {
	res := ClientResult{Client: TTFTLab, Expected: s.Chunks}
	lc := newLuaClient(s.Chunks)
	err := lc.run(ctx, url, r.o)
	if err == nil {
		err = lc.describe()
	}
	send := r.finish(&res, s, lc.arrivals(r.m), err)
	res.Cost, res.StampSource = lc.cost(), lc.source
	return res, send
}

// ttftlabGo measures the stream package without Lua (TTFTLabGo); it also
// returns the server's send stamps.
func (r *runner) ttftlabGo(ctx context.Context, url string, s Schedule) (ClientResult, []int64) {
	res := ClientResult{Client: TTFTLabGo, Expected: s.Chunks}
	arrive, cost, source, err := runGoClient(ctx, url, s.Chunks, r.o, r.m)
	send := r.finish(&res, s, arrive, err)
	res.Cost, res.StampSource = cost, source
	return res, send
}

// external measures another client program.
func (r *runner) external(ctx context.Context, c Client, url string, s Schedule) ClientResult {
	res := ClientResult{Client: c.Name, Command: strings.Join(c.Command, " "), Expected: s.Chunks}
	arrive, cpuMs, err := runExternal(ctx, c, url, r.dir, r.request+1, s)
	res.CPUMsTotal = cpuMs
	r.finish(&res, s, arrive, err)
	return res
}

// finish pairs a client's arrivals with the server's send stamps of its
// request and fills in the result; it returns the send stamps.
func (r *runner) finish(res *ClientResult, s Schedule, arrive []int64, failure error) []int64 {
	send, err := r.sendStamps(failure == nil, s)
	if err == nil {
		r.request++
		res.Request = r.request
	}
	errs, missing := stampErrors(send, arrive, res.Expected)
	res.Received = res.Expected - missing
	res.StampError = summarize(errs)
	switch {
	case failure != nil:
		res.Failure = failure.Error()
	case err != nil:
		res.Failure = err.Error()
	case missing > 0:
		res.Failure = fmt.Sprintf("%d of %d chunks have no arrival stamp", missing, res.Expected)
	}
	if res.Failure != "" {
		r.progress("  %s: %s", res.Client, res.Failure)
	} else {
		r.progress("  %-10s p50 %8.1f µs  p99 %8.1f µs", res.Client, res.StampError.P50, res.StampError.P99)
	}
	return send
}

// sendStamps reads the stamps of the next request. A client that saw
// [DONE] finds them written; after a failure the server may still be
// noticing the broken connection (at its next write, within a gap), so it
// is given a moment, and a client that never reached the server leaves no
// record at all.
func (r *runner) sendStamps(clientOK bool, s Schedule) ([]int64, error) {
	deadline := time.Now().Add(2*s.Gap() + 300*time.Millisecond)
	for {
		send, err := ReadSendStamps(r.stamps, r.request+1)
		if err == nil || clientOK || !errors.Is(err, errNoRecord) || time.Now().After(deadline) {
			return send, err
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (r *runner) progress(format string, args ...any) { progress(r.o.Progress, format, args...) }

func progress(w io.Writer, format string, args ...any) {
	if w != nil {
		fmt.Fprintf(w, format+"\n", args...)
	}
}
