package calibrate

import (
	"context"
	_ "embed"
	"fmt"
	"io"
	"math"
	goruntime "runtime"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/endpoint"
	"ttftlab/internal/monoclock"
	"ttftlab/runtime"
)

//go:embed client.lua
var clientScript string

// warmupShare is the share of a stream left out of the per-chunk costs:
// it holds the connection set-up and the first allocations of every
// buffer, which are per request, not per chunk.
const warmupShare = 10

// checkpoints is how many times the costs are sampled after the warm-up,
// to follow the heap along the stream.
const checkpoints = 16

// sampler samples ttftlab's costs at chosen chunk indexes.
type sampler struct {
	usage   *usageReader
	checks  []int // chunk indexes at which to sample, ascending
	next    int   // position in checks
	samples []usage
}

func newSampler(chunks int) *sampler {
	s := &sampler{usage: newUsageReader()}
	first := max(chunks/warmupShare, 1)
	s.checks = append(s.checks, first)
	for k := 1; k <= checkpoints; k++ {
		if at := first + (chunks-first)*k/checkpoints; at > s.checks[len(s.checks)-1] {
			s.checks = append(s.checks, at)
		}
	}
	s.samples = make([]usage, 0, len(s.checks))
	return s
}

// at samples when chunk i is a checkpoint.
func (s *sampler) at(i int) {
	if s.next < len(s.checks) && i == s.checks[s.next] {
		s.checkpoint()
	}
}

// luaClient runs client.lua in a fresh VM and keeps what it records.
type luaClient struct {
	*sampler
	chunks int
	tms    []float64 // t_ms by chunk index; NaN until recorded
	t0Ms   float64
	done   bool
	failed string
	source string // info.stamp_source
}

func newLuaClient(chunks int) *luaClient {
	c := &luaClient{sampler: newSampler(chunks), chunks: chunks, tms: make([]float64, chunks+1)}
	for i := range c.tms {
		c.tms[i] = math.NaN()
	}
	return c
}

// run streams from url through the runtime's stream() binding.
func (c *luaClient) run(ctx context.Context, url string, o Options) error {
	cfg := runtime.Config{Server: url, Stdout: io.Discard, Stderr: io.Discard, Wire: o.Wire, NoKernelStamps: o.NoKernelStamps}
	if o.TLS != nil {
		cfg.Endpoint = &endpoint.Endpoint{Base: url, TLS: o.TLS.Cert.ClientConfig()}
	}
	vm, err := runtime.New(ctx, cfg)
	if err != nil {
		return err
	}
	defer vm.Close()
	L := vm.State()
	t := L.NewTable()
	t.RawSetString("chunks", lua.LNumber(c.chunks))
	t.RawSetString("keep_chunks", lua.LBool(o.KeepChunks))
	t.RawSetString("record", L.NewFunction(c.record))
	t.RawSetString("finish", L.NewFunction(c.finish))
	L.SetGlobal("calibrate", t)
	return vm.RunString(clientScript, "calibrate/client.lua")
}

// record is calibrate.record(index, t_ms), called from on_chunk.
func (c *luaClient) record(L *lua.LState) int {
	i := int(L.CheckNumber(1))
	if i >= 1 && i <= c.chunks {
		c.tms[i] = float64(L.CheckNumber(2))
	}
	c.at(i)
	return 0
}

// checkpoint samples the costs. The first and last checkpoints also run
// a GC (outside the measured span: before the first sample, after the
// last) so the live heap they report is current, not whatever the last
// automatic GC happened to see.
func (c *sampler) checkpoint() {
	first, last := c.next == 0, c.next == len(c.checks)-1
	if first {
		goruntime.GC()
	}
	u := c.usage.read()
	if last {
		goruntime.GC()
		u.heapLive = c.usage.read().heapLive
	}
	c.samples = append(c.samples, u)
	c.next++
}

// finish is calibrate.finish(t0_ms, done, error, stamp_source).
func (c *luaClient) finish(L *lua.LState) int {
	c.t0Ms = float64(L.OptNumber(1, lua.LNumber(math.NaN())))
	c.done = L.ToBool(2)
	if L.Get(3) != lua.LNil {
		c.failed = L.ToStringMeta(L.Get(3)).String()
	}
	c.source = L.OptString(4, "")
	return 0
}

