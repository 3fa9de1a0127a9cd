package loadtext_test

import (
	"math"
	"strings"

	"ttftlab/internal/artifact"
)

// Hand-made level records, one for each way a level reads on the console.

func f(x float64) *float64 { return &x }

// dist is a distribution of n values with its three percentiles, each
// bounded (its interval around it) unless its name is in unbounded.
func dist(n int, p50, p95, p99 float64, unbounded ...string) artifact.Dist {
	ci := func(name string, v float64) *[2]float64 {
		for _, u := range unbounded {
			if u == name {
				return nil
			}
		}
		return &[2]float64{v * 0.9, v * 1.1}
	}
	return artifact.Dist{N: n, P50: f(p50), P50CI: ci("p50", p50), P90: f(p95), P95: f(p95), P95CI: ci("p95", p95),
		P99: f(p99), P99CI: ci("p99", p99), Mean: f(p50), Max: f(p99)}
}

// trend is a level's trend record over thirds whose medians are p50s
// (nil: late).
func trend(steady, known bool, p50s ...*float64) *artifact.LevelTrend {
	t := &artifact.LevelTrend{Metric: "queue_ms + ttft_ms", Steady: steady, Known: known}
	for i, p := range p50s {
		w := artifact.TrendWindow{From: 1 + 10*i, N: 10, P50Ms: p}
		if p != nil {
			w.CIMs = [2]*float64{f(*p - 2), nil}
		}
		t.Thirds = append(t.Thirds, w)
	}
	return t
}

// slo is one SLO's verdict on a level.
func slo(metric string, pct, limit float64, value *float64, n, failed, missing int) artifact.SLOVerdict {
	return artifact.SLOVerdict{Metric: metric, Percentile: pct, LimitMs: limit, ValueMs: value, N: n, Failed: failed, Missing: missing,
		Met: value != nil && *value <= limit}
}

// level is a level of 40 requests that all ended well and met the SLO
// (ttft_ms p95 <= 800 ms), steady.
func level(at float64) artifact.LoadLevel {
	return artifact.LoadLevel{
		Level: at, Concurrency: f(at),
		Summary: artifact.LevelSummary{Calls: 40, ManySummary: artifact.ManySummary{
			Requests: 40, OK: 40, DurationMs: 12000, TokensPerS: f(123.45), RequestsPerS: f(3.3),
			TTFTMs: dist(40, 210.4, 512, 640), FirstSentenceMs: dist(40, 8.25, 612.5, 700.5),
			Failures: []artifact.Failure{},
		}},
		SLO:     []artifact.SLOVerdict{slo("ttft_ms", 95, 800, f(512), 40, 0, 0)},
		Goodput: f(1), SLOMet: true,
		Steady: trend(true, true, f(200), f(210), f(205)),
	}
}

// missed is level(at) with its SLO's value over the limit.
func missed(at float64, value float64) artifact.LoadLevel {
	l := level(at)
	l.SLO = []artifact.SLOVerdict{slo("ttft_ms", 95, 800, f(value), 40, 0, 0)}
	l.SLOMet, l.Goodput = false, f(0.625)
	return l
}

// failing is level(at) with failed of its 40 requests failed.
func failing(at float64, failed int) artifact.LoadLevel {
	l := level(at)
	l.Summary.OK, l.Summary.Failed = 40-failed, failed
	l.Summary.TTFTMs = dist(40-failed, 210, 512, 640)
	l.Summary.Failures = []artifact.Failure{{Kind: "http", Status: 503, N: failed, Example: "slots busy"}}
	l.SLO = []artifact.SLOVerdict{slo("ttft_ms", 95, 800, nil, 40, failed, 0)}
	if failed == 40 {
		l.Summary.TTFTMs, l.Summary.FirstSentenceMs = artifact.Dist{}, artifact.Dist{}
	}
	l.SLOMet, l.Goodput = false, f(float64(40-failed)/40)
	return l
}

