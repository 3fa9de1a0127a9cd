package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"
	"ttftlab/internal/interval"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/calibrate"
	ttftruntime "ttftlab/runtime"
)

// figures are one client's results from one run of it.
type figures struct {
	client              string
	received, expected  int
	p50, p99, max       float64      // lateness, µs
	cpuPerChunkUs       float64      // the streaming phase, getrusage(RUSAGE_SELF) in the client
	wholeCPUPerChunkUs  float64      // the whole client process (wait4's rusage); -1: not measured
	heapPerRequestB     float64      // -1: not measured
	maxRSSKiB           int64        // the client process's peak resident set; -1: not measured
	wallS               float64      // the streaming phase
	load1               string       // the load average over 1 minute when the run started
	serverCPUPerChunkUs float64      // the paced server's CPU over the client's whole run, per chunk; -1: not measured
	server              serverReport // the server's report after the client's run: its CPU so far, how late its writes were in the run (N 0: not measured)
}

// client is one way of reading the streams, run as its own process: argv
// gets URL STREAMS CHUNKS OUT_FILE appended.
type client struct {
	name string
	argv []string
}

func run(args []string) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	streams := fs.Int("streams", 256, "streams at once")
	rate := fs.Float64("rate", 50, "content chunks per second of each stream")
	chunks := fs.Int("chunks", 100, "content chunks per stream")
	rounds := fs.Int("rounds", 3, "runs of every client, alternating: round r starts with the r-th client")
	python := fs.String("python", defaultPython(), "the Python interpreter of the Python clients (Debian's has python3-aiohttp); empty: no Python client")
	benchDir := fs.String("bench-dir", "internal/bench", "the folder of pyasync.py and pyaiohttp.py")
	only := fs.String("clients", "ttftlab,least,asyncio,aiohttp", "the clients to run, comma separated")
	contend := fs.Int("contend", 0, "processes spinning on the CPU during the run")
	before := fs.String("before", "", "a loadbench built before a change: its ttftlab client runs too, as ttftlab-before, alternating with the others")
	serverProcs := fs.Int("server-procs", 1, "GOMAXPROCS of the paced server; 0: Go's default (one per CPU)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	clients, err := pickClients(*only, *python, *benchDir)
	if err != nil {
		return err
	}
	if *before != "" {
		clients = append(clients, client{"ttftlab-before", []string{*before, "client", "ttftlab"}})
	}
	spin, err := calibrate.StartContention(*contend)
	if err != nil {
		return err
	}
	defer spin.Stop()
	srv, err := startServer(*rate, *chunks, *serverProcs)
	if err != nil {
		return err
	}
	defer srv.stop()
	url := srv.url
	fmt.Printf("%d streams x %d chunks at %g/s, server GOMAXPROCS %s, %d spinning processes, %d rounds; load %s", *streams, *chunks, *rate, procsName(*serverProcs), *contend, *rounds, loadavg())
	var rows []figures
	for r := range *rounds {
		for i := range clients {
			c := clients[(r+i)%len(clients)]
			before, err := srv.report() // and forget what earlier runs left
			if err != nil {
				return err
			}
			f, err := measureChild(c, url, *streams, *chunks)
			if err != nil {
				return err
			}
			if f.server, err = srv.report(); err != nil {
				return err
			}
			f.serverCPUPerChunkUs = -1
			if f.received > 0 {
				f.serverCPUPerChunkUs = float64(f.server.CPUNs-before.CPUNs) / 1e3 / float64(f.received)
			}
			rows = append(rows, f)
		}
	}
	printRuns(os.Stdout, rows)
	if has(clients, "ttftlab") {
		exe, err := os.Executable()
		if err != nil {
			return err
		}
		f, err := measureChild(client{"ttftlab", []string{exe, "client", "ttftlab-heap"}}, url, *streams, *chunks)
		if err != nil {
			return err
		}
		fmt.Printf("ttftlab heap a finished request holds beyond its kept chunks (keep_chunks = false, %d results alive, after two GCs): %.0f B\n", *streams, f.heapPerRequestB)
	}
	fmt.Printf("load after: %s", loadavg())
	return nil
}

func has(clients []client, name string) bool {
	for _, c := range clients {
		if c.name == name {
			return true
		}
	}
	return false
}

