package llamaserver

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"ttftlab/internal/endpoint"
)

// Sample is what the server said about itself at one moment of a load.
type Sample struct {
	// At is when the sample was taken, since the watch began.
	At time.Duration
	// SlotsProcessing and SlotsTotal come from /slots (nil when it is off).
	SlotsProcessing, SlotsTotal *int
	// The rest come from /metrics, when the server runs with --metrics.
	RequestsProcessing, RequestsDeferred *float64
	// PredictedPerS is the generated tokens per second since the last
	// sample (llamacpp:tokens_predicted_total's rate).
	PredictedPerS *float64
}

// Watch samples the endpoint's /slots and /metrics every `every` until ctx ends,
// handing each sample to f (on Watch's goroutine). Endpoints that answer
// with an error (a server without --metrics) are left out of the samples.
func Watch(ctx context.Context, ep *endpoint.Endpoint, every time.Duration, f func(Sample)) {
	begin := time.Now()
	tick := time.NewTicker(every)
	defer tick.Stop()
	w := watch{ep: ep, metrics: true}
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
	metrics   bool // false once /metrics said it is not there
	lastTotal float64
	lastAt    time.Duration
	seen      bool
}

func (w *watch) sample(ctx context.Context, at time.Duration) Sample {
	s := Sample{At: at}
	var slots []struct {
		IsProcessing bool `json:"is_processing"`
	}
	if code, body, _, err := get(ctx, w.ep, "/slots"); err == nil && code == http.StatusOK && json.Unmarshal(body, &slots) == nil {
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
	code, body, _, err := get(ctx, w.ep, "/metrics")
	if err != nil {
		return
	}
	if code != http.StatusOK {
		w.metrics = code != http.StatusNotImplemented && code != http.StatusNotFound
		return
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		return
	}
	s.RequestsProcessing = gauge(families, "llamacpp:requests_processing")
	s.RequestsDeferred = gauge(families, "llamacpp:requests_deferred")
	if total := gauge(families, "llamacpp:tokens_predicted_total"); total != nil {
		if w.seen && s.At > w.lastAt {
			rate := (*total - w.lastTotal) / (s.At - w.lastAt).Seconds()
			s.PredictedPerS = &rate
		}
		w.lastTotal, w.lastAt, w.seen = *total, s.At, true
	}
}

// gauge reads the first value of a metric family, a gauge or a counter.
func gauge(families map[string]*dto.MetricFamily, name string) *float64 {
	f, ok := families[name]
	if !ok || len(f.GetMetric()) == 0 {
		return nil
	}
	m := f.GetMetric()[0]
	var v float64
	switch {
	case m.GetGauge() != nil:
		v = m.GetGauge().GetValue()
	case m.GetCounter() != nil:
		v = m.GetCounter().GetValue()
	case m.GetUntyped() != nil:
		v = m.GetUntyped().GetValue()
	default:
		return nil
	}
	return &v
}