// heldButFailed is level(at) whose SLO held though one request failed.
func heldButFailed(at float64) artifact.LoadLevel {
	l := level(at)
	l.Summary.OK, l.Summary.Failed = 39, 1
	l.Summary.Failures = []artifact.Failure{{Kind: "timeout", N: 1, Example: "no byte in 30 s"}}
	l.SLO[0].Failed = 1
	l.SLOMet, l.Goodput = false, f(0.975)
	return l
}

// overSaturated is a rate level that stopped starting calls.
func overSaturated(at float64) artifact.LoadLevel {
	l := missed(at, 2400)
	l.Concurrency, l.Rate = nil, f(at)
	l.OverSaturated = trend(false, true, f(300), f(900), nil)
	l.OverSaturated.Rising = true
	l.Steady = trend(false, true, f(300), f(900), nil)
	return l
}

// interrupted is a level the run was stopped in.
func interrupted(at float64) artifact.LoadLevel {
	l := failing(at, 7)
	l.Interrupted = true
	l.Summary.Failures = []artifact.Failure{{Kind: "canceled", N: 7, Example: "the run was stopped"}}
	l.Steady = trend(false, false, f(200), f(220), f(230))
	return l
}

// levelCase is one table of levels on the console.
type levelCase struct {
	name   string
	mode   string
	engine string
	// sttEngine is the speech-to-text engine's name (Table.STTEngine).
	sttEngine string
	scope     string
	labels    []string
	levels    []artifact.LoadLevel
}