// defaultPython is Debian's interpreter when there is one (python3 on the
// PATH may be another build, without python3-aiohttp).
func defaultPython() string {
	if _, err := os.Stat("/usr/bin/python3"); err == nil {
		return "/usr/bin/python3"
	}
	return "python3"
}

func pickClients(list, python, benchDir string) ([]client, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	var out []client
	for _, name := range strings.Split(list, ",") {
		switch name = strings.TrimSpace(name); name {
		case "ttftlab", "least", "kstamp-epoll", "kstamp-uring":
			if _, ok := kstampClients[name]; !ok && strings.HasPrefix(name, "kstamp") {
				return nil, fmt.Errorf("client %q needs Linux", name)
			}
			out = append(out, client{name, []string{exe, "client", name}})
		case "asyncio", "aiohttp":
			if python == "" {
				continue
			}
			script := map[string]string{"asyncio": "pyasync.py", "aiohttp": "pyaiohttp.py"}[name]
			out = append(out, client{name, []string{python, filepath.Join(benchDir, script)}})
		case "":
		default:
			return nil, fmt.Errorf("unknown client %q: want ttftlab, least, kstamp-epoll, kstamp-uring, asyncio or aiohttp", name)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no client to run")
	}
	return out, nil
}

func printRuns(w io.Writer, rows []figures) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "client\tload1\treceived\tlate p50 µs\tp99 µs\tmax µs\tCPU µs/chunk (phase)\t(process)\tmax RSS MiB\tphase s\tserver µs/chunk\tserver behind p50/p99 ms\t")
	for _, r := range rows {
		whole := "-"
		if r.wholeCPUPerChunkUs >= 0 {
			whole = fmt.Sprintf("%.1f", r.wholeCPUPerChunkUs)
		}
		rss := "-"
		if r.maxRSSKiB >= 0 {
			rss = fmt.Sprintf("%.1f", float64(r.maxRSSKiB)/1024)
		}
		server := "-"
		if r.serverCPUPerChunkUs >= 0 {
			server = fmt.Sprintf("%.1f", r.serverCPUPerChunkUs)
		}
		behind := "-"
		if r.server.N > 0 {
			behind = fmt.Sprintf("%.1f/%.1f", r.server.P50Us/1000, r.server.P99Us/1000)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d/%d\t%.0f\t%.0f\t%.0f\t%.1f\t%s\t%s\t%.2f\t%s\t%s\t\n", r.client, r.load1, r.received, r.expected, r.p50, r.p99, r.max, r.cpuPerChunkUs, whole, rss, r.wallS, server, behind)
	}
	tw.Flush()
	fmt.Fprintln(w, "late: a chunk's arrival minus its send, less the run's smallest; server behind: how far its writes of content chunks")
	fmt.Fprintln(w, "fell behind their plan (a stream's start plus one gap per chunk): a server far behind sent fewer chunks a second than asked.")
}

// measureChild runs one client as its own process and reads what it
// wrote: a "#phase cpu_s=... wall_s=..." line (its streaming phase, timed
// by the client itself), then "send_ns arrival_ns" lines. The whole
// process's CPU time and peak RSS come from wait4.
func measureChild(c client, url string, streams, chunks int) (figures, error) {
	f, err := os.CreateTemp("", "loadbench-client-*.txt")
	if err != nil {
		return figures{}, err
	}
	f.Close()
	defer os.Remove(f.Name())
	load1, _, _ := strings.Cut(loadavg(), " ")
	cmd := exec.Command(c.argv[0], append(c.argv[1:], url, strconv.Itoa(streams), strconv.Itoa(chunks), f.Name())...)
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return figures{}, fmt.Errorf("%s: %w", c.name, err)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	whole := float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
	data, err := os.ReadFile(f.Name())
	if err != nil {
		return figures{}, err
	}
	head, text, _ := strings.Cut(string(data), "\n")
	phase, err := parsePhase(head)
	if err != nil {
		return figures{}, fmt.Errorf("%s: %w", c.name, err)
	}
	text = strings.TrimSpace(text)
	received := 0
	if text != "" {
		received = strings.Count(text, "\n") + 1
	}
	r := summarize(c.name, lateness(text, 1), received, streams*chunks, phase["cpu_s"], phase["wall_s"])
	r.load1 = load1
	r.maxRSSKiB = ru.Maxrss
	if received > 0 {
		r.wholeCPUPerChunkUs = whole * 1e6 / float64(received)
	}
	if h, ok := phase["heap_b"]; ok {
		r.heapPerRequestB = h
	}
	return r, nil
}

