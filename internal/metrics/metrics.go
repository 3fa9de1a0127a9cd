// Package metrics reads a server's Prometheus text (its /metrics answer)
// into the few numbers ttftlab follows during a run, under each server
// kind's own metric names: requests running and waiting, and tokens
// generated so far. It parses with the Prometheus text parser and does no
// I/O; the caller fetches the text.
package metrics

import (
	"bytes"
	"fmt"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Names are one server kind's metric names; "" where the kind has none.
type Names struct {
	// Running is the gauge of requests being processed now: the
	// cancellation evidence where a server has no /slots.
	Running string
	// Waiting is the gauge of requests queued.
	Waiting string
	// Generated is the counter of tokens generated since the server began.
	Generated string
}

// For returns the metric names of a server kind ("llama.cpp", "vllm",
// "sglang"); ok is false for a kind that serves no Prometheus metrics
// ttftlab knows (Ollama, hosted APIs).
func For(kind string) (n Names, ok bool) {
	switch kind {
	case "llama.cpp":
		return Names{Running: "llamacpp:requests_processing", Waiting: "llamacpp:requests_deferred",
			Generated: "llamacpp:tokens_predicted_total"}, true
	case "vllm":
		return Names{Running: "vllm:num_requests_running", Waiting: "vllm:num_requests_waiting",
			Generated: "vllm:generation_tokens_total"}, true
	case "sglang":
		return Names{Running: "sglang:num_running_reqs", Waiting: "sglang:num_queue_reqs",
			Generated: "sglang:generation_tokens_total"}, true
	}
	return Names{}, false
}

// Sample is one reading of the metrics; a metric the text lacks is nil.
type Sample struct {
	Running, Waiting, Generated *float64
}

// Families parses Prometheus text into its metric families.
func Families(text []byte) (map[string]*dto.MetricFamily, error) {
	parser := expfmt.NewTextParser(model.UTF8Validation)
	f, err := parser.TextToMetricFamilies(bytes.NewReader(text))
	if err != nil {
		return nil, fmt.Errorf("the metrics are not Prometheus text: %w", err)
	}
	return f, nil
}

// Read parses Prometheus text and picks the kind's metrics out of it.
func Read(text []byte, n Names) (Sample, error) {
	f, err := Families(text)
	if err != nil {
		return Sample{}, err
	}
	return Sample{Running: Value(f, n.Running), Waiting: Value(f, n.Waiting), Generated: Value(f, n.Generated)}, nil
}

// HasPrefix reports whether any metric family's name starts with prefix
// (e.g. "vllm:"), which tells which server exposes the metrics.
func HasPrefix(f map[string]*dto.MetricFamily, prefix string) bool {
	for name := range f {
		if len(name) >= len(prefix) && name[:len(prefix)] == prefix {
			return true
		}
	}
	return false
}

// Value is the sum over the series of a metric family (a gauge, a counter
// or untyped), nil when the family is absent or has no such series. A
// server with several engines or models labels one series each; the sum
// is the whole server's.
func Value(f map[string]*dto.MetricFamily, name string) *float64 {
	if name == "" {
		return nil
	}
	fam, ok := f[name]
	if !ok || len(fam.GetMetric()) == 0 {
		return nil
	}
	var v float64
	found := false
	for _, m := range fam.GetMetric() {
		switch {
		case m.GetGauge() != nil:
			v += m.GetGauge().GetValue()
		case m.GetCounter() != nil:
			v += m.GetCounter().GetValue()
		case m.GetUntyped() != nil:
			v += m.GetUntyped().GetValue()
		default:
			continue
		}
		found = true
	}
	if !found {
		return nil
	}
	return &v
}