// tableCases cover every line a level can have.
func tableCases() []levelCase {
	thin := level(2)
	thin.Summary.Calls, thin.Summary.Requests, thin.Summary.OK = 10, 10, 10
	thin.Summary.TTFTMs = dist(10, 150, 400, 420, "p95", "p99")
	thin.Summary.FirstSentenceMs = dist(10, 300, 650, 680, "p99")
	thin.SLO = []artifact.SLOVerdict{slo("ttft_ms", 95, 800, f(400), 10, 0, 0), slo("first_sentence_ms", 50, 1000, f(300), 10, 0, 0)}

	p90 := level(3)
	p90.Summary.FirstSentenceMs = dist(8, 300, 650, 680, "p95", "p99")
	p90.SLO = []artifact.SLOVerdict{slo("first_sentence_ms", 90, 1000, f(600), 40, 0, 32)}

	kinds := failing(4, 25)
	long := strings.Repeat("a server that says a lot ", 20)
	kinds.Summary.Failures = []artifact.Failure{
		{Kind: "http", Status: 503, N: 10, Example: long},
		{Kind: "timeout", N: 8, Example: "no byte in 30 s"},
		{Kind: "reset", N: 4, Example: "connection reset by peer"},
		{Kind: "http", Status: 429, N: 2, Example: "too many requests"},
		{Kind: "closed", N: 1, Example: ""},
	}
	kinds.SLO = []artifact.SLOVerdict{slo("ttft_ms", 95, 800, nil, 40, 25, 0), slo("first_sentence_ms", 50, 800, f(9.5), 40, 25, 2)}
	kinds.Goodput = nil

	busy := level(5)
	busy.Summary.Client = &artifact.ClientUse{Cores: 2, CPUMs: 21000, Busy: 0.875, ReaderCPUMs: 900}
	wait := level(6)
	wait.Summary.Client = &artifact.ClientUse{Cores: 8, CPUMs: 1200, Busy: 0.05, ReaderCPUMs: 300, ReaderWaitMs: f(240), ReaderRuns: f(1200)}
	calm := level(7)
	calm.Summary.Client = &artifact.ClientUse{Cores: 8, CPUMs: 1200, Busy: 0.05, ReaderCPUMs: 300, ReaderWaitMs: f(240), ReaderRuns: f(48000)}

	// A level whose first 15 requests were its transient, and one whose
	// window is the whole level.
	transient, whole := level(2), level(3)
	idx := 19
	transient.SteadyWindow = &artifact.SteadyWindow{Metric: "ttft_ms", Rule: "MSER-5", Batch: 5, Batches: 11, Known: true,
		FromRequest: 16, FromIndex: &idx, LeftOut: 15}
	whole.SteadyWindow = &artifact.SteadyWindow{Metric: "ttft_ms", Rule: "MSER-5", Batch: 5, Batches: 8, Known: true, FromRequest: 1}
	// A level steady by its thirds whose batch means still rose.
	drifting := level(4)
	drifting.Steady = trend(true, true, f(100), f(115), f(130))
	drifting.Steady.Drift = &artifact.TrendDrift{Batch: 5, Batches: 12, Rho: f(0.7133), P: f(0.0092), Known: true, Drifting: true}
	// SLO verdicts with their intervals: below the limit, and holding it.
	decided, undecided := level(5), level(6)
	decided.SLO[0].CIMs, decided.SLO[0].Side = &[2]*float64{f(480), f(530)}, "below"
	undecided.SLO = []artifact.SLOVerdict{slo("ttft_ms", 95, 800, f(780), 40, 0, 0)}
	undecided.SLO[0].CIMs, undecided.SLO[0].Side = &[2]*float64{f(700), f(900)}, "straddles"
	drift := level(8)
	drift.Steady = trend(false, true, f(100), f(180), f(260))
	late := missed(9, 1900)
	late.Steady = trend(false, true, f(100), f(900), nil)

	empty := level(10)
	empty.Summary.OK, empty.Summary.TTFTMs, empty.Summary.FirstSentenceMs = 40, dist(37, 200, 500, 600), artifact.Dist{}
	empty.SLO = []artifact.SLOVerdict{slo("first_sentence_ms", 95, 800, nil, 40, 0, 40)}
	emptyFailed := failing(11, 2)
	emptyFailed.Summary.TTFTMs = dist(30, 200, 500, 600)

	spoken := level(1)
	audio, underrun := dist(40, 350, 700, 900, "p99"), dist(40, 0, 12.5, 40)
	spoken.Summary.FirstAudioMs, spoken.Summary.UnderrunMs = &audio, &underrun
	spoken.TTSCPUMsPerAudioS = f(83.25)
	spoken.SLO = append(spoken.SLO, slo("first_audio_ms", 99, 1000, f(900), 40, 0, 0))

	heard := level(1)
	ear, final, endp := dist(40, 1200, 1450, 1700, "p99"), dist(40, 300, 420, 500), dist(20, 150, 200, 260)
	heard.Summary.FirstAudioMs, heard.Summary.UnderrunMs = &audio, &underrun
	heard.Summary.MouthToEarMs, heard.Summary.SttFinalMs, heard.Summary.EndpointingMs = &ear, &final, &endp
	heard.TTSCPUMsPerAudioS, heard.STTCPUMsPerAudioS = f(83.25), f(612.5)
	heard.SLO = append(heard.SLO, slo("mouth_to_ear_ms", 95, 1500, f(1450), 40, 0, 0))

	round := missed(12, 950)
	round.Pooled = &artifact.LevelPooled{Rounds: 2}

	return []levelCase{
		{name: "met", mode: "concurrency", labels: []string{"1"}, levels: []artifact.LoadLevel{level(1)}},
		{name: "thin tails", mode: "concurrency", labels: []string{"2"}, levels: []artifact.LoadLevel{thin}},
		{name: "p90 thin in its figure", mode: "concurrency", labels: []string{"3"}, levels: []artifact.LoadLevel{p90}},
		{name: "failure kinds", mode: "concurrency", labels: []string{"4"}, levels: []artifact.LoadLevel{kinds}},
		{name: "client", mode: "concurrency", labels: []string{"5", "6", "7"}, levels: []artifact.LoadLevel{busy, wait, calm}},
		{name: "not steady", mode: "concurrency", labels: []string{"8", "9"}, levels: []artifact.LoadLevel{drift, late}},
		{name: "drifting", mode: "concurrency", labels: []string{"4"}, levels: []artifact.LoadLevel{drifting}},
		{name: "slo intervals", mode: "concurrency", labels: []string{"5", "6"}, levels: []artifact.LoadLevel{decided, undecided}},
		{name: "transient", mode: "concurrency", labels: []string{"2", "3"}, levels: []artifact.LoadLevel{transient, whole}},
		{name: "no content", mode: "concurrency", labels: []string{"10", "11"}, levels: []artifact.LoadLevel{empty, emptyFailed}},
		{name: "spoken", mode: "concurrency", engine: "espeak-ng", labels: []string{"1"}, levels: []artifact.LoadLevel{spoken}},
		{name: "spoken without engine", mode: "concurrency", labels: []string{"1"}, levels: []artifact.LoadLevel{spoken}},
		{name: "caller spoke", mode: "concurrency", engine: "espeak-ng", sttEngine: "pocketsphinx 5.1.1", labels: []string{"1"},
			levels: []artifact.LoadLevel{heard}},
		{name: "caller spoke without engine", mode: "concurrency", labels: []string{"1"}, levels: []artifact.LoadLevel{heard}},
		{name: "over-saturated", mode: "rate", labels: []string{"0.5"}, levels: []artifact.LoadLevel{overSaturated(0.5)}},
		{name: "interrupted", mode: "concurrency", labels: []string{"16"}, levels: []artifact.LoadLevel{interrupted(16)}},
		{name: "held but failed", mode: "concurrency", labels: []string{"4"}, levels: []artifact.LoadLevel{heldButFailed(4)}},
		{name: "second round", mode: "concurrency", scope: "over every shard's requests", labels: []string{"12 #2"},
			levels: []artifact.LoadLevel{round}},
	}
}