// parsePhase reads "#phase key=value ...".
func parsePhase(line string) (map[string]float64, error) {
	fields := strings.Fields(line)
	if len(fields) == 0 || fields[0] != "#phase" {
		return nil, fmt.Errorf("the client wrote no #phase line first: %q", line)
	}
	m := map[string]float64{}
	for _, kv := range fields[1:] {
		k, v, ok := strings.Cut(kv, "=")
		x, err := strconv.ParseFloat(v, 64)
		if !ok || err != nil {
			return nil, fmt.Errorf("bad #phase field %q", kv)
		}
		m[k] = x
	}
	if _, ok := m["cpu_s"]; !ok {
		return nil, fmt.Errorf("#phase has no cpu_s: %q", line)
	}
	return m, nil
}

// clientCmd is `loadbench client ttftlab|least|ttftlab-heap URL STREAMS
// CHUNKS OUT_FILE`: one client's run in a process of its own, written as
// the Python clients write theirs.
func clientCmd(args []string) error {
	if len(args) != 5 {
		return fmt.Errorf("usage: loadbench client ttftlab|least|kstamp-epoll|kstamp-uring|ttftlab-heap URL STREAMS CHUNKS OUT_FILE")
	}
	streams, err1 := strconv.Atoi(args[2])
	chunks, err2 := strconv.Atoi(args[3])
	if err1 != nil || err2 != nil {
		return fmt.Errorf("STREAMS and CHUNKS must be integers")
	}
	var r clientRun
	var err error
	switch args[0] {
	case "ttftlab":
		r, err = runTTFTLab(args[1], streams, chunks, true)
	case "ttftlab-heap":
		r, err = runTTFTLab(args[1], streams, chunks, false)
	case "least":
		r, err = runLeast(args[1], streams)
	default:
		if read, ok := kstampClients[args[0]]; ok {
			r, err = read(args[1], streams)
		} else {
			err = fmt.Errorf("unknown client %q", args[0])
		}
	}
	if err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "#phase cpu_s=%.6f wall_s=%.6f", r.cpuS, r.wallS)
	if r.heapB >= 0 {
		fmt.Fprintf(&b, " heap_b=%.1f", r.heapB)
	}
	b.WriteString("\n")
	b.WriteString(strings.Join(r.lines, "\n"))
	return os.WriteFile(args[4], []byte(b.String()), 0o644)
}

// clientRun is what one client did: its "send_ns arrival_ns" lines, the
// CPU and wall time of its streaming phase, and (ttftlab-heap only) the
// heap per finished request.
type clientRun struct {
	lines       []string
	cpuS, wallS float64
	heapB       float64 // -1: not measured
}

// startServer starts the paced server as a child process and returns its
// URL and a stop function. The child gets SIGKILL when the thread that
// forked it ends, so the fork happens on a thread locked to a goroutine
// that waits for stop: Go may end any other thread (one a locked
// goroutine ran on) in mid-run.
// pacedServer is the paced server run as a child process.
type pacedServer struct {
	url  string
	pid  int
	stop func()
}

// reportClient asks the paced server for its report; a server that does
// not answer in time fails the run rather than hanging it.
var reportClient = &http.Client{Timeout: 10 * time.Second}

// report asks the server for its CPU time so far and how late its writes
// were since it was last asked.
func (s pacedServer) report() (serverReport, error) {
	resp, err := reportClient.Get(s.url + "/report")
	if err != nil {
		return serverReport{}, fmt.Errorf("asking the paced server for its report: %w", err)
	}
	defer resp.Body.Close()
	var r serverReport
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return serverReport{}, fmt.Errorf("the paced server's /report: %w", err)
	}
	return r, nil
}

func procsName(n int) string {
	if n <= 0 {
		return "default (" + strconv.Itoa(runtime.NumCPU()) + ")"
	}
	return strconv.Itoa(n)
}

