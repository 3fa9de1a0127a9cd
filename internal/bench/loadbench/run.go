package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/calibrate"
	"ttftlab/internal/load"
	ttftruntime "ttftlab/runtime"
)

// figures are one client's results.
type figures struct {
	client             string
	received, expected int
	p50, p99, max      float64 // lateness, µs
	cpuPerChunkUs      float64
	heapPerRequestB    float64 // -1: not measured
	wallS              float64
}

func run(args []string) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	streams := fs.Int("streams", 256, "streams at once")
	rate := fs.Float64("rate", 50, "content chunks per second of each stream")
	chunks := fs.Int("chunks", 100, "content chunks per stream")
	python := fs.String("python", "", "a Python client to compare, e.g. \"python3 internal/bench/pyasync.py\"")
	contend := fs.Int("contend", 0, "processes spinning on the CPU during the run")
	if err := fs.Parse(args); err != nil {
		return err
	}
	spin, err := calibrate.StartContention(*contend)
	if err != nil {
		return err
	}
	defer spin.Stop()
	url, stop, err := startServer(*rate, *chunks)
	if err != nil {
		return err
	}
	defer stop()
	fmt.Printf("%d streams x %d chunks at %g/s, %d spinning processes; load %s", *streams, *chunks, *rate, *contend, loadavg())
	var rows []figures
	f, err := measureTTFTLab(url, *streams, *chunks)
	if err != nil {
		return err
	}
	rows = append(rows, f)
	f, err = measureLeast(url, *streams, *chunks)
	if err != nil {
		return err
	}
	rows = append(rows, f)
	if *python != "" {
		f, err := measurePython(*python, url, *streams, *chunks)
		if err != nil {
			return err
		}
		rows = append(rows, f)
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "client\treceived\tlate p50 µs\tp99 µs\tmax µs\tCPU µs/chunk\theap B/request\twall s\t")
	for _, r := range rows {
		heap := "-"
		if r.heapPerRequestB >= 0 {
			heap = fmt.Sprintf("%.0f", r.heapPerRequestB)
		}
		fmt.Fprintf(tw, "%s\t%d/%d\t%.0f\t%.0f\t%.0f\t%.1f\t%s\t%.1f\t\n", r.client, r.received, r.expected, r.p50, r.p99, r.max, r.cpuPerChunkUs, heap, r.wallS)
	}
	tw.Flush()
	fmt.Printf("load after: %s", loadavg())
	return nil
}

// startServer starts the paced server as a child process and returns its
// URL and a stop function. The child gets SIGKILL when the thread that
// forked it ends, so the fork happens on a thread locked to a goroutine
// that waits for stop: Go may end any other thread (one a locked
// goroutine ran on) in mid-run.
func startServer(rate float64, chunks int) (string, func(), error) {
	exe, err := os.Executable()
	if err != nil {
		return "", nil, err
	}
	type started struct {
		url string
		err error
	}
	ready, stop, done := make(chan started, 1), make(chan struct{}), make(chan struct{})
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		defer close(done)
		cmd := exec.Command(exe, "serve", "--rate", strconv.FormatFloat(rate, 'g', -1, 64), "--chunks", strconv.Itoa(chunks))
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
		ready <- started{url: strings.TrimSpace(line)}
		<-stop
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	}()
	s := <-ready
	if s.err != nil {
		return "", nil, s.err
	}
	return s.url, func() { close(stop); <-done }, nil
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

// measureTTFTLab runs the streams twice on one VM: once keeping every
// chunk, for the stamps and the CPU time, and once with keep_chunks =
// false, for the heap a finished request holds beyond its chunks.
func measureTTFTLab(url string, streams, chunks int) (figures, error) {
	vm, err := ttftruntime.New(context.Background(), ttftruntime.Config{Server: url, Stdout: io.Discard, Stderr: os.Stderr})
	if err != nil {
		return figures{}, err
	}
	defer vm.Close()
	L := vm.State()
	L.SetGlobal("N", lua.LNumber(streams))
	L.SetGlobal("CHUNKS", lua.LNumber(chunks))
	L.SetGlobal("KEEP", lua.LTrue)
	if p := os.Getenv("LOADBENCH_CPUPROFILE"); p != "" {
		f, err := os.Create(p)
		if err != nil {
			return figures{}, err
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	cpuBefore := cpuSeconds()
	start := time.Now()
	if err := vm.RunString(clientScript, "loadbench.lua"); err != nil {
		return figures{}, err
	}
	wall := time.Since(start).Seconds()
	cpu := cpuSeconds() - cpuBefore
	if err := vm.RunString(arrivalsScript, "arrivals.lua"); err != nil {
		return figures{}, err
	}
	arrivals := lua.LVAsString(L.GetGlobal("ARRIVALS"))
	received := 0
	if arrivals != "" {
		received = strings.Count(arrivals, "\n") + 1
	}
	late := lateness(arrivals, 1000) // now_ms: ms to ns
	L.SetGlobal("ARRIVALS", lua.LNil)
	L.SetGlobal("RESULTS", lua.LNil)
	L.SetGlobal("KEEP", lua.LFalse)
	heapBefore := heap()
	if err := vm.RunString(clientScript, "loadbench.lua"); err != nil {
		return figures{}, err
	}
	// RESULTS holds every finished request while the heap is read.
	heapPer := float64(int64(heap())-int64(heapBefore)) / float64(streams)
	runtime.KeepAlive(L.GetGlobal("RESULTS"))
	return summarize("ttftlab stream_many", late, received, streams*chunks, cpu, heapPer, wall), nil
}

func measurePython(command, url string, streams, chunks int) (figures, error) {
	f, err := os.CreateTemp("", "loadbench-py-*.txt")
	if err != nil {
		return figures{}, err
	}
	f.Close()
	defer os.Remove(f.Name())
	parts := strings.Fields(command)
	cmd := exec.Command(parts[0], append(parts[1:], url, strconv.Itoa(streams), strconv.Itoa(chunks), f.Name())...)
	cmd.Stderr = os.Stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return figures{}, fmt.Errorf("%s: %w", command, err)
	}
	wall := time.Since(start).Seconds()
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	cpu := float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
	data, err := os.ReadFile(f.Name())
	if err != nil {
		return figures{}, err
	}
	text := strings.TrimSpace(string(data))
	received := 0
	if text != "" {
		received = strings.Count(text, "\n") + 1
	}
	return summarize("python asyncio", lateness(text, 1), received, streams*chunks, cpu, -1, wall), nil
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

func summarize(name string, late []float64, received, expected int, cpuS, heapPer, wall float64) figures {
	f := figures{client: name, received: received, expected: expected, heapPerRequestB: heapPer, wallS: wall}
	if n := len(late); n > 0 {
		f.p50, f.p99, f.max = load.Percentile(late, 50), load.Percentile(late, 99), late[n-1]
	}
	if received > 0 {
		f.cpuPerChunkUs = cpuS * 1e6 / float64(received)
	}
	return f
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
