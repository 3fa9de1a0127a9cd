package rundir

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"
)

// Load is a load run's folder: load.json, requests.jsonl, server.jsonl.
type Load struct {
	Dir      string
	Finished time.Time
	Settings LoadSettings
	// Fields are load.json's values outside "levels", in file order
	// (settings, model, server, capacity), for the summary.
	Fields   []Field
	Levels   []Level
	Capacity *Capacity
	Requests []Request
	Server   []ServerSample
	Problems []string
}

// LoadSettings are what the run was asked to do.
type LoadSettings struct {
	Mode   string    `json:"mode"`
	Levels []float64 `json:"levels"`
	SLO    []SLO     `json:"slo"`
}

// SLO is one objective, and in a level's result the value measured.
type SLO struct {
	Metric     string   `json:"metric"`
	Percentile float64  `json:"percentile"`
	LimitMs    float64  `json:"limit_ms"`
	ValueMs    *float64 `json:"value_ms"`
	Met        *bool    `json:"met"`
}

// Level is one concurrency (or rate) level and its summary.
type Level struct {
	Level   float64  `json:"level"`
	Summary Summary  `json:"summary"`
	SLO     []SLO    `json:"slo"`
	Goodput *float64 `json:"goodput"`
	SLOMet  *bool    `json:"slo_met"`
}

// Summary is a level's summary: its counts and, by metric, the
// distribution of a time (p50, p95, ...).
type Summary struct {
	Scalars []Field
	Errors  map[string]float64
	Dists   map[string]map[string]float64
	// Metrics are the names of Dists in file order.
	Metrics []string
}

// UnmarshalJSON sorts the summary's members by shape: a number is a
// count or rate, an object of numbers a distribution, "errors" the errors
// by kind. Members of other shapes are ignored.
func (s *Summary) UnmarshalJSON(data []byte) error {
	fields, err := Flatten(data)
	if err != nil {
		return err
	}
	s.Errors, s.Dists = map[string]float64{}, map[string]map[string]float64{}
	for _, f := range fields {
		v, ok := f.Number()
		if !ok {
			continue
		}
		head, tail, nested := cut(f.Path)
		switch {
		case !nested:
			s.Scalars = append(s.Scalars, f)
		case head == "errors":
			s.Errors[tail] = v
		default:
			if s.Dists[head] == nil {
				s.Dists[head] = map[string]float64{}
				s.Metrics = append(s.Metrics, head)
			}
			s.Dists[head][tail] = v
		}
	}
	return nil
}

func cut(path string) (head, tail string, ok bool) {
	for i := 0; i < len(path); i++ {
		if path[i] == '.' {
			return path[:i], path[i+1:], true
		}
	}
	return path, "", false
}

// Scalar is the summary's number called name.
func (s Summary) Scalar(name string) (float64, bool) {
	for _, f := range s.Scalars {
		if f.Path == name {
			return f.Number()
		}
	}
	return 0, false
}

// Capacity is the highest level that met every SLO, and the next one.
type Capacity struct {
	Level float64 `json:"level"`
	Next  *struct {
		Level float64 `json:"level"`
		SLO   []SLO   `json:"slo"`
	} `json:"next"`
}

// Request is one line of requests.jsonl. Times are relative to the
// request's own start, except StartMs and ScheduledMs (since its level
// began); a time is nil when the request never reached it.
type Request struct {
	Level           float64  `json:"level"`
	Index           float64  `json:"index"`
	Call            float64  `json:"call"`
	Turn            float64  `json:"turn"`
	StartMs         float64  `json:"start_ms"`
	ScheduledMs     *float64 `json:"scheduled_ms"`
	QueueMs         *float64 `json:"queue_ms"`
	TTFTMs          *float64 `json:"ttft_ms"`
	FirstSentenceMs *float64 `json:"first_sentence_ms"`
	TotalMs         *float64 `json:"total_ms"`
	Chunks          float64  `json:"chunks"`
	PromptN         *float64 `json:"prompt_n"`
	CacheN          *float64 `json:"cache_n"`
	StallMs         *float64 `json:"stall_ms"`
	Error           *string  `json:"error"`
	ErrorKind       *string  `json:"error_kind"`
	Warmup          bool     `json:"warmup"`
}

// ServerSample is one line of server.jsonl: the server's state at t_ms
// since the run began.
type ServerSample struct {
	TMs                float64 `json:"t_ms"`
	Level              float64 `json:"level"`
	SlotsProcessing    float64 `json:"slots_processing"`
	SlotsTotal         float64 `json:"slots_total"`
	RequestsDeferred   float64 `json:"requests_deferred"`
	RequestsProcessing float64 `json:"requests_processing"`
}

// ReadLoad reads a load folder.
func ReadLoad(dir string) *Load {
	var p problems
	l := &Load{Dir: dir, Finished: finished(dir)}
	var doc struct {
		Settings LoadSettings `json:"settings"`
		Levels   []Level      `json:"levels"`
		Capacity *Capacity    `json:"capacity"`
	}
	if readJSON(dir, loadMarker, &doc, &p) {
		l.Settings, l.Levels, l.Capacity = doc.Settings, doc.Levels, doc.Capacity
	}
	for _, f := range readFields(dir, loadMarker, &p) {
		if head, _, _ := cut(f.Path); !isLevels(head) {
			l.Fields = append(l.Fields, f)
		}
	}
	readLines(dir, "requests.jsonl", &p, func(line []byte) error {
		var r Request
		err := json.Unmarshal(line, &r)
		if err == nil {
			l.Requests = append(l.Requests, r)
		}
		return err
	})
	readLines(dir, "server.jsonl", &p, func(line []byte) error {
		var s ServerSample
		err := json.Unmarshal(line, &s)
		if err == nil {
			l.Server = append(l.Server, s)
		}
		return err
	})
	sort.SliceStable(l.Levels, func(i, j int) bool { return l.Levels[i].Level < l.Levels[j].Level })
	if len(l.Levels) == 0 && len(l.Fields) > 0 {
		p.add("%s has no levels: the run measured nothing", loadMarker)
	}
	l.Problems = p
	return l
}

func isLevels(head string) bool { return head == "levels" || strings.HasPrefix(head, "levels[") }

// LevelName is "concurrency 4" or "rate 2 req/s" for the run's mode.
func (l *Load) LevelName(v float64) string {
	if l.Settings.Mode == "rate" {
		return fmt.Sprintf("rate %g req/s", v)
	}
	return fmt.Sprintf("concurrency %g", v)
}