// startServer starts the paced server with GOMAXPROCS procs (0: Go's
// default). One P keeps it to one core at most: with one per CPU, its
// goroutine-per-stream timers woke two threads that took turns with the
// client being measured on a 2-core machine (docs/BENCHMARKS-log.md, "A
// table's string keys in a list").
func startServer(rate float64, chunks, procs int) (pacedServer, error) {
	exe, err := os.Executable()
	if err != nil {
		return pacedServer{}, err
	}
	type started struct {
		url string
		pid int
		err error
	}
	ready, stop, done := make(chan started, 1), make(chan struct{}), make(chan struct{})
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		defer close(done)
		cmd := exec.Command(exe, "serve", "--rate", strconv.FormatFloat(rate, 'g', -1, 64), "--chunks", strconv.Itoa(chunks))
		if procs > 0 {
			cmd.Env = append(os.Environ(), "GOMAXPROCS="+strconv.Itoa(procs))
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			ready <- started{err: err}
			return
		}
		cmd.Stderr = os.Stderr
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		if err := cmd.Start(); err != nil {
			ready <- started{err: err}
			return
		}
		line, err := bufio.NewReader(out).ReadString('\n')
		if err != nil {
			cmd.Process.Kill()
			cmd.Wait()
			ready <- started{err: fmt.Errorf("the server printed no URL: %w", err)}
			return
		}
		ready <- started{url: strings.TrimSpace(line), pid: cmd.Process.Pid}
		<-stop
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	}()
	s := <-ready
	if s.err != nil {
		return pacedServer{}, s.err
	}
	return pacedServer{url: s.url, pid: s.pid, stop: func() { close(stop); <-done }}, nil
}

// clientScript is what `ttftlab load` does at one level, in short: N
// requests at once through stream_many, every chunk kept unless KEEP is
// false.
const clientScript = `
local n, chunks = N, CHUNKS
RESULTS = stream_many(function(i)
  if i > n then return nil end
  return "x", {max_tokens = chunks, idle_timeout_ms = 60000, keep_chunks = KEEP}
end, {concurrency = n})
`

// arrivalsScript turns the kept chunks into "send arrival" lines after the
// measured part, so its own work is not counted.
const arrivalsScript = `
local out = {}
for _, r in ipairs(RESULTS) do
  for _, c in ipairs(r.chunks) do
    out[#out + 1] = string.format("%s %.6f", c.text, r.info.t0_ms + c.t_ms)
  end
end
ARRIVALS = table.concat(out, "\n")
`

// runTTFTLab runs the streams through stream_many on one VM. With keep,
// every chunk is kept and its stamps returned; the streaming phase is the
// stream_many call (from the launch of the first request to the return of
// the results). Without keep, keep_chunks is false and the heap a finished
// request holds beyond its chunks is measured instead, over a second run
// of the streams with its results alive, after two GCs. LOADBENCH_CPUPROFILE and LOADBENCH_MEMPROFILE name
// files for a CPU profile and an allocation profile of the phase;
// LOADBENCH_HEAPPROFILE, without keep, one for the heap the results hold
// (and PATH.before, before the measured run: pprof -diff_base).
func runTTFTLab(url string, streams, chunks int, keep bool) (clientRun, error) {
	if !keep && os.Getenv("LOADBENCH_HEAPPROFILE") != "" {
		runtime.MemProfileRate = 1 // every allocation, for the per-request heap
	}
	vm, err := ttftruntime.New(context.Background(), ttftruntime.Config{Server: url, Stdout: io.Discard, Stderr: os.Stderr})
	if err != nil {
		return clientRun{}, err
	}
	defer vm.Close()
	L := vm.State()
	L.SetGlobal("N", lua.LNumber(streams))
	L.SetGlobal("CHUNKS", lua.LNumber(chunks))
	L.SetGlobal("KEEP", lua.LBool(keep))
	if !keep {
		// a first run, so what the first requests of a process allocate
		// once (the client, its pools, the stdlib's modules) is not counted
		// per request
		if err := vm.RunString(clientScript, "warmup.lua"); err != nil {
			return clientRun{}, err
		}
		L.SetGlobal("RESULTS", lua.LNil)
		heapBefore := heap()
		if path := os.Getenv("LOADBENCH_HEAPPROFILE"); path != "" {
			if err := writeHeapProfile(path + ".before"); err != nil {
				return clientRun{}, err
			}
		}
		if err := vm.RunString(clientScript, "loadbench.lua"); err != nil {
			return clientRun{}, err
		}
		// RESULTS holds every finished request while the heap is read.
		heapPer := float64(int64(heap())-int64(heapBefore)) / float64(streams)
		if path := os.Getenv("LOADBENCH_HEAPPROFILE"); path != "" {
			if err := writeHeapProfile(path); err != nil {
				return clientRun{}, err
			}
		}
		runtime.KeepAlive(L.GetGlobal("RESULTS"))
		return clientRun{heapB: heapPer}, nil
	}
	stopProfiles, err := startProfiles()
	if err != nil {
		return clientRun{}, err
	}
	cpuBefore := cpuSeconds()
	start := time.Now()
	err = vm.RunString(clientScript, "loadbench.lua")
	wall := time.Since(start).Seconds()
	cpu := cpuSeconds() - cpuBefore
	if perr := stopProfiles(); err == nil {
		err = perr
	}
	if err != nil {
		return clientRun{}, err
	}
	if err := vm.RunString(arrivalsScript, "arrivals.lua"); err != nil {
		return clientRun{}, err
	}
	var lines []string
	for _, line := range strings.Split(lua.LVAsString(L.GetGlobal("ARRIVALS")), "\n") {
		send, ms, ok := strings.Cut(line, " ")
		at, err := strconv.ParseFloat(ms, 64)
		if !ok || err != nil {
			continue
		}
		lines = append(lines, send+" "+strconv.FormatInt(int64(math.Round(at*1e6)), 10))
	}
	return clientRun{lines: lines, cpuS: cpu, wallS: wall, heapB: -1}, nil
}