// capacityCase is one capacity line: the levels, the capacity and the
// level above it (indexes into levels, -1 for none), the first level
// asked for (NaN: none).
type capacityCase struct {
	name            string
	mode            string
	levels          []artifact.LoadLevel
	capacity, above int
	lowest          float64
}

func capacityCases() []capacityCase {
	nan := math.NaN()
	return []capacityCase{
		{"no level ran", "concurrency", nil, -1, -1, nan},
		{"none ran, one asked for", "concurrency", nil, -1, -1, 2},
		{"first missed", "concurrency", []artifact.LoadLevel{missed(1, 900), missed(2, 1200)}, -1, -1, 1},
		{"first failed every request", "concurrency", []artifact.LoadLevel{failing(1, 40)}, -1, -1, 1},
		{"first held but failed", "concurrency", []artifact.LoadLevel{heldButFailed(1)}, -1, -1, 1},
		{"first over-saturated", "rate", []artifact.LoadLevel{overSaturated(0.5)}, -1, -1, 0.5},
		{"first interrupted", "concurrency", []artifact.LoadLevel{interrupted(1)}, -1, -1, 1},
		{"at least, above by value", "concurrency", []artifact.LoadLevel{level(1), level(2), missed(4, 1234.5)}, 1, 2, 1},
		{"at least, above failed", "rate", []artifact.LoadLevel{level(0.25), failing(0.5, 3)}, 0, 1, 0.25},
		{"at least, above missing", "concurrency", []artifact.LoadLevel{level(1), func() artifact.LoadLevel {
			l := missed(2, 0)
			l.SLO[0].ValueMs, l.SLO[0].Missing = nil, 5
			return l
		}()}, 0, 1, 1},
		{"at least, above held but failed", "concurrency", []artifact.LoadLevel{level(1), heldButFailed(2)}, 0, 1, 1},
		{"at least, above over-saturated", "rate", []artifact.LoadLevel{level(1), overSaturated(2)}, 0, 1, 1},
		{"at least, above interrupted", "concurrency", []artifact.LoadLevel{level(1), interrupted(2)}, 0, 1, 1},
		{"every level held", "concurrency", []artifact.LoadLevel{level(1), level(2), level(4)}, 2, -1, 1},
		{"highest held, one below missed", "concurrency", []artifact.LoadLevel{level(1), missed(2, 900), level(4)}, 2, -1, 1},
		{"highest held, two below missed", "rate", []artifact.LoadLevel{missed(1, 900), missed(1.5, 900), level(2)}, 2, -1, 1},
	}
}

