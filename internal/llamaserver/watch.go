package llamaserver

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"ttftlab/internal/endpoint"
	"ttftlab/internal/metrics"
	"ttftlab/internal/servers"
	"ttftlab/internal/stream"
)

// Sample is what the server said about itself at one moment of a load.
type Sample struct {
	// At is when the sample was taken, since the watch began.
	At time.Duration
	// Kind is the kind of server the metrics were read as.
	Kind servers.Kind
	// SlotsProcessing and SlotsTotal come from /slots (llama.cpp; nil when
	// it is off or the kind has none).
	SlotsProcessing, SlotsTotal *int
	// The rest come from /metrics under the kind's names (llama.cpp with
	// --metrics, vLLM, SGLang with --enable-metrics): requests running and
	// waiting.
	RequestsProcessing, RequestsDeferred *float64
	// PredictedPerS is the generated tokens per second since the last
	// sample (the rate of the kind's generated-tokens counter).
	PredictedPerS *float64
}

// Watch samples the endpoint's /slots (llama.cpp only) and /metrics
// (under the kind's metric names, see metrics.For) every `every` until ctx
// ends, handing each sample to f (on Watch's goroutine). Endpoints that
// answer with an error (a server without --metrics) are left out of the
// samples.
func Watch(ctx context.Context, ep *endpoint.Endpoint, kind servers.Kind, every time.Duration, f func(Sample)) {
	begin := time.Now()
	tick := time.NewTicker(every)
	defer tick.Stop()
	names, hasMetrics := metrics.For(string(kind))
	w := watch{ep: ep, route: RouteOf(ep), kind: kind, names: names, metrics: hasMetrics, slots: servers.CapsOf(kind).Slots}
	for {
		f(w.sample(ctx, time.Since(begin)))
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

type watch struct {
	ep        *endpoint.Endpoint
	route     stream.Route
	kind      servers.Kind
	names     metrics.Names
	metrics   bool // false once /metrics said it is not there
	slots     bool
	lastTotal float64
	lastAt    time.Duration
	seen      bool
}

func (w *watch) sample(ctx context.Context, at time.Duration) Sample {
	s := Sample{At: at, Kind: w.kind}
	var slots []struct {
		IsProcessing bool `json:"is_processing"`
	}
	if !w.slots {
		// no /slots on this kind
	} else if code, body, _, err := get(ctx, w.ep, w.route, "/slots"); err == nil && code == http.StatusOK && json.Unmarshal(body, &slots) == nil {
		busy, total := 0, len(slots)
		for _, sl := range slots {
			if sl.IsProcessing {
				busy++
			}
		}
		s.SlotsProcessing, s.SlotsTotal = &busy, &total
	}
	if w.metrics {
		w.readMetrics(ctx, &s)
	}
	return s
}

func (w *watch) readMetrics(ctx context.Context, s *Sample) {
	code, body, _, err := get(ctx, w.ep, w.route, "/metrics")
	if err != nil {
		return
	}
	if code != http.StatusOK {
		w.metrics = code != http.StatusNotImplemented && code != http.StatusNotFound
		return
	}
	m, err := metrics.Read(body, w.names)
	if err != nil {
		return
	}
	s.RequestsProcessing, s.RequestsDeferred = m.Running, m.Waiting
	if total := m.Generated; total != nil {
		if w.seen && s.At > w.lastAt {
			rate := (*total - w.lastTotal) / (s.At - w.lastAt).Seconds()
			s.PredictedPerS = &rate
		}
		w.lastTotal, w.lastAt, w.seen = *total, s.At, true
	}
}