func startProfiles() (stop func() error, err error) {
	cpuPath, memPath := os.Getenv("LOADBENCH_CPUPROFILE"), os.Getenv("LOADBENCH_MEMPROFILE")
	var cpuFile *os.File
	if cpuPath != "" {
		if cpuFile, err = os.Create(cpuPath); err != nil {
			return nil, err
		}
		if err := pprof.StartCPUProfile(cpuFile); err != nil {
			cpuFile.Close()
			return nil, err
		}
	}
	if memPath != "" {
		runtime.GC() // so the allocation profile starts from this point's records
	}
	return func() error {
		if cpuFile != nil {
			pprof.StopCPUProfile()
			if err := cpuFile.Close(); err != nil {
				return err
			}
		}
		if memPath != "" {
			f, err := os.Create(memPath)
			if err != nil {
				return err
			}
			defer f.Close()
			return pprof.Lookup("allocs").WriteTo(f, 0)
		}
		return nil
	}, nil
}

// lateness reads "send_ns arrival" lines (arrival in ns times scale) and
// returns each chunk's arrival minus send, minus the smallest of them, in
// µs.
func lateness(text string, scaleToNs float64) []float64 {
	var d []float64
	for _, line := range strings.Split(text, "\n") {
		a, b, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		send, err1 := strconv.ParseFloat(a, 64)
		arr, err2 := strconv.ParseFloat(b, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		if scaleToNs == 1000 {
			arr *= 1e6 // now_ms to ns
		}
		d = append(d, arr-send)
	}
	if len(d) == 0 {
		return nil
	}
	sort.Float64s(d)
	base := d[0]
	for i := range d {
		d[i] = (d[i] - base) / 1000
	}
	return d
}

func summarize(name string, late []float64, received, expected int, cpuS, wall float64) figures {
	f := figures{client: name, received: received, expected: expected, wallS: wall, wholeCPUPerChunkUs: -1, heapPerRequestB: -1, maxRSSKiB: -1}
	if n := len(late); n > 0 {
		f.p50, f.p99, f.max = interval.PercentileOf(late, 50), interval.PercentileOf(late, 99), late[n-1]
	}
	if received > 0 {
		f.cpuPerChunkUs = cpuS * 1e6 / float64(received)
	}
	return f
}

// writeHeapProfile writes what the heap holds now (inuse_space: what the
// finished requests keep, with LOADBENCH_HEAPPROFILE).
func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func heap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

func cpuSeconds() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	return string(b)
}