// mergeDoc is a merged run of two shards: level 2 held, level 4 missed
// and over-saturated in a shard, a shard's start missing at level 4.
func mergeDoc() artifact.Load {
	two, four := level(2), overSaturated(4)
	four.Rate, four.Concurrency = nil, f(4)
	two.Summary.TTFTMs = dist(40, 210, 512, 640, "p99")
	two.Shards = []artifact.LevelShard{{Shard: 0, Host: "a", StartedUnixMs: f(1.7e12), Requests: 20},
		{Shard: 1, Host: "b", StartedUnixMs: f(1.7e12 + 3.25), Requests: 20}}
	two.StartSpreadMs = f(3.25)
	four.Shards = []artifact.LevelShard{{Shard: 0, StartedUnixMs: f(1.7e12), Requests: 20, Failed: 3},
		{Shard: 1, Host: "b", Requests: 20}}
	return artifact.Load{
		Settings: artifact.LoadSettings{Server: "http://127.0.0.1:8080", Mode: "concurrency", Levels: []float64{2, 4}, RunID: "r1",
			Shards: 2, Requests: 40, SLO: []artifact.SLO{{Metric: "ttft_ms", Percentile: 95, LimitMs: 800, Text: "ttft_ms p95 <= 800ms"},
				{Metric: "first_sentence_ms", Percentile: 50, LimitMs: 1500, Text: "first_sentence_ms p50 <= 1.5s"}}},
		Levels:   []artifact.LoadLevel{two, four},
		Capacity: &artifact.Capacity{Level: 2, Next: &artifact.CapacityNext{Level: 4, SLO: four.SLO}},
	}
}

// pooled is a search's verdict on a level over its rounds: the first
// SLO's p95 with its interval.
func pooled(l artifact.LoadLevel, value *float64, lo, hi *float64, n, failed int, met, decided bool) artifact.LoadLevel {
	side := "straddles"
	if decided {
		side = map[bool]string{true: "below", false: "above"}[met]
	}
	l.Pooled = &artifact.LevelPooled{Rounds: 2, Calls: n, Failed: failed, Met: met, Decided: decided,
		SLO: []artifact.PooledSLO{{Metric: "ttft_ms", Percentile: 95, LimitMs: 800, ValueMs: value, CIMs: [2]*float64{lo, hi}, N: n, Side: side}}}
	return l
}

// searchDoc is a search of calls at once up to 8: 1, 2 and 4 held, 8
// missed; capacity 4, decided, with 4 confirmed in a second round.
func searchDoc() artifact.Load {
	yes := true
	return artifact.Load{
		Settings: artifact.LoadSettings{Server: "http://127.0.0.1:8080", Mode: "concurrency", Levels: []float64{1, 2, 4, 8}, SearchMax: 8,
			SearchBudget: 120, Calls: 40, Requests: 40, Turns: 1, Docs: 4, MaxTokens: 64,
			SLO: []artifact.SLO{{Metric: "ttft_ms", Percentile: 95, LimitMs: 800, Text: "ttft_ms p95 <= 800ms"}}},
		Levels: []artifact.LoadLevel{
			pooled(level(1), f(300), f(280), f(320), 40, 0, true, true),
			pooled(level(2), f(400), f(380), f(420), 40, 0, true, true),
			pooled(level(4), f(700), f(650), f(760), 80, 0, true, true),
			pooled(missed(8, 1500), f(1500), f(1300), nil, 40, 2, false, true),
		},
		Capacity: &artifact.Capacity{Level: 4, Next: &artifact.CapacityNext{Level: 8}, Decided: &yes, Search: []artifact.SearchStep{
			{Level: 1, Met: true, Round: 1, Calls: 40, Requests: 40}, {Level: 2, Met: true, Round: 1, Calls: 40, Requests: 40},
			{Level: 4, Met: true, Round: 1, Calls: 40, Requests: 40}, {Level: 8, Met: false, Round: 1, Calls: 40, Requests: 40, OverSaturated: true},
			{Level: 4, Met: true, Round: 2, Calls: 40, Requests: 80}}},
	}
}