// arrivals places the recorded stamps on CLOCK_MONOTONIC: t0 and t_ms
// count from the runtime's clock start, which m maps.
func (c *luaClient) arrivals(m monoclock.Mapping) []int64 {
	out := make([]int64, c.chunks+1)
	if math.IsNaN(c.t0Ms) {
		return out
	}
	base := m.Mono(runtime.ClockStart())
	for i := 1; i <= c.chunks; i++ {
		if !math.IsNaN(c.tms[i]) {
			out[i] = base + int64(math.Round((c.t0Ms+c.tms[i])*1e6))
		}
	}
	return out
}

// cost turns the samples into per-chunk figures; nil when the stream did
// not reach its last chunk.
func (c *sampler) cost() *Cost {
	if len(c.samples) < 2 || c.next < len(c.checks) {
		return nil
	}
	first, last := c.samples[0], c.samples[len(c.samples)-1]
	n := float64(c.checks[len(c.checks)-1] - c.checks[0])
	cost := &Cost{
		Chunks:           int(n),
		CPUUsPerChunk:    float64(last.cpuNs-first.cpuNs) / 1e3 / n,
		ReaderUsPerChunk: float64(last.readerNs-first.readerNs) / 1e3 / n,
		AllocsPerChunk:   float64(last.allocs-first.allocs) / n,
		BytesPerChunk:    float64(last.allocBytes-first.allocBytes) / n,
		HeapLiveStart:    first.heapLive,
		HeapLiveEnd:      last.heapLive,
		PeakRSSBytes:     peakRSSBytes(),
	}
	for _, s := range c.samples {
		cost.PeakHeapBytes = max(cost.PeakHeapBytes, s.heapInUse)
	}
	cost.HeapGrowthPerChunk = (float64(last.heapLive) - float64(first.heapLive)) / n
	cost.CallerUsPerChunk = cost.CPUUsPerChunk - cost.ReaderUsPerChunk
	return cost
}

// Cost is what ttftlab spends per content chunk between the warm-up
// checkpoint (a tenth into the stream) and the last chunk: reader
// goroutine, event parsing, chunk decoding and the Lua callback.
type Cost struct {
	// Chunks is how many chunks the figures cover.
	Chunks int `json:"chunks"`
	// CPUUsPerChunk is process CPU time (user + system) per chunk; with
	// the server in its own process nothing else runs here.
	CPUUsPerChunk float64 `json:"cpu_us_per_chunk"`
	// ReaderUsPerChunk is the part the reading thread used (the stream
	// package's poller: wake-ups, recvmsg, stamping; 0 when another wire
	// reads), CallerUsPerChunk the rest: the caller's side of the hand-off
	// (parsing, decoding, the Lua callback) and Go's own threads.
	ReaderUsPerChunk float64 `json:"reader_cpu_us_per_chunk"`
	CallerUsPerChunk float64 `json:"caller_cpu_us_per_chunk"`
	// AllocsPerChunk and BytesPerChunk are heap allocations per chunk.
	AllocsPerChunk float64 `json:"allocs_per_chunk"`
	BytesPerChunk  float64 `json:"alloc_bytes_per_chunk"`
	// HeapLiveStart and HeapLiveEnd are the live heap right after a GC at
	// the first and last checkpoint; HeapGrowthPerChunk is their
	// difference per chunk: about 0 when nothing is kept per chunk.
	HeapLiveStart      uint64  `json:"heap_live_start_bytes"`
	HeapLiveEnd        uint64  `json:"heap_live_end_bytes"`
	HeapGrowthPerChunk float64 `json:"heap_growth_bytes_per_chunk"`
	// PeakHeapBytes is the largest heap seen at a checkpoint, garbage not
	// yet collected included.
	PeakHeapBytes uint64 `json:"peak_heap_bytes"`
	// PeakRSSBytes is the process's resident-set high-water mark so far.
	PeakRSSBytes int64 `json:"peak_rss_bytes"`
}

// describe explains a run that did not end with [DONE].
func (c *luaClient) describe() error {
	switch {
	case c.failed != "":
		return fmt.Errorf("%s", c.failed)
	case !c.done:
		return fmt.Errorf("the stream ended without data: [DONE]")
	}
	return nil
}
